import { fieldOf } from '../../common/resources/expand';
import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Document, Filter } from 'mongodb';
import { z } from 'zod';
import type { Caller } from '../../common/auth/auth';
import { UuidParams } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { PAGE_SIZE, PageQuery, envelope, pageOf, parsePage } from '../../common/http/pagination';
import { Resource, type WriteContext } from '../../common/platform/resource';
import { LIVE, copyPublic, publicFields, type Stored } from '../../common/storage/store';
import { answerPage } from '../../common/resources/render-cache';
import { parseLiberal } from '../../common/http/validation';
import { vertrouwelijkheidRank } from '../../common/auth/vertrouwelijkheid';
import {
  AANMAKEN,
  ANY_DOCUMENT_SCOPE,
  EIO_AUTH_FIELDS,
  GEFORCEERD_UNLOCK,
  LEZEN,
  LOCK,
  READ,
  READY,
  UPDATE,
  VERWIJDEREN,
  and,
  authBuckets,
  authFilter,
  countableByBuckets,
  mayOnDocument,
  mustMayOnDocument,
  nonField,
  onlyReady,
  readyFilter,
  readyMark,
  withDefaults,
  type Documenten,
} from './context';
import { expandDocuments, parseExpand } from './expand';
import { chooseFields, parseFields } from '../../common/resources/fields';
import { takeUpload, type Bestand } from './inhoud';
import {
  DEFAULTS_17,
  DownloadQuery,
  EnkelvoudigInformatieObject,
  EnkelvoudigInformatieObject17,
  EnkelvoudigInformatieObjectInput,
  EnkelvoudigInformatieObjectInput17,
  EnkelvoudigInformatieObjectPatch,
  EnkelvoudigInformatieObjectPatch17,
  EnkelvoudigInformatieObjectQuery,
  EnkelvoudigInformatieObjectQuery17,
  EnkelvoudigInformatieObjectReadQuery,
  EnkelvoudigInformatieObjectUpdate,
  EnkelvoudigInformatieObjectUpdate17,
  EnkelvoudigInformatieObjectWithLock,
  EnkelvoudigInformatieObjectWithLock17,
  EnkelvoudigInformatieObjectZoek,
  EnkelvoudigInformatieObjectZoekDeclared,
  EnkelvoudigInformatieObjectZoek17,
  EnkelvoudigInformatieObjectZoekDeclared17,
  EnkelvoudigInformatieObjectExpanded17,
  EnkelvoudigInformatieObjectPatchDeclared17,
  FIELDS_17,
  LockResponse,
  NOT_FOR_RECEIVED,
  UnlockRequest,
  V15,
  V17,
  type EioDoc,
  type EioInput,
} from './schemas';
import type { JsonObject } from '@zgw/shared';
import { VERTROUWELIJKHEID } from '../../common/resources/schema-parts';
import type { Versie } from './versies';

export const COLLECTION = 'enkelvoudiginformatieobjecten';
/** What `expand` may name on a document. */
const EIO_LINKS = ['informatieobjecttype'];
/** The fields `fields` may name on `_zoek`. */
const DOCUMENT_FIELDS = new Set(Object.keys(EnkelvoudigInformatieObject17.shape).filter((k) => !k.startsWith('_')));

const DEFAULTS = {
  status: '',
  formaat: '',
  bestandsnaam: '',
  link: '',
  beschrijving: '',
  ontvangstdatum: null,
  verzenddatum: null,
  indicatieGebruiksrecht: null,
  verschijningsvorm: '',
  ondertekening: { soort: '', datum: null },
  integriteit: { algoritme: '', waarde: '', datum: null },
  trefwoorden: [],
  inhoudIsVervallen: null,
  ...DEFAULTS_17,
} satisfies Partial<EioDoc>;

const ONLY_17: ReadonlySet<string> = new Set(FIELDS_17);

/**
 * A document as version `version` shows it: 1.5.0 without the fields it does not have; 1.7.0 with them (their
 * defaults on documents stored before they existed) and `trefwoorden` always a list.
 */
