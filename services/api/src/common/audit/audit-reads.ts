import { randomUUID } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Kafka, Producer } from 'kafkajs';
import type { Db } from 'mongodb';
import {
  AUDIT_EXCLUSIONS_SETTING,
  AUDIT_READS_TOPIC,
  ceSource,
  tenantExclusionsId,
  clientIdMatcher,
  compactShown,
  createProducer,
  ensureTopics,
  eventHeaders,
  exclusionList,
  inSendParts,
  messageBytes,
  PERSONAL_ID_NAME,
  READ_ENTRY_BYTES,
  readEntryParts,
  scrub,
  scrubUrl,
  topicName,
  type AuditEntry,
  type Config,
  type Getoond,
  type Logger,
  ReadEntry,
} from '@zgw/shared';
import type { Caller } from '../auth/auth';
import { Spool, SpoolPublisher, type SpooledMessage } from './audit-spool';

export const SETTINGS_COLLECTION = 'settings';

/**
 * The exclusions an administrator stored (collection `settings`): the platform's (`_id` AUDIT_EXCLUSIONS_SETTING), in
 * place of AUDIT_EXCLUDE_CLIENT_IDS for the reads in every tenant, set by platform administrators; or an
 * organisation's (`_id` tenantExclusionsId(rsin), naming its `tenant`), for the reads made in that tenant only.
 */
export interface ExclusionsSetting {
  _id: string;
  clientIds: string[];
  updatedAt: string;
  updatedBy: string;
  tenant?: string;
}

/** Every stored exclusion list, the platform's and the tenants' (a prefix of `_id`: a range of its index). */
const ALL_EXCLUSIONS = { $regex: `^${AUDIT_EXCLUSIONS_SETTING.replace(/\./g, '\\.')}` };

/** A list of exclusions with its matcher. */
interface Exclusions {
  clientIds: string[];
  matches: (clientId: string) => boolean;
}

const compiled = (clientIds: readonly string[]): Exclusions => ({ clientIds: [...clientIds], matches: clientIdMatcher(clientIds) });

/** The field of a part that names its main object, per component (a status names its zaak). */
const MAIN_FIELD: Partial<Record<AuditEntry['bron'], string>> = { ZRC: 'zaak', DRC: 'informatieobject', BRC: 'besluit' };

/** The fields of an answered object that describeRead reads: its `url` and the main-object field of each component. */
export const READ_FIELDS: readonly string[] = ['url', ...Object.values(MAIN_FIELD)];

/** How a route's reads are recorded, from its operationId (`zaak_retrieve`, `zaak_list`, `zaak__zoek`, ...). */
export function readActie(operationId: string): ReadEntry['actie'] | undefined {
  if (operationId.startsWith('audittrail_')) return undefined;
  if (operationId.endsWith('__zoek')) return 'zoek';
  if (operationId.endsWith('_list')) return 'list';
  if (operationId.endsWith('_retrieve')) return 'retrieve';
  if (operationId.endsWith('_download')) return 'download';
  return undefined;
}

/** A copy of a search body with every BSN masked: fields named for a personal identifier whatever their value, and nine-digit runs anywhere. */
export function maskBsns(value: unknown, key = ''): unknown {
  if (PERSONAL_ID_NAME.test(key) && value !== null && value !== undefined && value !== '') return '*********';
  if (typeof value === 'string') return scrub(value);
  if (typeof value === 'number') return /^\d{9}$/.test(String(value)) ? '*********' : value;
  if (Array.isArray(value)) return value.map((v) => maskBsns(v, key));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskBsns(v, k)]));
  return value;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

export interface ReadFacts {
  bron: AuditEntry['bron'];
  actie: ReadEntry['actie'];
  operationId: string;
  req: FastifyRequest;
  caller: Caller;
  /** What the handler returned (undefined for a download, which the handler sent itself). */
  result: unknown;
  body?: unknown;
  status: number;
  base: string;
}

