import type { Db } from 'mongodb';
import {
  DOELREGISTRATIES_COLLECTION,
  ZgwClient,
  currentTenant,
  inTenant,
  makeRoom,
  openSecret,
  TENANT_FIELD,
  type Pii,
  type StoredDoelregistratie,
} from '@zgw/shared';

const API_FIELDS = ['zakenApi', 'catalogiApi', 'documentenApi', 'besluitenApi'] as const;
const REFRESH_MS = 10_000;
const MISS_REFRESH_MS = 1_000;
/** The tenants whose systems are kept read at once (more: the least recently read go, and are read again when used). */
const MAX_TENANTS = 10_000;

interface System {
  bases: string[];
  client: ZgwClient;
}

/** One tenant's external systems, as read at `loaded`. */
interface Loaded {
  loaded: number;
  systems: System[];
}

/**
 * The other ZGW systems a tenant knows (its doelregistraties with route `extern`, with their client id and secret):
 * a reference to one of their objects (a `relevanteAndereZaken` entry pointing at a transferred zaak, a document)
 * is read with that system's credentials, as it would be by the transfer itself. Each tenant's systems are its own:
 * read within the tenant and kept under it, so one organisation's credentials never go with another's request (a
 * URL of a system only another tenant registered is read without any). Any other URL, and any read at platform level
 * (no tenant), goes without. A tenant's list is re-read every ten seconds, and on a miss at most once a second.
 */
export class ExternalSystems {
  private readonly byTenant = new Map<string, Loaded>();

  constructor(
    private readonly db: Db,
    private readonly pii: Pii,
  ) {}

  /** The Authorization header for a URL of a system registered by the current tenant, if it is one. */
  async authorization(url: string): Promise<string | undefined> {
    const tenant = currentTenant();
    if (tenant === undefined) return undefined;
    let known = this.byTenant.get(tenant);
    if (!known || Date.now() - known.loaded > REFRESH_MS) known = await this.load(tenant);
    let system = find(known, url);
    // A system registered since the last read counts at once (a miss re-reads at most once a second).
    if (!system && Date.now() - known.loaded > MISS_REFRESH_MS) {
      known = await this.load(tenant);
      system = find(known, url);
    }
    return system ? `Bearer ${system.client.token()}` : undefined;
  }

  private async load(tenant: string): Promise<Loaded> {
    const regs = await inTenant(tenant, () =>
      this.db.collection<StoredDoelregistratie>(DOELREGISTRATIES_COLLECTION).find({ route: 'extern' }).limit(1000).toArray(),
    );
    const systems = regs
      // (every read is the tenant's: a document of another one would not be here, and is never taken)
      .filter((r) => r.clientId && r.secret && (r as Record<string, unknown>)[TENANT_FIELD] === tenant)
      .map((r) => ({
        bases: API_FIELDS.map((f) => r[f])
          .filter((u): u is string => !!u)
          .map((u) => `${u.replace(/\/+$/, '')}/`),
        client: new ZgwClient({ clientId: r.clientId!, secret: openSecret(this.pii, 'doelregistratie', r.secret!) }),
      }));
    const known = { loaded: Date.now(), systems };
    // kept in the order of reading: the least recently read make room first
    this.byTenant.delete(tenant);
    makeRoom(this.byTenant, MAX_TENANTS);
    this.byTenant.set(tenant, known);
    return known;
  }
}

function find(known: Loaded, url: string): System | undefined {
  return known.systems.find((s) => s.bases.some((b) => url.startsWith(b)));
}