export function present<T extends object>(body: T, version: string): T {
  if (version === V15) {
    // a copy without them (deleting fields would turn every object of a page into a slow dictionary); each is
    // optional in the document's type
    const out: Partial<T> = {};
    for (const k in body) if (!ONLY_17.has(k)) out[k] = body[k];
    return out as T;
  }
  // (the 1.7 fields set by name: each is optional in the document's type)
  for (const [k, v] of Object.entries(DEFAULTS_17)) if (fieldOf(body, k) === undefined) Reflect.set(body, k, v);
  if (fieldOf(body, 'trefwoorden') === null || fieldOf(body, 'trefwoorden') === undefined) Reflect.set(body, 'trefwoorden', []);
  return body;
}

export function registerInformatieobjecten(d: Documenten): Resource<EioDoc> {
  const eio: Resource<EioDoc> = new Resource<EioDoc>(d.api, {
    collection: COLLECTION,
    resource: 'enkelvoudiginformatieobject',
    schema: EnkelvoudigInformatieObject,
    input: EnkelvoudigInformatieObjectInput,
    scopes: { read: READ, create: [AANMAKEN], update: UPDATE, destroy: [VERWIJDEREN] },
    operations: [],
    kanaal: 'documenten',
    kenmerken: (doc) => ({
      bronorganisatie: doc.bronorganisatie,
      informatieobjecttype: doc.informatieobjecttype,
      vertrouwelijkheidaanduiding: doc.vertrouwelijkheidaanduiding ?? '',
    }),
    weergave: (doc) => doc.identificatie,
    visible: (doc, caller) => mayOnDocument(caller, doc, ANY_DOCUMENT_SCOPE),
    callerFilter: readyFilter,
    render: (doc, url) => render(d, doc, url, doc),
    renderCache: true,
    // (bestandsdelen being uploaded are read from their own collection)
    rendersAlone: (doc) => !doc._delen,
    present: (body, req) => present(body, req ? d.api.version(req) : d.api.defaultVersion),
    historisch: (source, ctx, current) => historisch(d, source, ctx, current),
  });
  registerWrites(d, eio);
  registerReads(d, eio);
  registerLocks(d, eio);
  return eio;
}

/** The fields the API computes for a version of a document (the current one or an earlier one; lock and parts are the document's). */
async function render(d: Documenten, version: Pick<EioDoc, '_inhoud' | 'versie'>, url: string, canonical: Stored<EioDoc>, lock?: string) {
  const hasContent = Array.isArray(version._inhoud) ? version._inhoud.length > 0 : Boolean(version._inhoud);
  return {
    inhoud: hasContent ? `${url}/download?versie=${version.versie}` : null,
    locked: Boolean(canonical._lock),
    bestandsdelen: canonical.versie === version.versie ? await d.bestandsdelen.view(canonical, lock) : [],
  };
}

// ---------------------------------------------------------------- writes

/**
 * The rules of a create or update; returns the document to store (without its content, see `withContent`).
 * The informatieobjecttype must be a published one of the Catalogi API (in-process when it is ours).
 */