/** What a URL of this host is, as far as the audit trail is concerned: an object of an audited component. */
export type ObjectKind = (url: string) => { bron: AuditEntry['bron']; resource: string } | undefined;

/** The read entry of a successful read, without its uuid and time. */
export function describeRead(f: ReadFacts, kind: ObjectKind = () => undefined): Omit<ReadEntry, 'uuid' | 'aanmaakdatum'> {
  const field = MAIN_FIELD[f.bron];
  const entry: Omit<ReadEntry, 'uuid' | 'aanmaakdatum'> = {
    bron: f.bron,
    clientId: f.caller.clientId,
    applicatieWeergave: f.caller.rights.label ?? f.caller.clientId,
    gebruikersId: f.caller.userId,
    gebruikersWeergave: f.caller.userRepresentation,
    actie: f.actie,
    resource: f.operationId.replace(/_+(list|read|retrieve|zoek|download)$/, ''),
    request: scrubUrl(f.req.url),
    resultaat: f.status,
  };
  const shown = new Shown(entry.resource);
  const result = (f.result ?? undefined) as Record<string, unknown> | unknown[] | undefined;
  let items: unknown[];
  if (f.actie === 'retrieve' || f.actie === 'download') {
    const path = f.req.url.split('?')[0]!;
    const url = (!Array.isArray(result) && str(result?.url)) || `${f.base}${f.actie === 'download' ? path.replace(/\/[^/]+\/?$/, '') : path}`;
    entry.resourceUrl = url;
    entry.hoofdObject = (field && !Array.isArray(result) && str(result?.[field])) || url;
    shown.add(entry.resource, url, entry.hoofdObject);
    items = result && !Array.isArray(result) ? [result] : [];
  } else {
    items = Array.isArray(result) ? result : Array.isArray(result?.results) ? (result.results as unknown[]) : [];
    entry.aantal = !Array.isArray(result) && typeof result?.count === 'number' ? result.count : items.length;
    // The main object when every result belongs to the same one (the parts of one zaak).
    const mainOf = (i: unknown) => (field && i && typeof i === 'object' ? str((i as Record<string, unknown>)[field]) : undefined);
    const only = items.length ? mainOf(items[0]) : undefined;
    if (only && items.every((i) => mainOf(i) === only)) entry.hoofdObject = only;
    if (f.actie === 'zoek' && f.body && typeof f.body === 'object') entry.zoek = maskBsns(f.body) as Record<string, unknown>;
    for (const item of items) {
      const url = item && typeof item === 'object' ? str((item as Record<string, unknown>).url) : undefined;
      if (url) shown.add(entry.resource, url, (field && str((item as Record<string, unknown>)[field])) || url);
    }
  }
  for (const item of items) shown.expanded(item, kind);
  if (shown.hoofdObjecten.length) {
    entry.hoofdObjecten = shown.hoofdObjecten;
    entry.getoond = shown.getoond;
  }
  return entry;
}

/** The objects a read showed, each with its main object (whose trail shows the read), each object once. */
class Shown {
  readonly hoofdObjecten: string[] = [];
  readonly getoond: (Getoond | number)[] = [];
  /** Each main object's index in hoofdObjecten times two, plus one once it was shown itself. */
  private readonly mains = new Map<string, number>();
  /** The objects shown that are not their own main object. */
  private readonly parts = new Set<string>();

  /** `resource`: the entry's (an object of it that is its own main object is named by that object's index alone). */
  constructor(private readonly resource: string) {}

  add(resource: string, url: string, hoofdObject: string): void {
    const itself = url === hoofdObject;
    const known = this.mains.get(hoofdObject);
    if (itself ? known !== undefined && known % 2 === 1 : this.parts.has(url)) return;
    const m = known ?? (this.hoofdObjecten.push(hoofdObject) - 1) * 2;
    if (itself) this.mains.set(hoofdObject, m + 1);
    else {
      this.parts.add(url);
      if (known === undefined) this.mains.set(hoofdObject, m);
    }
    this.getoond.push(compactShown(this.resource, resource, url, m >> 1, hoofdObject));
  }

