import type { Collection, Db, Document } from 'mongodb';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  ADMIN_LOGINS_COLLECTION,
  ADMIN_SESSIONS_COLLECTION,
  ADMIN_USERS_COLLECTION,
  IMPORT_PAGINAS,
  IMPORT_PROEF,
  IMPORT_TYPEN,
  IMPORT_OBJECTEN,
  IMPORTEN_COLLECTION,
  importWorkflowId,
  vernietigingWorkflowId,
  VERNIETIGINGSLIJSTEN_COLLECTION,
  isRsin,
  isTenantCollection,
  NRC_ABONNEMENTEN,
  NRC_DELIVERIES,
  NRC_NOTIFICATIES,
  NRC_RESENDS,
  NRC_STATUS,
  PLATFORM_COLLECTIONS,
  platformDb,
  TENANT_FIELD,
  tenantExclusionsId,
  type Config,
  type Logger,
  type Pii,
} from '@zgw/shared';
import { AUTORISATIES_CACHE, CREDENTIALS_CACHE, TENANTS_CACHE } from '../common/auth/auth';
import { ZgwError } from '../common/http/errors';
import { OUTBOX_POINTERS } from '../common/storage/store';
import { TENANTS_COLLECTION, type Tenant, type Tenants } from '../common/auth/tenants';
import type { TemporalClient } from '../common/platform/temporal';
import type { InhoudStore } from '../components/documenten/inhoud';
import { GridfsInhoud } from '../components/documenten/inhoud-gridfs';
import { S3Inhoud } from '../components/documenten/inhoud-s3';
import { inhoudStoreOf } from '../components/documenten/inhoud-store';
import { INHOUD_HOLDERS } from '../components/documenten/inhoud-sweep';

/** What erasing an organisation needs of the platform (the API's Deps, or the CLI's). */
export interface RemovalDeps {
  db: Db;
  config: Config;
  log: Logger;
  pii: Pii;
  tenants: Tenants;
  /** The API's Temporal connection: the organisation's workflow executions go with it. */
  temporal: TemporalClient;
  /** Clears these cache regions in every running API instance (the API's Caches, or announceClear from the CLI). */
  clearCaches(regions: string[]): Promise<void>;
}

/** What was erased of an organisation: documents per collection, content files, Temporal workflow executions. */
export interface RemovalReport {
  rsin: string;
  naam: string;
  /** Documents erased, per collection (every collection of the database, zero where nothing was the tenant's). */
  verwijderd: Record<string, number>;
  /** Content files of its documents removed, from the content store(s) named. */
  inhoud: { bestanden: number; stores: string[] };
  /** Its transfers' and imports' workflow executions deleted from Temporal (history and visibility); those running were terminated so. */
  workflows: { beeindigd: number; verwijderd: number };
}

/**
 * How each platform collection (PLATFORM_COLLECTIONS, shared by all tenants) holds what is an organisation's, and so
 * how the removal finds it. Every platform collection is named here (a test checks it): one added to the platform
 * must say how it keeps a tenant's data, or that it keeps none.
 */
export const PLATFORM_HOLDINGS: Readonly<Record<string, string>> = {
  [TENANTS_COLLECTION]: 'the tenant record itself, removed last',
  credentials: 'its clients, by `tenant`',
  [OUTBOX_POINTERS]: "pointers to its documents' unpublished events, by `<collection>/<uuid>`",
  kanalen: "none: the standard's kanalen are the platform's",
  settings: 'its audit read exclusions, by tenantExclusionsId',
  migrations: 'none: markers of one-time migrations',
  [ADMIN_USERS_COLLECTION]: 'its administrators of the screens, by `tenant`',
  [ADMIN_SESSIONS_COLLECTION]: "its administrators' sessions, and platform administrators' sessions acting in it, by `tenant` and `user`",
  [ADMIN_LOGINS_COLLECTION]: "its administrators' pending second-factor logins, by `user`",
  adminoidcflows: 'none: a login under way names no organisation yet (minutes)',
  nrc_leases: "none: the notifier's lease",
  [NRC_DELIVERIES]: 'deliveries to its abonnementen, by `_tenant`',
  [NRC_NOTIFICATIES]: 'its kept notifications, by `_tenant`',
  [NRC_STATUS]: 'the delivery state of its abonnementen, by abonnement uuid',
  [NRC_RESENDS]: 'resend requests of its abonnementen, by `abonnement`',
  'inhoud.files': "its documents' content, by the ids its documents point to (`_inhoud`)",
  'inhoud.chunks': "its documents' content, by the ids its documents point to (`_inhoud`)",
  [IMPORTEN_COLLECTION]: 'the registration imports into it, by `tenant`',
  [IMPORT_PAGINAS]: 'the pages of its imports, by `run`',
  [IMPORT_PROEF]: 'what dry runs of its imports kept aside, by `run`',
  [IMPORT_OBJECTEN]: 'the register of what its imports read and brought (the cut-over), by `run`',
};