async function prepare(d: Documenten, input: EioInput, ctx: WriteContext, current?: Stored<EioDoc>): Promise<EioDoc> {
  const { caller } = ctx;
  if (current && input.informatieobjecttype !== current.informatieobjecttype) {
    throw ZgwError.field('informatieobjecttype', 'wijzigen-niet-toegelaten', 'Het informatieobjecttype mag niet gewijzigd worden.');
  }
  const iot = await d.refs.mustCatalogus('informatieobjecttypen', 'informatieobjecttype', input.informatieobjecttype);
  if (iot.concept !== false) throw ZgwError.field('informatieobjecttype', 'not-published', 'Het informatieobjecttype is nog niet gepubliceerd.');

  // `inhoud` (the content, see withContent) and `lock` are not stored as sent.
  const { inhoud: _inhoud, lock: _lock, ...fields } = withDefaults(input, DEFAULTS);
  const vertrouwelijkheidaanduiding = fields.vertrouwelijkheidaanduiding || VERTROUWELIJKHEID.parse(iot.vertrouwelijkheidaanduiding);
  // drc-005: a received document (ontvangstdatum) is past being edited or decided on.
  if (fields.ontvangstdatum && NOT_FOR_RECEIVED.includes(fields.status)) {
    throw ZgwError.field('status', 'invalid_for_received', `De status mag niet "${fields.status}" zijn als er een ontvangstdatum is.`);
  }
  // drc-006: the indication follows the gebruiksrechten; it is set by creating them, not by hand (history has its own).
  if (!current && fields.indicatieGebruiksrecht === true && !ctx.historie) {
    throw ZgwError.field('indicatieGebruiksrecht', 'missing-gebruiksrechten', "De indicatie wordt 'ja' door gebruiksrechten aan te maken.");
  }
  if (current && !ctx.historie && fields.indicatieGebruiksrecht !== true && (await hasGebruiksrechten(d, ctx.url))) {
    throw ZgwError.field('indicatieGebruiksrecht', 'existing-gebruiksrechten', 'De indicatie kan niet weg zolang er gebruiksrechten zijn.');
  }
  mustMayOnDocument(caller, { informatieobjecttype: fields.informatieobjecttype, vertrouwelijkheidaanduiding }, current ? UPDATE : [AANMAKEN]);
  const identificatie = fields.identificatie || current?.identificatie || (await d.identificaties.next(fields.bronorganisatie, fields.creatiedatum));
  if (!current || identificatie !== current.identificatie || fields.bronorganisatie !== current.bronorganisatie)
    await mustBeUnique(d, fields.bronorganisatie, identificatie, ctx.uuid);
  return {
    ...fields,
    identificatie,
    vertrouwelijkheidaanduiding,
    _vertrouwelijkheid: vertrouwelijkheidRank(vertrouwelijkheidaanduiding),
    versie: current ? current.versie + 1 : 1,
    beginRegistratie: new Date().toISOString(),
    _inhoud: null,
    [READY]: readyMark(fields.isGereedVoorPublicatie),
  };
}

/**
 * A version of a document as the import sends it: its fields, and its stored content as the import names it (the
 * answer of `PUT /admin/api/v1/importen/inhoud`): the file, and its size and the SHA-256 taken as it was stored (kept
 * with the version: what the import's content check compares).
 */
const ImportVersie = EnkelvoudigInformatieObjectInput17.extend({
  _bestand: z
    .object({
      id: z.string(),
      size: z.number().int().optional(),
      sha256: z
        .string()
        .regex(/^[0-9a-f]{64}$/)
        .optional(),
    })
    .nullish(),
});

/**
 * One version of a document of another registration (the registration import sends each in turn, oldest first), its
 * content already stored (`_bestand`, see DocumentLinks.bewaarInhoud): kept among the versions with its own number,
 * registration time and size; the newest so far is the document. Null for an earlier version (kept, the document as
 * it is).
 */
async function historisch(d: Documenten, source: JsonObject, ctx: WriteContext, current?: Stored<EioDoc>): Promise<EioDoc | null> {
  const { _bestand: bestand, ...input } = parseLiberal(ImportVersie, { ...source, inhoud: null });
  const doc = await prepare(d, input, ctx, current);
  const inhoud = bestand?.id ?? null;
  const size = inhoud ? await d.inhoud.size(inhoud) : undefined;
  if (inhoud && size === undefined) throw ZgwError.field('_bestand', 'bad-url', `De inhoud ${inhoud} is niet (meer) opgeslagen.`);
  if (bestand?.size !== undefined && bestand.size !== size)
    throw ZgwError.field('_bestand', 'file-size', `De inhoud ${inhoud} is ${size} bytes, niet ${bestand.size}.`);
  const versie = Number(source.versie);
  if (!Number.isInteger(versie) || versie < 1) throw ZgwError.field('versie', 'invalid', 'Elke versie heeft een versienummer vanaf 1.');
  Object.assign(doc, {
    versie,
    beginRegistratie: String(source.beginRegistratie ?? doc.beginRegistratie),
    bestandsomvang: size ?? input.bestandsomvang ?? null,
    indicatieGebruiksrecht: input.indicatieGebruiksrecht ?? null,
    _inhoud: inhoud,
  });
  // (a dry run keeps nothing: Resource.importeer tells what would become of it)
  if (!ctx.historie?.proef) await d.versies.keep(ctx.uuid, doc, bestand?.sha256);
  return current && current.versie > versie ? null : doc;
}