  /** The objects an expand added (`_expand`, at any depth) that belong to an audited component. */
  expanded(item: unknown, kind: ObjectKind): void {
    const expand = item && typeof item === 'object' ? (item as Record<string, unknown>)._expand : undefined;
    if (!expand || typeof expand !== 'object') return;
    for (const value of Object.values(expand)) {
      for (const obj of Array.isArray(value) ? value : [value]) {
        if (!obj || typeof obj !== 'object') continue;
        const o = obj as Record<string, unknown>;
        const url = str(o.url);
        const k = url ? kind(url) : undefined;
        if (url && k) {
          const field = MAIN_FIELD[k.bron];
          this.add(k.resource, url, (field && str(o[field])) || url);
        }
        this.expanded(o, kind);
      }
    }
  }
}

/**
 * The audit trail of reads: every successful read of an audited component becomes a ReadEntry appended to this
 * instance's local spool (a synchronous file write: no database round trip, nothing lost when the process is
 * killed), which a background publisher sends to Kafka topic `audit-reads` (event id = entry uuid) for
 * services/audit to store. Reads by client ids on an exclusion list leave no entry: the platform's, for the reads in
 * every tenant (AUDIT_EXCLUDE_CLIENT_IDS until a platform administrator stores one, settings `audit.excludeClientIds`),
 * and a tenant's own, for the reads made in that tenant only (an organisation's administrator excludes its own
 * clients' reads, never another organisation's). Every instance reads the settings every AUDIT_SETTINGS_POLL_MS.
 */
export class ReadAudit {
  readonly enabled: boolean;
  private readonly envList: string[];
  private list: string[];
  private fromSetting = false;
  private matches: (clientId: string) => boolean;
  /** The tenants' own lists, by tenant (only tenants that stored one). */
  private tenantLists = new Map<string, Exclusions>();
  private spool?: Spool;
  private publisher?: SpoolPublisher;
  private producer?: Producer;
  private stopped = false;
  private poll?: NodeJS.Timeout;
  private started = false;
  /** `<component>/<collection>` of every audited resource: which resource an object URL of this host is. */
  private readonly kinds = new Map<string, { bron: AuditEntry['bron']; resource: string }>();

  constructor(
    private readonly config: Config,
    private readonly db: Db,
    private readonly log: Logger,
    private readonly kafka: Kafka,
  ) {
    this.enabled = config.AUDIT_READS === 'on';
    this.envList = exclusionList(config.AUDIT_EXCLUDE_CLIENT_IDS);
    this.list = this.envList;
    this.matches = clientIdMatcher(this.list);
  }

  /** The platform's exclusions in force here, and whether an administrator set them (else they are the environment's). */
  get exclusions(): { clientIds: string[]; fromSetting: boolean } {
    return { clientIds: [...this.list], fromSetting: this.fromSetting };
  }

  /** A tenant's own exclusions in force here (beside the platform's): empty when it stored none. */
  tenantExclusions(tenant: string): string[] {
    return [...(this.tenantLists.get(tenant)?.clientIds ?? [])];
  }

  /** The list from the environment variable (in force while no administrator has stored one). */
  get environmentExclusions(): string[] {
    return [...this.envList];
  }

  /** Makes the objects of an audited resource known, so an expand that shows one puts the read in its trail. */
  know(component: string, collection: string, bron: AuditEntry['bron'], resource: string): void {
    this.kinds.set(`${component}/${collection.split('/').pop()}`, { bron, resource });
  }

  /** The audited resource a URL of this host points at (`<base>/<component>/api/v1/.../<collection>/<uuid>`). */
  readonly kind: ObjectKind = (url) => {
    const base = `${this.config.PUBLIC_BASE_URL}/`;
    if (!url.startsWith(base)) return undefined;
    const parts = url.slice(base.length).split('/');
    return parts.length >= 5 ? this.kinds.get(`${parts[0]}/${parts[parts.length - 2]}`) : undefined;
  };

