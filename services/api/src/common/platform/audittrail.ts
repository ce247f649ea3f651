import type { Db, Document } from 'mongodb';
import { z } from 'zod';
import { AUDIT_READS_COLLECTION, AUDITTRAIL_COLLECTION, ensureAuditIndexes, type Pii, type ReadEntry, type StoredReadEntry } from '@zgw/shared';
import type { Caller } from '../auth/auth';
import type { ComponentApi } from './component';
import { ZgwError } from '../http/errors';
import { nameUuid } from '../http/urls';
import { ReadBatcher } from '../storage/read-batch';
import type { Resource } from './resource';
import type { Stored } from '../storage/store';
import { openPii } from '../resources/pii-fields';

export const AuditTrail = z
  .object({
    uuid: z.uuid(),
    bron: z.enum(['ac', 'nrc', 'zrc', 'ztc', 'drc', 'brc', 'cmc', 'kc', 'vrc']),
    applicatieId: z.string(),
    applicatieWeergave: z.string(),
    gebruikersId: z.string(),
    gebruikersWeergave: z.string(),
    actie: z.string(),
    actieWeergave: z.string(),
    resultaat: z.number().int(),
    hoofdObject: z.url(),
    resource: z.string(),
    resourceUrl: z.url(),
    toelichting: z.string(),
    resourceWeergave: z.string(),
    aanmaakdatum: z.string(),
    wijzigingen: z.object({ oud: z.record(z.string(), z.unknown()).optional(), nieuw: z.record(z.string(), z.unknown()).optional() }),
  })
  .meta({ id: 'AuditTrail' });

type Entry = Document & { _id: string };
type AuditTrailView = z.infer<typeof AuditTrail>;

/**
 * A write entry as the standard shows it: `bron` in its lower-case code (`zrc`), of `wijzigingen` only the sides
 * that exist (a create has no `oud`, a destroy no `nieuw`), and their personal identifiers opened (the trail keeps
 * the objects as they are stored: sealed).
 */
const view = (pii: Pii, { _id, ...rest }: Entry): AuditTrailView => {
  const entry = Object.fromEntries(Object.entries(rest).filter(([k]) => !k.startsWith('_'))) as AuditTrailView;
  const { oud, nieuw } = openPii(pii, entry.wijzigingen ?? {});
  return {
    ...entry,
    uuid: _id,
    bron: String(entry.bron).toLowerCase() as AuditTrailView['bron'],
    wijzigingen: { ...(oud ? { oud } : {}), ...(nieuw ? { nieuw } : {}) },
  };
};

const READ_WEERGAVE: Record<ReadEntry['actie'], string> = {
  retrieve: 'Object opgehaald',
  download: 'Inhoud gedownload',
  list: 'Lijst van objecten opgehaald',
  zoek: 'Gevonden met _zoek',
};

/** The uuid of the trail line of an object a read showed beside the first (a list's second result, an expand). */
function shownUuid(read: string, url: string): string {
  return nameUuid(`${read} ${url}`);
}

/**
 * The lines one read puts in the trail of `hoofdObject` (whose `resourceWeergave` is `weergave`): one per object it
 * showed that belongs to that main object. A detail read or download is `retrieve`; what a list, a `_zoek` or an
 * expand showed is `list`. A read changes nothing: `wijzigingen` is empty.
 */
function readLines(read: StoredReadEntry, hoofdObject: string, weergave: string): AuditTrailView[] {
  const main = read.hoofdObjecten?.indexOf(hoofdObject) ?? -1;
  if (main < 0) return [];
  const lines: AuditTrailView[] = [];
  (read.getoond ?? []).forEach(([resource, resourceUrl, h], n) => {
    if (h !== main) return;
    const retrieved = n === 0 && (read.actie === 'retrieve' || read.actie === 'download');
    lines.push({
      uuid: n === 0 ? read._id : shownUuid(read._id, resourceUrl),
      bron: read.bron.toLowerCase() as AuditTrailView['bron'],
      applicatieId: read.clientId,
      applicatieWeergave: read.applicatieWeergave ?? read.clientId,
      gebruikersId: read.gebruikersId,
      gebruikersWeergave: read.gebruikersWeergave,
      actie: retrieved ? 'retrieve' : 'list',
      actieWeergave: retrieved
        ? READ_WEERGAVE[read.actie]
        : n === 0 || read.actie !== 'retrieve'
          ? READ_WEERGAVE[read.actie]
          : 'Getoond bij een opgehaald object (expand)',
      resultaat: read.resultaat,
      hoofdObject,
      resource,
      resourceUrl,
      toelichting: '',
      resourceWeergave: resourceUrl === hoofdObject ? weergave : resourceUrl,
      aanmaakdatum: read.aanmaakdatum,
      wijzigingen: {},
    });
  });
  return lines;
}