async function hasGebruiksrechten(d: Documenten, url: string): Promise<boolean> {
  return Boolean(d.gebruiksrechten && (await d.gebruiksrechten.store.findOne({ informatieobject: url })));
}

async function mustBeUnique(d: Documenten, bronorganisatie: string, identificatie: string, uuid: string): Promise<void> {
  const taken = await d.informatieobjecten.store.findBy('identificatie', identificatie, { bronorganisatie });
  if (taken.some((doc) => doc._id !== uuid))
    throw ZgwError.field('identificatie', 'identificatie-niet-uniek', 'Deze identificatie bestaat al voor deze bronorganisatie.');
}

/** What a write sends of the content: `inhoud` (base64, or streamed) and `bestandsomvang`, as the request has them. */
type Content = Pick<Partial<EioInput>, 'inhoud' | 'bestandsomvang'>;

/**
 * The content of a write: the file its `inhoud` was streamed into by the body parser, or its base64 text decoded
 * now. An empty `inhoud` is no content. When `bestandsomvang` is given with content, it must be the content's size.
 */
async function contentOf(d: Documenten, input: Content, streamed: Bestand | undefined): Promise<Bestand | undefined> {
  let file = streamed;
  if (!file && typeof input.inhoud === 'string' && input.inhoud !== '') file = await d.inhoud.fromBase64(input.inhoud);
  if (file && file.size === 0) {
    await d.inhoud.delete([file.id]);
    return undefined;
  }
  if (file && typeof input.bestandsomvang === 'number' && input.bestandsomvang !== file.size) {
    await d.inhoud.delete([file.id]);
    throw ZgwError.field('bestandsomvang', 'file-size', `De inhoud is ${file.size} bytes, niet ${input.bestandsomvang}.`);
  }
  return file;
}

