import type { Db } from 'mongodb';
import { DOELREGISTRATIES_COLLECTION, ZgwClient, openSecret, type Pii, type StoredDoelregistratie } from '@zgw/shared';

const API_FIELDS = ['zakenApi', 'catalogiApi', 'documentenApi', 'besluitenApi'] as const;
const REFRESH_MS = 10_000;
const MISS_REFRESH_MS = 1_000;

/**
 * The other ZGW systems this platform knows (doelregistraties with route `extern`, with their client id and
 * secret): a reference to one of their objects (a `relevanteAndereZaken` entry pointing at a transferred zaak, a
 * document) is read with that system's credentials, as it would be by the transfer itself. Any other URL is read
 * without. The list is re-read every ten seconds, and on a miss at most once a second.
 */
export class ExternalSystems {
  private loaded = 0;
  private systems: { bases: string[]; client: ZgwClient }[] = [];

  constructor(
    private readonly db: Db,
    private readonly pii: Pii,
  ) {}

  /** The Authorization header for a URL of a registered system, if it is one. */
  async authorization(url: string): Promise<string | undefined> {
    if (Date.now() - this.loaded > REFRESH_MS) await this.load();
    let system = this.find(url);
    // A system registered since the last read counts at once (a miss re-reads at most once a second).
    if (!system && Date.now() - this.loaded > MISS_REFRESH_MS) {
      await this.load();
      system = this.find(url);
    }
    return system ? `Bearer ${system.client.token()}` : undefined;
  }

  private find(url: string) {
    return this.systems.find((s) => s.bases.some((b) => url.startsWith(b)));
  }

  private async load(): Promise<void> {
    const regs = await this.db.collection<StoredDoelregistratie>(DOELREGISTRATIES_COLLECTION).find({ route: 'extern' }).limit(1000).toArray();
    this.systems = regs
      .filter((r) => r.clientId && r.secret)
      .map((r) => ({
        bases: API_FIELDS.map((f) => r[f])
          .filter((u): u is string => !!u)
          .map((u) => `${u.replace(/\/+$/, '')}/`),
        client: new ZgwClient({ clientId: r.clientId!, secret: openSecret(this.pii, 'doelregistratie', r.secret!) }),
      }));
    this.loaded = Date.now();
  }
}