/**
 * Collections the tenant check counts as a tenant's whose documents name their import run rather than the tenant
 * (written at platform level by the import worker): erased by run, with the runs.
 */
const BY_RUN: readonly string[] = [IMPORT_TYPEN];

/** Documents read and erased per round trip. */
const BATCH = 1000;
const WORKFLOW_ID = /^[A-Za-z0-9_-]+$/;

/**
 * Removes an organisation (issue 62, docs/tenants.md): first what shuts it out (its clients and administrators), then
 * its transfers' and imports' workflows in Temporal, then every document of every collection that is its own (by
 * `_tenant`, listed from the database at the time, not from a list kept here) with its documents' content, then what
 * the platform's collections keep of it (PLATFORM_HOLDINGS), and last the tenant record. An interrupted removal is
 * taken up by running it again: the tenant stays until the end.
 */
export class TenantRemoval {
  private readonly raw: Db;

  constructor(private readonly deps: RemovalDeps) {
    this.raw = platformDb(deps.db);
  }

  /** The tenant to remove: 404 for an RSIN that names none, 409 for the default tenant (the provider's own). */
  async tenant(rsin: unknown): Promise<Tenant> {
    const found = isRsin(rsin) ? await this.deps.tenants.get(rsin) : null;
    if (!found) throw ZgwError.notFound(`Organisatie ${String(rsin)} bestaat niet.`);
    if (found._id === this.deps.tenants.defaultTenant)
      throw new ZgwError(
        409,
        'default-tenant',
        `Organisatie ${found._id} is de standaardorganisatie van het platform (ZGW_DEFAULT_TENANT): die wordt niet verwijderd.`,
      );
    return found;
  }

  /** The uuids of its catalogussen (what it takes along as catalogus ZIPs), by the tenant's index. */
  async catalogussen(rsin: string): Promise<string[]> {
    const docs = await this.raw
      .collection<{ _id: string }>('catalogussen')
      .find({ [TENANT_FIELD]: rsin, _tombstone: { $exists: false } }, { projection: { _id: 1 } })
      .toArray();
    return docs.map((d) => d._id).sort();
  }