function registerWrites(d: Documenten, eio: Resource<EioDoc>): void {
  const { api } = d;
  api.route({
    method: 'POST',
    path: `/${COLLECTION}`,
    operationId: 'enkelvoudiginformatieobject_create',
    summary: 'Maak een (ENKELVOUDIG) INFORMATIEOBJECT aan.',
    scopes: [AANMAKEN],
    body: EnkelvoudigInformatieObjectInput,
    response: EnkelvoudigInformatieObjectWithLock,
    // The 1.5.0 file's create answer names no lock (a create with bestandsdelen returns it all the same); 1.7.0's does.
    declared: { response: EnkelvoudigInformatieObject },
    variants: {
      [V17]: {
        body: EnkelvoudigInformatieObjectInput17,
        response: EnkelvoudigInformatieObjectWithLock17,
        declared: { response: EnkelvoudigInformatieObjectWithLock17 },
      },
    },
    handler: async ({ req, caller, body }) => {
      const streamed = takeUpload(req);
      let file: Bestand | undefined;
      try {
        const input: EioInput = body;
        const uuid = randomUUID();
        const ctx = eio.ctx(caller, uuid, req);
        const doc = await prepare(d, input, ctx);
        file = await contentOf(d, input, streamed);
        doc._inhoud = file?.id ?? null;
        doc.bestandsomvang = file ? file.size : (input.bestandsomvang ?? null);
        // No content but a size: the content comes in bestandsdelen, while the document is locked for its creator.
        const lock = !file && wantsParts(input) ? await startParts(d, uuid, doc) : undefined;
        await d.versies.keep(uuid, doc);
        const stored = await insertUnique(eio, doc, ctx);
        const url = eio.url(uuid);
        return present(
          { url, ...publicFields(stored), ...(await render(d, stored, url, stored, lock)), ...(lock ? { lock } : {}) },
          api.version(req),
        );
      } catch (err) {
        await d.inhoud.delete([streamed?.id, file?.id].filter((f): f is string => !!f));
        throw err;
      }
    },
  });
  for (const partial of [false, true]) {
    api.route({
      method: partial ? 'PATCH' : 'PUT',
      path: `/${COLLECTION}/:uuid`,
      operationId: `enkelvoudiginformatieobject_${partial ? 'partial_update' : 'update'}`,
      summary: `Werk een (ENKELVOUDIG) INFORMATIEOBJECT ${partial ? 'deels' : 'in zijn geheel'} bij (een nieuwe versie).`,
      scopes: UPDATE,
      params: UuidParams,
      body: partial ? EnkelvoudigInformatieObjectPatch : EnkelvoudigInformatieObjectUpdate,
      response: EnkelvoudigInformatieObject,
      variants: {
        [V17]: {
          body: partial ? EnkelvoudigInformatieObjectPatch17 : EnkelvoudigInformatieObjectUpdate17,
          response: EnkelvoudigInformatieObject17,
          declared: partial ? { body: EnkelvoudigInformatieObjectPatchDeclared17 } : undefined,
        },
      },
      handler: async ({ req, caller, params, body }) => {
        const streamed = takeUpload(req);
        let file: Bestand | undefined;
        try {
          const input: Partial<EioInput> = body;
          const current = await eio.getOr404(params.uuid, undefined, eio.callerCondition(caller));
          mustMayOnDocument(caller, current, UPDATE);
          mustHoldLock(current, input.lock);
          const ctx = eio.ctx(caller, current._id, req);
          // (a PATCH's fields on the current ones, which hold every required field)
          const merged = (partial ? { ...publicFields(current), ...input } : { ...input }) as EioInput;
          // A 1.5 client does not know the 1.7 fields: its PUT leaves them as they are.
          if (!partial && api.version(req) === V15)
            for (const f of FIELDS_17) if (current[f] !== undefined) Object.assign(merged, { [f]: current[f] });
          const doc = await prepare(d, merged, ctx, current);
          file = await contentOf(d, input, streamed);
          doc._inhoud = file ? file.id : (current._inhoud ?? null);
          doc.bestandsomvang = file ? file.size : (current.bestandsomvang ?? null);
          if (!file && wantsParts(input)) {
            // New content in bestandsdelen: this version has none until they are uploaded and the document unlocked.
            await d.bestandsdelen.remove(current._id);
            doc._inhoud = null;
            doc.bestandsomvang = input.bestandsomvang;
            doc._delen = await d.bestandsdelen.create(current._id, Number(input.bestandsomvang));
          }
          await d.versies.keep(current._id, doc);
          const stored = await eio.update(current, doc, ctx, partial ? 'partial_update' : 'update');
          if (!stored) throw ZgwError.notFound(`enkelvoudiginformatieobject ${params.uuid} bestaat niet meer.`);
          await d.onDocumentChanged?.(stored, current);
          return eio.toApi(stored, undefined, req);
        } catch (err) {
          await d.inhoud.delete([streamed?.id, file?.id].filter((f): f is string => !!f));
          throw err;
        }
      },
    });
  }
  api.route({
    method: 'DELETE',
    path: `/${COLLECTION}/:uuid`,
    operationId: 'enkelvoudiginformatieobject_destroy',
    summary: 'Verwijder een (ENKELVOUDIG) INFORMATIEOBJECT, met al zijn versies, inhoud en gebruiksrechten.',
    scopes: [VERWIJDEREN],
    params: UuidParams,
    handler: async ({ req, caller, params }) => {
      const current = await eio.getOr404(params.uuid, undefined, eio.callerCondition(caller));
      mustMayOnDocument(caller, current, [VERWIJDEREN]);
      const ctx = eio.ctx(caller, current._id, req);
      await d.beforeDocumentDestroy?.(current, ctx);
      if (await eio.destroy(current, ctx)) {
        await d.afterDocumentDestroy?.(current, ctx);
        const files = await d.versies.files(current._id);
        await d.versies.removeAll(current._id);
        await d.inhoud.delete(files);
        await d.bestandsdelen.remove(current._id);
      }
      return undefined;
    },
  });
}

/** Whether a write asks for bestandsdelen: a `bestandsomvang` above 0 with `inhoud` left out, empty or null. */
function wantsParts(input: Content): boolean {
  return typeof input.bestandsomvang === 'number' && input.bestandsomvang > 0 && !input.inhoud;
}