  /** Whether a read by `clientId` made in `tenant` leaves no entry (without a tenant: the platform's list alone). */
  excluded(clientId: string, tenant?: string): boolean {
    return this.matches(clientId) || (tenant !== undefined && !!this.tenantLists.get(tenant)?.matches(clientId));
  }

  /**
   * Puts a list in force at once: the platform's (undefined: back to the environment's), or with `tenant` that
   * tenant's own (undefined: none).
   */
  applyExclusions(clientIds: string[] | undefined, tenant?: string): void {
    if (tenant !== undefined) {
      const before = this.tenantLists.get(tenant);
      if ((before?.clientIds ?? []).join('\n') === (clientIds ?? []).join('\n')) return;
      const lists = new Map(this.tenantLists);
      if (clientIds?.length) lists.set(tenant, compiled(clientIds));
      else lists.delete(tenant);
      this.tenantLists = lists;
      this.log.info({ tenant, exclusions: clientIds?.length ?? 0 }, "a tenant's audit read exclusions in force");
      return;
    }
    const next = clientIds ?? this.envList;
    this.fromSetting = clientIds !== undefined;
    if (next.join('\n') === this.list.join('\n')) return;
    this.list = [...next];
    this.matches = clientIdMatcher(this.list);
    this.log.info({ exclusions: this.list.length, fromSetting: this.fromSetting }, 'audit read exclusions in force');
  }

  /** Re-reads the administrators' lists: the platform's and every tenant's. */
  async refresh(): Promise<void> {
    const docs = await this.db.collection<ExclusionsSetting>(SETTINGS_COLLECTION).find({ _id: ALL_EXCLUSIONS }).toArray();
    this.applyExclusions(docs.find((d) => d._id === AUDIT_EXCLUSIONS_SETTING)?.clientIds);
    const stored = new Map<string, string[]>();
    for (const d of docs) if (d.tenant !== undefined && d._id === tenantExclusionsId(d.tenant)) stored.set(d.tenant, d.clientIds);
    for (const tenant of new Set([...this.tenantLists.keys(), ...stored.keys()])) this.applyExclusions(stored.get(tenant), tenant);
  }

  /** Records a read (unless reads are off or the client is excluded). Synchronous: the entry is on disk on return. */
  record(facts: ReadFacts): ReadEntry | undefined {
    if (!this.enabled || this.excluded(facts.caller.clientId, facts.caller.tenant)) return undefined;
    // aanmaakdatum before the nested `zoek`: the CloudEvents headers read the top-level fields from the line (entryOf)
    const tenant = facts.caller.tenant;
    const entry: ReadEntry = {
      uuid: randomUUID(),
      aanmaakdatum: new Date().toISOString(),
      ...(tenant ? { tenant } : {}),
      ...describeRead(facts, this.kind),
    };
    this.spool ??= this.createSpool();
    this.spool.append(JSON.stringify(entry));
    this.publisher?.kick();
    return entry;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.refresh().catch((err: Error) => this.log.warn({ err }, "cannot read the audit read exclusions; the environment's list holds"));
    this.poll = setInterval(
      () => void this.refresh().catch((err: Error) => this.log.debug({ err }, 'cannot re-read the audit read exclusions')),
      this.config.AUDIT_SETTINGS_POLL_MS,
    );
    this.poll.unref();
    if (!this.enabled) return;
    this.spool ??= this.createSpool();
    this.publisher = new SpoolPublisher(this.spool, (batch) => this.send(batch), this.log, { retryMs: this.config.OUTBOX_POLL_MS });
    this.publisher.start();
  }

  async stop(): Promise<void> {
    if (this.poll) clearInterval(this.poll);
    await this.publisher?.stop();
    this.stopped = true;
    await this.producer?.disconnect().catch(() => undefined);
    this.producer = undefined;
  }