  /**
   * How many documents of each tenant collection are the tenant's (what a removal erases there): nothing is erased
   * (a collection without an index led by the tenant gets one, as in a removal).
   */
  async plan(rsin: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const name of await this.collectionNames()) {
      if (isTenantCollection(name) && !BY_RUN.includes(name)) {
        await this.tenantIndexed(name);
        out[name] = await this.raw.collection(name).countDocuments({ [TENANT_FIELD]: rsin });
      }
    }
    return out;
  }

  /** Erases the organisation (see the class); the report counts what went. */
  async remove(rsin: string): Promise<RemovalReport> {
    const tenant = await this.tenant(rsin);
    const log = this.deps.log.child({ tenant: rsin });
    log.warn('removing an organisation: its clients, workflows, objects and content are erased');
    const verwijderd: Record<string, number> = {};
    const add = (name: string, n: number) => (verwijderd[name] = (verwijderd[name] ?? 0) + n);

    // 1. shut it out: its clients and administrators, at once in every instance
    add('credentials', (await this.raw.collection('credentials').deleteMany({ tenant: rsin })).deletedCount);
    const users = await this.raw
      .collection<{ _id: string }>(ADMIN_USERS_COLLECTION)
      .find({ tenant: rsin }, { projection: { _id: 1 } })
      .toArray();
    const names = users.map((u) => u._id);
    add(ADMIN_USERS_COLLECTION, (await this.raw.collection(ADMIN_USERS_COLLECTION).deleteMany({ tenant: rsin })).deletedCount);
    const scanned = await this.scanByTenant(rsin, names);
    for (const [name, n] of Object.entries(scanned)) add(name, n);
    await this.deps.clearCaches([CREDENTIALS_CACHE, AUTORISATIES_CACHE]);

    // 2. its workflows (nothing is written for it any more), before the documents that name them
    const runs = (
      await this.raw
        .collection<{ _id: string }>(IMPORTEN_COLLECTION)
        .find({ tenant: rsin }, { projection: { _id: 1 } })
        .toArray()
    ).map((r) => r._id);
    const workflows = await this.removeWorkflows(rsin, runs);

    // 3. the abonnementen's own state at the notifier (keyed by abonnement), before the abonnementen go
    const abonnementen = (
      await this.raw
        .collection<{ _id: string }>(NRC_ABONNEMENTEN)
        .find({ [TENANT_FIELD]: rsin }, { projection: { _id: 1 } })
        .toArray()
    ).map((a) => a._id);
    for (let i = 0; i < abonnementen.length; i += BATCH) {
      const ids = abonnementen.slice(i, i + BATCH);
      add(NRC_STATUS, (await this.raw.collection<{ _id: string }>(NRC_STATUS).deleteMany({ _id: { $in: ids } })).deletedCount);
      add(NRC_RESENDS, (await this.raw.collection(NRC_RESENDS).deleteMany({ abonnement: { $in: ids } })).deletedCount);
      add(NRC_DELIVERIES, (await this.raw.collection(NRC_DELIVERIES).deleteMany({ abonnement: { $in: ids } })).deletedCount);
    }
    add(NRC_NOTIFICATIES, (await this.raw.collection(NRC_NOTIFICATIES).deleteMany({ [TENANT_FIELD]: rsin })).deletedCount);

    // 4. every collection that holds tenants' documents, as the database lists them now; content files first
    const stores = this.contentStores();
    // (a version shares its file with the document, and with the versions before it when its content did not change)
    const removed = new Set<string>();
    try {
      for (const name of await this.collectionNames()) {
        if (!isTenantCollection(name) || BY_RUN.includes(name)) continue;
        const erased = await this.eraseTenantDocuments(name, rsin, async (files) => {
          const fresh = files.filter((f) => !removed.has(f));
          if (stores.some((s) => s.kind === 'gridfs')) {
            add('inhoud.files', await this.raw.collection<{ _id: string }>('inhoud.files').countDocuments({ _id: { $in: fresh } }));
            add('inhoud.chunks', await this.raw.collection('inhoud.chunks').countDocuments({ files_id: { $in: fresh } }));
          }
          for (const store of stores) await store.delete(fresh);
          for (const f of fresh) removed.add(f);
        });
        add(name, erased);
      }
    } finally {
      for (const store of stores) if (store instanceof S3Inhoud) store.client.destroy();
    }
    // what its imports kept beside their runs (by run), then the runs
    if (runs.length) {
      for (const name of [IMPORT_PAGINAS, IMPORT_PROEF, IMPORT_TYPEN, IMPORT_OBJECTEN])
        add(name, (await this.raw.collection(name).deleteMany({ run: { $in: runs } })).deletedCount);
    }
    add(IMPORTEN_COLLECTION, (await this.raw.collection(IMPORTEN_COLLECTION).deleteMany({ tenant: rsin })).deletedCount);
    const settings = this.raw.collection<{ _id: string }>('settings');
    add('settings', (await settings.deleteMany({ _id: { $in: [tenantExclusionsId(rsin)] } })).deletedCount);

    // 5. last the tenant itself: from now on it is unknown everywhere
    add(TENANTS_COLLECTION, (await this.raw.collection<Tenant>(TENANTS_COLLECTION).deleteOne({ _id: rsin })).deletedCount);
    await this.deps.clearCaches([TENANTS_CACHE, CREDENTIALS_CACHE, AUTORISATIES_CACHE]);

    for (const name of await this.collectionNames()) verwijderd[name] ??= 0;
    const sorted = Object.fromEntries(Object.entries(verwijderd).sort(([a], [b]) => (a < b ? -1 : 1)));
    const report = { rsin, naam: tenant.naam, verwijderd: sorted, inhoud: { bestanden: removed.size, stores: stores.map((s) => s.kind) }, workflows };
    log.warn({ ...report, verwijderd: Object.values(sorted).reduce((n, x) => n + x, 0) }, 'organisation removed');
    return report;
  }

  private async collectionNames(): Promise<string[]> {
    return (await this.raw.listCollections({}, { nameOnly: true }).toArray())
      .map((c) => c.name)
      .filter((n) => !n.startsWith('system.'))
      .sort();
  }

  /**
   * Erases the tenant's documents of one collection, a batch at a time (each found by the tenant's index, erased by
   * `_id`), with the outbox pointers of those with unpublished events (which are not published now) and, first, the
   * content files those that hold content point to.
   */
  private async eraseTenantDocuments(name: string, rsin: string, removeFiles: (ids: string[]) => Promise<void>): Promise<number> {
    const coll = await this.tenantIndexed(name);
    const holdsContent = (INHOUD_HOLDERS as readonly string[]).includes(name);
    let erased = 0;
    for (;;) {
      const batch = await coll
        .find({ [TENANT_FIELD]: rsin }, { projection: { _id: 1, _pending: 1, ...(holdsContent ? { _inhoud: 1 } : {}) } })
        .limit(BATCH)
        .toArray();
      if (!batch.length) return erased;
      if (holdsContent) {
        const files = batch.flatMap((d) => (Array.isArray(d._inhoud) ? d._inhoud : d._inhoud ? [d._inhoud] : [])).map(String);
        if (files.length) await removeFiles([...new Set(files)]);
      }
      const pending = batch.filter((d) => d._pending).map((d) => `${name}/${String(d._id)}`);
      if (pending.length) await this.raw.collection<{ _id: string }>(OUTBOX_POINTERS).deleteMany({ _id: { $in: pending } });
      const { deletedCount } = await coll.deleteMany({ [TENANT_FIELD]: rsin, _id: { $in: batch.map((d) => d._id) } });
      // (found but not erased: something holds them; never loop on it)
      if (!deletedCount) throw new Error(`${name}: ${batch.length} documents of tenant ${rsin} found but not erased`);
      erased += deletedCount;
    }
  }

  /**
   * The collection, with an index led by the tenant: one that has none (a counter of identificaties keyed by tenant in
   * its `_id`, an upload waiting an hour) gets `{_tenant: 1}`, so this removal, and each after it, reads it by index.
   */
  private async tenantIndexed(name: string): Promise<Collection<Document>> {
    const coll = this.raw.collection(name);
    const indexes = await coll.indexes();
    if (!indexes.some((ix) => Object.keys(ix.key)[0] === TENANT_FIELD)) await coll.createIndex({ [TENANT_FIELD]: 1 });
    return coll;
  }

  /**
   * What platform collections without an index on the tenant keep of it, found by a scan (the query check allows
   * these, PLATFORM_SCANS): the sessions acting in it or of its administrators, their pending second-factor logins,
   * and the notifier's deliveries to its abonnementen (also those of abonnementen deleted before, which the notifier
   * keeps until its retention). Each is a rare operator's action on collections that retention keeps small.
   */
  private async scanByTenant(rsin: string, users: string[]): Promise<Record<string, number>> {
    const sessions = await this.raw.collection(ADMIN_SESSIONS_COLLECTION).deleteMany({ $or: [{ tenant: rsin }, { user: { $in: users } }] });
    const logins = users.length ? await this.raw.collection(ADMIN_LOGINS_COLLECTION).deleteMany({ user: { $in: users } }) : { deletedCount: 0 };
    const deliveries = await this.raw.collection(NRC_DELIVERIES).deleteMany({ [TENANT_FIELD]: rsin });
    return {
      [ADMIN_SESSIONS_COLLECTION]: sessions.deletedCount,
      [ADMIN_LOGINS_COLLECTION]: logins.deletedCount,
      [NRC_DELIVERIES]: deliveries.deletedCount,
    };
  }

  /**
   * The content stores its files may be in: the configured one and, when that is S3, GridFS too (files an unfinished
   * `inhoud-migreren` left there). A file already gone is no error in either.
   */
  private contentStores(): InhoudStore[] {
    const { config, db, log } = this.deps;
    const configured = inhoudStoreOf(config.INHOUD_STORE, config, platformDb(db), log);
    return configured.kind === 'gridfs' ? [configured] : [configured, new GridfsInhoud(platformDb(db), log)];
  }

  /**
   * Deletes every execution of its transfers (`overdracht-<uuid>`, named by its overdrachten), imports
   * (`import-<run>` and its children `import-<run>-<n>`) and destruction lists carried out (`vernietiging-<lijst>`)
   * from Temporal, runs continued as new included; a running one
   * is terminated by its deletion. Without any, Temporal is not contacted; unreachable, the removal stops here (503) and
   * nothing else is erased yet.
   */
  private async removeWorkflows(rsin: string, runs: string[]): Promise<RemovalReport['workflows']> {
    const overdrachten = await this.raw
      .collection<{ workflowId?: string }>('overdrachten')
      .find({ [TENANT_FIELD]: rsin }, { projection: { workflowId: 1 } })
      .toArray();
    const queries = [
      ...overdrachten
        .map((o) => o.workflowId)
        .filter((id): id is string => !!id && WORKFLOW_ID.test(id))
        .map((id) => ({ id, prefix: false })),
      ...runs.filter((r) => WORKFLOW_ID.test(r)).map((r) => ({ id: importWorkflowId(r), prefix: true })),
      // (a destruction list carried out: its workflow `vernietiging-<lijst>`, runs continued as new included)
      ...(
        await this.raw
          .collection<{ _id: string; uitvoering?: unknown }>(VERNIETIGINGSLIJSTEN_COLLECTION)
          .find({ [TENANT_FIELD]: rsin }, { projection: { _id: 1, uitvoering: 1 } })
          .toArray()
      )
        .filter((l) => l.uitvoering && WORKFLOW_ID.test(l._id))
        .map((l) => ({ id: vernietigingWorkflowId(l._id), prefix: false })),
    ];
    const result = { beeindigd: 0, verwijderd: 0 };
    if (!queries.length) return result;
    try {
      const client = await this.deps.temporal.connect();
      const namespace = this.deps.config.TEMPORAL_NAMESPACE;
      for (const q of queries) {
        for (const run of await this.executions(client, q.id, q.prefix)) {
          // (a running execution is terminated by its deletion, at once; a terminated one would wait for Temporal's
          // clean-up of closed executions before it goes)
          try {
            await client.workflowService.deleteWorkflowExecution({ namespace, workflowExecution: { workflowId: run.workflowId, runId: run.runId } });
            result.verwijderd++;
            if (run.running) result.beeindigd++;
          } catch (err) {
            if ((err as { code?: number }).code !== 5) throw err; // NOT_FOUND: gone already
          }
        }
      }
    } catch (err) {
      // its objects stay until its workflows are gone: a run again, once Temporal answers, goes on from here
      this.deps.log.error({ err, tenant: rsin }, 'removing an organisation: its workflows could not be removed from Temporal');
      throw new ZgwError(
        503,
        'temporal-unavailable',
        `Temporal gaf geen antwoord (${(err as Error).message}): van de organisatie is alleen haar toegang gewist; probeer het opnieuw.`,
      );
    }
    return result;
  }

  /** Every execution of a workflow id (or of ids starting with it): the current one described, the others as listed. */
  private async executions(client: Client, id: string, prefix: boolean): Promise<{ workflowId: string; runId: string; running: boolean }[]> {
    const found = new Map<string, { workflowId: string; runId: string; running: boolean }>();
    try {
      const d = await client.workflow.getHandle(id).describe();
      found.set(d.runId, { workflowId: id, runId: d.runId, running: d.status.name === 'RUNNING' });
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    const query = prefix ? `WorkflowId STARTS_WITH '${id}'` : `WorkflowId = '${id}'`;
    for await (const w of client.workflow.list({ query }))
      found.set(w.runId, { workflowId: w.workflowId, runId: w.runId, running: w.status.name === 'RUNNING' });
    return [...found.values()];
  }
}

/** The platform collections a removal does not know how a tenant's data is kept in (a test keeps this empty). */
export const unhandledPlatformCollections = (): string[] => [...PLATFORM_COLLECTIONS].filter((n) => !(n in PLATFORM_HOLDINGS));