/** Creates the bestandsdelen of a new document and locks it; returns the lock. */
async function startParts(d: Documenten, uuid: string, doc: EioDoc): Promise<string> {
  doc._delen = await d.bestandsdelen.create(uuid, Number(doc.bestandsomvang));
  doc._lock = randomBytes(16).toString('hex');
  return doc._lock;
}

/** Inserts a new document; a concurrent create that took the same identificatie first is `identificatie-niet-uniek`. */
async function insertUnique(eio: Resource<EioDoc>, doc: EioDoc, ctx: WriteContext): Promise<Stored<EioDoc>> {
  try {
    return await eio.insert(doc, ctx);
  } catch (err) {
    if ((err as { code?: number }).code === 11000) {
      throw ZgwError.field('identificatie', 'identificatie-niet-uniek', 'Deze identificatie bestaat al voor deze bronorganisatie.');
    }
    throw err;
  }
}

/** drc-009: a document changes only while locked, and only by whoever holds its lock. */
function mustHoldLock(current: EioDoc, lock: unknown): void {
  if (!current._lock) throw nonField('unlocked', 'Het document is niet gelockt; lock het eerst.');
  if (lock === undefined) throw nonField('missing-lock-id', 'Geef de lock van het document mee.');
  if (lock !== current._lock) throw nonField('incorrect-lock-id', 'De lock is niet juist.');
}

// ---------------------------------------------------------------- locks

function registerLocks(d: Documenten, eio: Resource<EioDoc>): void {
  const { api } = d;
  api.route({
    method: 'POST',
    path: `/${COLLECTION}/:uuid/lock`,
    operationId: 'enkelvoudiginformatieobject_lock',
    summary: 'Vergrendel een (ENKELVOUDIG) INFORMATIEOBJECT: alleen wie de lock heeft, kan het bijwerken.',
    scopes: [LOCK],
    params: UuidParams,
    status: 200,
    response: LockResponse,
    handler: async ({ caller, params }) => {
      const current = await eio.getOr404(params.uuid, undefined, eio.callerCondition(caller));
      mustMayOnDocument(caller, current, [LOCK]);
      const lock = randomBytes(16).toString('hex');
      const r = await eio.store.raw.updateOne({ _id: current._id, _lock: { $exists: false }, ...LIVE }, { $set: { _lock: lock } });
      if (!r.matchedCount) throw nonField('existing-lock', 'Het document is al gelockt.');
      return { lock };
    },
  });
  api.route({
    method: 'POST',
    path: `/${COLLECTION}/:uuid/unlock`,
    operationId: 'enkelvoudiginformatieobject_unlock',
    summary: 'Ontgrendel een (ENKELVOUDIG) INFORMATIEOBJECT: met zijn lock, of geforceerd (documenten.geforceerd-unlock).',
    scopes: [LOCK, GEFORCEERD_UNLOCK],
    params: UuidParams,
    body: UnlockRequest,
    optionalBody: true,
    status: 204,
    handler: async ({ caller, params, body }) => {
      const current = await eio.getOr404(params.uuid, undefined, eio.callerCondition(caller));
      const forced = mayOnDocument(caller, current, [GEFORCEERD_UNLOCK]);
      if (!forced) {
        mustMayOnDocument(caller, current, [LOCK]);
        if (body.lock !== current._lock) throw nonField('incorrect-lock-id', 'De lock is niet juist.');
      }
      // Whoever holds the lock finishes the upload; a forced unlock without it gives up an unfinished one.
      await d.bestandsdelen.complete(current, forced && body.lock !== current._lock);
      await eio.store.raw.updateOne({ _id: current._id, ...LIVE }, { $unset: { _lock: '' } });
      return undefined;
    },
  });
}

// ---------------------------------------------------------------- reads

/** What picks a version of a document (detail and download). */
type VersionQuery = z.output<typeof DownloadQuery>;

/**
 * The version a detail or download asks for: the current one, `?versie=`, `?registratieOp=`, or both. A caller that
 * reads only documents ready for publication reads only versions that were (the current one is: see the caller's query).
 */