/** The order of two strings (entries' aanmaakdatum, ISO, and their uuids). */
function cmp(x: unknown, y: unknown): number {
  const [a, b] = [String(x), String(y)];
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two trails in time order merged into one (each is oldest first; at the same moment, writes first). */
function merged(writes: AuditTrailView[], reads: AuditTrailView[]): AuditTrailView[] {
  const out: AuditTrailView[] = [];
  let i = 0;
  let j = 0;
  while (i < writes.length || j < reads.length) {
    if (j >= reads.length || (i < writes.length && writes[i]!.aanmaakdatum <= reads[j]!.aanmaakdatum)) out.push(writes[i++]!);
    else out.push(reads[j++]!);
  }
  return out;
}

/** The trail of one main object, oldest first: the index its list and detail use. */
export async function ensureAudittrailIndex(db: Db): Promise<void> {
  await ensureAuditIndexes(db, AUDITTRAIL_COLLECTION);
}

/**
 * `/<collection>/{<param>}/audittrail` and its detail: the audit trail of one main object (a zaak, a document, a
 * besluit), oldest first: its writes (collection `audittrail`, written at once by the API and by the audit service)
 * and its reads (collection `auditreads`, stored by the audit service from the API's spool within seconds), each
 * read a line per object of this main object it showed. A main object that is gone has no trail to show (404).
 */
export function registerAudittrail<D extends Document>(
  api: ComponentApi,
  owner: Resource<D>,
  param: string,
  mayRead?: (doc: Stored<D>, caller: Caller) => boolean,
): void {
  const coll = api.deps.db.collection<Entry>(AUDITTRAIL_COLLECTION);
  // (one main object's writes, read together with those of concurrent requests: an import reads a trail per object)
  const trails = new ReadBatcher(api.deps.db.collection(AUDITTRAIL_COLLECTION), {});
  const reads = api.deps.db.collection<StoredReadEntry>(AUDIT_READS_COLLECTION);
  const Params = z.object({ [param]: z.string() });
  const DetailParams = Params.extend({ uuid: z.string() });
  const base = `/${owner.def.collection}/:${param}/audittrail`;
  // A main object that does not exist for the caller (Resource.callerFilter) has no trail for it either; `mayRead`
  // is whether the caller holds audittrails.lezen for this object (its type), 403 otherwise.
  const ownerOf = async (params: Record<string, string>, caller: Caller) => {
    const doc = await owner.getOr404(params[param]!, undefined, owner.callerCondition(caller));
    if (mayRead && !mayRead(doc, caller)) throw ZgwError.forbidden('Deze actie vereist de scope audittrails.lezen voor het type van dit object.');
    const url = owner.url(doc._id);
    return { url, weergave: owner.def.weergave?.(doc) ?? url };
  };
  api.route({
    method: 'GET',
    path: base,
    operationId: 'audittrail_list',
    summary: `Alle audit trail regels van een ${owner.def.resource}.`,
    scopes: ['audittrails.lezen'],
    params: Params,
    response: z.array(AuditTrail),
    handler: async ({ params, caller }) => {
      const { url: hoofdObject, weergave } = await ownerOf(params as Record<string, string>, caller);
      const [writes, read] = await Promise.all([
        trails.by('hoofdObject', hoofdObject),
        reads.find({ hoofdObjecten: hoofdObject }).sort({ aanmaakdatum: 1, _id: 1 }).toArray(),
      ]);
      // oldest first, as the index holds them (aanmaakdatum is an ISO string)
      const ordered = writes.sort((a, b) => cmp(a.aanmaakdatum, b.aanmaakdatum) || cmp(a._id, b._id));
      return merged(
        ordered.map((w) => view(api.deps.pii, w)),
        read.flatMap((r) => readLines(r, hoofdObject, weergave)),
      );
    },
  });
  api.route({
    method: 'GET',
    path: `${base}/:uuid`,
    operationId: 'audittrail_retrieve',
    summary: 'Een audit trail regel.',
    scopes: ['audittrails.lezen'],
    params: DetailParams,
    response: AuditTrail,
    handler: async ({ params, caller }) => {
      const { url: hoofdObject, weergave } = await ownerOf(params as Record<string, string>, caller);
      const uuid = (params as Record<string, string>).uuid!;
      const entry = await coll.findOne({ _id: uuid, hoofdObject });
      if (entry) return view(api.deps.pii, entry);
      // A read's first line carries the read's uuid; the others are found among this object's reads.
      const first = await reads.findOne({ _id: uuid, hoofdObjecten: hoofdObject });
      const line = first
        ? readLines(first, hoofdObject, weergave).find((l) => l.uuid === uuid)
        : await lineAmongReads(reads.find({ hoofdObjecten: hoofdObject }).sort({ aanmaakdatum: 1, _id: 1 }), uuid, hoofdObject, weergave);
      if (!line) throw ZgwError.notFound('Deze audit trail regel bestaat niet.');
      return line;
    },
  });
}

async function lineAmongReads(
  cursor: AsyncIterable<StoredReadEntry>,
  uuid: string,
  hoofdObject: string,
  weergave: string,
): Promise<AuditTrailView | undefined> {
  for await (const read of cursor) {
    const line = readLines(read, hoofdObject, weergave).find((l) => l.uuid === uuid);
    if (line) return line;
  }
  return undefined;
}
