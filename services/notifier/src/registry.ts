import type { Db } from 'mongodb';
import {
  KANALEN,
  NRC_ABONNEMENTEN,
  NRC_KANALEN,
  NRC_STATUS,
  kanaalTopic,
  openSecret,
  type AbonnementDoc,
  type KanaalDoc,
  type Pii,
  type StatusDoc,
} from '@zgw/shared';
import type { Deliverer } from './deliverer';

/** Every read of the API's resource collections leaves out tombstones (deleted, events not yet published). */
const LIVE = { _tombstone: { $exists: false } };
const CREATED = { _created: 1, _id: 1 } as const;

/**
 * What the notifier knows of the Notificaties API's data: the abonnementen (by kanaal, for matching), their stored
 * delivery state (an administrator's unlock) and the kanalen (whose topics it consumes). Re-read every
 * NRC_REFRESH_MS, and at once when the intake holds a message newer than the last reading.
 */
export class Registry {
  private byKanaal = new Map<string, AbonnementDoc[]>();
  private loadedAt = 0;
  private loading?: { startedAt: number; done: Promise<void> };
  /** Opened Authorization headers by their sealed form, from the last reading (each is opened once, not every refresh). */
  private opened = new Map<string, string>();
  /** The Kafka topics of every kanaal (without prefix), the platform's own first. */
  topics: string[] = [...KANALEN];

  constructor(
    private readonly db: Db,
    private readonly pii: Pii,
    private readonly deliverer: Deliverer,
    private readonly onTopics: (topics: string[]) => Promise<void> | void = () => undefined,
  ) {}

  /** Indexes of the API's collections that these reads use (declared by the API too; the same definitions). */
  async ensureIndexes(): Promise<void> {
    for (const name of [NRC_ABONNEMENTEN, NRC_KANALEN]) await this.db.collection(name).createIndex(CREATED);
  }

  forKanaal(kanaal: string): readonly AbonnementDoc[] {
    return this.byKanaal.get(kanaal) ?? [];
  }

  /**
   * Re-reads now. Readings run one after the other (an older reading applied after a newer one would drop what the
   * newer found), and one in progress that started before is not enough: it may miss what was just stored.
   */
  refresh(): Promise<void> {
    const run = this.queue.catch(() => undefined).then(() => this.read());
    this.queue = run;
    return run;
  }

  private queue: Promise<void> = Promise.resolve();

  private read(): Promise<void> {
    const startedAt = Date.now();
    const done = (async () => {
      const [stored, statuses, kanalen] = await Promise.all([
        // every tenant's abonnementen, by the _id index (the tenants' own indexes lead with the tenant)
        this.db.collection<AbonnementDoc>(NRC_ABONNEMENTEN).find(LIVE).sort({ _id: 1 }).toArray(),
        this.db.collection<StatusDoc>(NRC_STATUS).find({}).sort({ _id: 1 }).toArray(),
        this.db.collection<KanaalDoc>(NRC_KANALEN).find(LIVE).sort(CREATED).toArray(),
      ]);
      // (the Authorization header is stored sealed; it is opened here, in memory only)
      const opened = new Map<string, string>();
      const open = (sealed: string) => {
        const plain = opened.get(sealed) ?? this.opened.get(sealed) ?? openSecret(this.pii, 'abonnement', sealed);
        opened.set(sealed, plain);
        return plain;
      };
      const abonnementen = stored.map((a) => ({ ...a, auth: open(a.auth) }));
      this.opened = opened;
      await this.deliverer.sync(abonnementen, new Map(statuses.map((s) => [s._id, s])));
      const byKanaal = new Map<string, AbonnementDoc[]>();
      for (const a of abonnementen) {
        for (const naam of new Set((a.kanalen ?? []).map((k) => k.naam))) byKanaal.set(naam, [...(byKanaal.get(naam) ?? []), a]);
      }
      this.byKanaal = byKanaal;
      this.loadedAt = Math.max(this.loadedAt, startedAt);
      const topics = [...new Set([...KANALEN, ...kanalen.map((k) => kanaalTopic(k.naam))])];
      if (topics.length !== this.topics.length || topics.some((t) => !this.topics.includes(t))) {
        this.topics = topics;
        // Not awaited: the consumer is replaced, and a reading may run inside its own batch (freshFor).
        // (the callback logs its own failures: worker.ts)
        void Promise.resolve(this.onTopics(topics)).catch(() => undefined);
      }
    })();
    const current = { startedAt, done };
    this.loading = current;
    return done.finally(() => {
      if (this.loading === current) this.loading = undefined;
    });
  }

  /** Makes sure the last reading started after `ms` (a Kafka message timestamp). */
  async freshFor(ms: number): Promise<void> {
    if (this.loadedAt >= ms) return;
    if (this.loading && this.loading.startedAt >= ms) return this.loading.done;
    await this.refresh();
  }
}