async function versionOf(d: Documenten, current: Stored<EioDoc>, q: VersionQuery, caller: Caller): Promise<Versie | Stored<EioDoc>> {
  if (q.versie === undefined && q.registratieOp === undefined) return current;
  let v: Versie | Stored<EioDoc> | null;
  if (q.versie !== undefined) {
    v = q.versie === current.versie ? current : await d.versies.get(current._id, q.versie);
    if (v && q.registratieOp !== undefined && v.beginRegistratie > new Date(q.registratieOp).toISOString()) v = null;
  } else {
    v = await d.versies.at(current._id, q.registratieOp!);
  }
  if (!v || (onlyReady(caller) && v.isGereedVoorPublicatie !== true)) throw ZgwError.notFound('Deze versie van het document bestaat niet.');
  return v;
}

/**
 * The filter of the list and `_zoek`, the autorisaties included. `trefwoorden`: documents with every one of them
 * (as the Catalogi API's filter of the same name); `objectinformatieobjecten_object`/`_objectType` (1.7): documents
 * linked to that object, or to any object of that type (see OBJECTEN).
 */
/** What a document list is asked: the list's query parameters (of either version) or a `_zoek` body (of either version). */
type DocumentVraag = z.output<typeof EnkelvoudigInformatieObjectQuery17> | z.output<typeof EnkelvoudigInformatieObjectZoek17>;

function listFilter(q: DocumentVraag, caller: Caller): Filter<Document> {
  // (a document of the query: the driver types a filter's _id as an ObjectId)
  const f: Document = {};
  if (q.identificatie) f.identificatie = q.identificatie;
  if (q.bronorganisatie) f.bronorganisatie = q.bronorganisatie;
  const ids = ('uuid__in' in q ? q.uuid__in : undefined) ?? ('uuid_In' in q ? q.uuid_In : undefined);
  if (ids) f._id = { $in: ids };
  const trefwoorden =
    'trefwoorden' in q && typeof q.trefwoorden === 'string'
      ? [
          ...new Set(
            q.trefwoorden
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          ),
        ]
      : [];
  if (trefwoorden.length) f.trefwoorden = trefwoorden.length === 1 ? trefwoorden[0] : { $all: trefwoorden };
  const objecten = [
    'objectinformatieobjecten_object' in q ? q.objectinformatieobjecten_object : undefined,
    'objectinformatieobjecten_objectType' in q ? q.objectinformatieobjecten_objectType : undefined,
  ].filter((v): v is string => typeof v === 'string' && v !== '');
  if (objecten.length) f[OBJECTEN] = objecten.length === 1 ? objecten[0] : { $all: objecten };
  return and(authFilter(caller, EIO_AUTH_FIELDS), f);
}

/**
 * `_objecten` on a document: the URL and the objectType of every object it is linked to (its objectinformatieobjecten,
 * kept in step by them), so the 1.7 filters on them are one multikey index lookup. URLs and the three types never
 * coincide.
 */
export const OBJECTEN = '_objecten';