  get healthy(): boolean {
    return this.publisher?.healthy ?? true;
  }

  /** This instance's spool directory (for tests and diagnostics). */
  get spoolDir(): string | undefined {
    return this.spool?.isOpen ? this.spool.dir : undefined;
  }

  private createSpool(): Spool {
    const spool = new Spool(this.config.AUDIT_SPOOL_DIR);
    spool.open();
    return spool;
  }

  /** The CloudEvents `source` of the read entries. */
  private get source(): string {
    return ceSource(this.config);
  }

  private async send(batch: SpooledMessage[]): Promise<void> {
    try {
      this.producer ??= await this.connect();
      if (this.stopped) throw new Error('the audit reads publisher has stopped'); // (connected after stop: let go below)
      const messages = batch
        .flatMap((m) => this.inParts(m))
        .map((m) => {
          const described = entryOf(m.value);
          return { value: m.value, headers: eventHeaders(this.source, AUDIT_READS_TOPIC, m.id, described, undefined, described.tenant) };
        });
      // (a spool chunk of small entries, each with its CloudEvents headers, can weigh more than the broker takes at once)
      for (const part of inSendParts(messages, messageBytes))
        await this.producer.send({ topic: topicName(this.config.KAFKA_TOPIC_PREFIX, AUDIT_READS_TOPIC), acks: -1, messages: part });
    } catch (err) {
      const producer = this.producer;
      this.producer = undefined;
      await producer?.disconnect().catch(() => undefined);
      throw err;
    }
  }

  /**
   * A spooled entry as it goes to Kafka: as it is, or in parts when it weighs more than Kafka takes in one message (a
   * list without pages showing thousands of objects; readEntryParts). A large line that is no entry is left out, as
   * the spool leaves out an unreadable line: sent, it would be refused again and again.
   */
  private inParts(m: SpooledMessage): SpooledMessage[] {
    if (m.value.length <= READ_ENTRY_BYTES) return [m];
    const line = parseJson(m.value);
    if (!ReadEntry.safeParse(line).success) {
      this.log.warn({ id: m.id, bytes: m.value.length }, 'skipping an unreadable large line in the audit spool');
      return [];
    }
    // (the line's own object, not the parsed copy: its fields keep their order, aanmaakdatum before a nested zoek)
    return readEntryParts(line as ReadEntry).map((part) => ({ id: part.uuid, value: Buffer.from(JSON.stringify(part)) }));
  }

  private async connect(): Promise<Producer> {
    await ensureTopics(this.kafka, this.config.KAFKA_TOPIC_PREFIX, [AUDIT_READS_TOPIC]);
    return createProducer(this.kafka);
  }
}

/** The JSON in a line, or undefined when it is none. */
function parseJson(line: Buffer): unknown {
  try {
    return JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
}

const DESCRIBED = ['resource', 'actie', 'aanmaakdatum', 'resourceUrl', 'tenant'].map(
  (f) => [f, new RegExp(`"${f}":"((?:[^"\\\\]|\\\\.)*)"`)] as const,
);

const SHOWN = Buffer.from(',"hoofdObjecten":');
const ZOEK = Buffer.from(',"zoek":');

/**
 * What a spooled line's CloudEvents headers need of its entry: read from the line's text before `zoek` (the only
 * nested object that could repeat a name, written before the objects shown) and the objects shown, not parsed
 * whole: this runs for every read.
 */
function entryOf(line: Buffer): Record<string, string> {
  const shown = line.indexOf(SHOWN);
  const head = shown < 0 ? line : line.subarray(0, shown);
  const zoek = head.indexOf(ZOEK);
  const text = head.toString('utf8', 0, zoek < 0 ? head.length : zoek);
  const out: Record<string, string> = {};
  for (const [field, re] of DESCRIBED) {
    const m = re.exec(text);
    if (m) out[field] = JSON.parse(`"${m[1]}"`) as string;
  }
  return out;
}