function registerReads(d: Documenten, eio: Resource<EioDoc>): void {
  const { api } = d;
  const Page = pageOf(EnkelvoudigInformatieObject);
  const Page17 = pageOf(EnkelvoudigInformatieObjectExpanded17);
  const list = async (req: FastifyRequest, caller: Caller, q: DocumentVraag, rawPage: unknown, cursor: unknown) => {
    const tree = parseExpand(q.expand, EIO_LINKS);
    const fields = parseFields('fields' in q ? q.fields : undefined, tree, DOCUMENT_FIELDS);
    const page = parsePage(rawPage);
    const filter = listFilter(q, caller);
    const { count, items, ...cont } = await eio.store.pageStored(filter, {
      page,
      size: PAGE_SIZE,
      cursor: typeof cursor === 'string' ? cursor : undefined,
      // Only the autorisaties restrict the list: its count is the sum of the maintained counts of their buckets.
      count: countableByBuckets(caller, filter, EIO_AUTH_FIELDS) ? () => eio.store.countBuckets(authBuckets(caller)) : undefined,
    });
    const requestUrl = `${api.deps.urls.base}${req.url}`;
    // A page is written from the documents' texts (see RenderCache), an expansion put into them.
    return answerPage(
      envelope(requestUrl, page, count, await eio.renderStored(items, req), cont),
      tree && ((objects) => expandDocuments(d, caller, objects, tree)),
      fields && ((r) => chooseFields(r, fields)),
    );
  };
  api.route({
    method: 'GET',
    path: `/${COLLECTION}`,
    operationId: 'enkelvoudiginformatieobject_list',
    summary: 'Alle (ENKELVOUDIGe) INFORMATIEOBJECTen opvragen.',
    scopes: READ,
    query: EnkelvoudigInformatieObjectQuery.extend(PageQuery.shape),
    response: Page,
    variants: { [V17]: { query: EnkelvoudigInformatieObjectQuery17.extend(PageQuery.shape), response: Page17 } },
    handler: ({ req, caller, query }) => list(req, caller, query, query.page, query.cursor),
  });
  api.route({
    method: 'POST',
    path: `/${COLLECTION}/_zoek`,
    operationId: 'enkelvoudiginformatieobject__zoek',
    summary: 'Zoek (ENKELVOUDIGe) INFORMATIEOBJECTen met de filters in de body.',
    scopes: READ,
    query: PageQuery,
    body: EnkelvoudigInformatieObjectZoek,
    status: 200,
    response: Page,
    declared: { body: EnkelvoudigInformatieObjectZoekDeclared },
    variants: { [V17]: { body: EnkelvoudigInformatieObjectZoek17, response: Page17, declared: { body: EnkelvoudigInformatieObjectZoekDeclared17 } } },
    handler: ({ req, caller, query, body }) => list(req, caller, body, query.page, query.cursor),
  });
  api.route({
    method: 'GET',
    path: `/${COLLECTION}/:uuid`,
    operationId: 'enkelvoudiginformatieobject_retrieve',
    summary: 'Een specifiek (ENKELVOUDIG) INFORMATIEOBJECT opvragen, of een eerdere versie ervan.',
    scopes: READ,
    params: UuidParams,
    query: EnkelvoudigInformatieObjectReadQuery,
    response: EnkelvoudigInformatieObject,
    variants: { [V17]: { response: EnkelvoudigInformatieObjectExpanded17 } },
    etag: true,
    head: true,
    handler: async ({ req, caller, params, query }) => {
      const q = query;
      const tree = parseExpand(q.expand, EIO_LINKS);
      const current = await eio.getOr404(params.uuid, undefined, eio.callerCondition(caller));
      if (!mayOnDocument(caller, current, [LEZEN])) throw ZgwError.forbidden();
      const version = await versionOf(d, current, q, caller);
      const url = eio.url(current._id);
      const body = present({ url, ...copyPublic(version, {}), ...(await render(d, version, url, current)) }, api.version(req));
      await expandDocuments(d, caller, [body], tree);
      return body;
    },
  });
  api.route({
    method: 'GET',
    path: `/${COLLECTION}/:uuid/download`,
    operationId: 'enkelvoudiginformatieobject_download',
    summary: 'Download de binaire data van het (ENKELVOUDIG) INFORMATIEOBJECT.',
    scopes: READ,
    params: UuidParams,
    query: DownloadQuery,
    sends: 'application/octet-stream',
    handler: async ({ reply, caller, params, query }) => {
      const current = await eio.getOr404(params.uuid, undefined, eio.callerCondition(caller));
      if (!mayOnDocument(caller, current, [LEZEN])) throw ZgwError.forbidden();
      const version = await versionOf(d, current, query, caller);
      await sendContent(d, reply, version);
    },
  });
}

/** Streams a version's content: never read whole into memory. */
async function sendContent(d: Documenten, reply: FastifyReply, version: Versie | EioDoc): Promise<void> {
  const raw = version._inhoud;
  const id = typeof raw === 'string' || (Array.isArray(raw) && raw.length) ? raw : undefined;
  const size = id ? await d.inhoud.size(id) : undefined;
  if (!id || size === undefined) throw ZgwError.notFound('Dit document heeft (nog) geen inhoud.');
  const name = version.bestandsnaam || version.identificatie || 'inhoud';
  reply
    .code(200)
    .header('Content-Type', 'application/octet-stream')
    .header('Content-Length', String(size))
    .header(
      'Content-Disposition',
      `attachment; filename="${name.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    );
  await reply.send(d.inhoud.download(id));
}
