import type { z } from 'zod';
import { randomUUID } from 'node:crypto';
import { digestOf, hashing, zijAanZij, type InhoudControle } from '@zgw/shared';
import type { Document, Filter } from 'mongodb';
import type { Caller } from '../../common/auth/auth';
import type { DocumentLinks } from '../../common/platform/links';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import type { Answer, Resource } from '../../common/platform/resource';
import { LIVE, pull, type Stored } from '../../common/storage/store';
import { hasKeys, type Shape } from '../../common/platform/references';
import { AANMAKEN, LEZEN, READ, VERWIJDEREN, mayOnDocument, nonField, partFacts, readyFilter, type Documenten } from './context';
import { OBJECTEN } from './informatieobjecten';
import { registerPart } from './parts';
import {
  ObjectInformatieObject,
  ObjectInformatieObjectExpanded17,
  ObjectInformatieObjectInput,
  ObjectInformatieObjectQuery,
  type EioDoc,
  type ObjectInformatieObjectDoc as OioDoc,
} from './schemas';

/** What a JSON document must have to be the object its objectType says. */
const SHAPES: Record<string, Shape> = {
  zaak: hasKeys('zaaktype', 'bronorganisatie'),
  besluit: hasKeys('besluittype', 'verantwoordelijkeOrganisatie'),
  verzoek: hasKeys('url'),
};

/**
 * Where a registration of each object type keeps its objects (`path`) and their relations to documents
 * (`collection`, with `field` naming the object). A verzoek's registration cannot be asked.
 */
const RELATIONS: Record<string, { path: string; field: string; collection: string } | undefined> = {
  zaak: { path: 'zaken', field: 'zaak', collection: 'zaakinformatieobjecten' },
  besluit: { path: 'besluiten', field: 'besluit', collection: 'besluitinformatieobjecten' },
  verzoek: undefined,
};

/**
 * This platform's registration of an object, when the object is one of its objects (a zaak of its Zaken API, a
 * besluit of its Besluiten API, offered in-process through `deps.components`): its objects and relations. Objects of
 * other registrations are asked over HTTP.
 */
function localRegistration(
  d: Documenten,
  objectType: string,
  object: string,
): { objects: Resource<Document>; relations: Resource<Document>; field: string } | undefined {
  const { zaken, besluiten } = d.api.deps.components;
  const registration =
    objectType === 'zaak' && zaken
      ? { objects: zaken.zaken, relations: zaken.zaakinformatieobjecten }
      : objectType === 'besluit' && besluiten
        ? { objects: besluiten.besluiten, relations: besluiten.besluitinformatieobjecten }
        : undefined;
  return registration?.objects.uuidOf(object) ? { ...registration, field: RELATIONS[objectType]!.field } : undefined;
}

/**
 * Objectinformatieobjecten: which zaken and besluiten a document belongs to. The Zaken API of this platform keeps
 * them in step with its zaakinformatieobjecten in-process (`links`); a client may record a link that another
 * registration holds (drc-002, drc-003, drc-004), and remove one that registration no longer holds.
 */
export function registerObjectinformatieobjecten(d: Documenten): Resource<OioDoc> {
  return registerPart<OioDoc, z.output<typeof ObjectInformatieObjectQuery>>(d, {
    collection: 'objectinformatieobjecten',
    resource: 'objectinformatieobject',
    schema: ObjectInformatieObject,
    expanded17: ObjectInformatieObjectExpanded17,
    input: ObjectInformatieObjectInput,
    query: ObjectInformatieObjectQuery,
    scopes: { read: READ, create: [AANMAKEN], update: [], destroy: [VERWIJDEREN] },
    auditHeaders: [],
    operations: ['list', 'create', 'read', 'destroy'],
    plainList: true,
    exact: ['object'],
    rules: async (doc) => {
      const { objectType, object } = doc;
      const error = await objectError(d, objectType, object);
      if (error) throw ZgwError.validation([error]);
      if (await linkOf(d, doc.informatieobject, object)) throw nonField('unique', 'Dit object is al aan dit informatieobject gekoppeld.');
      if ((await relationHeld(d, objectType, object, doc.informatieobject)) === false) {
        throw nonField('inconsistent-relation', `De ${objectType} heeft dit informatieobject niet in zijn registratie.`);
      }
      return { informatieobject: doc.informatieobject, object, objectType };
    },
    beforeDestroy: async (current) => {
      if (await relationHeld(d, current.objectType, current.object, current.informatieobject)) {
        throw nonField(
          'inconsistent-relation',
          `De ${current.objectType} heeft dit informatieobject nog in zijn registratie; verwijder de relatie daar.`,
        );
      }
    },
    afterWrite: async (stored, eio) => linked(d, eio, stored),
    afterDestroy: async (current) => unlinked(d, current),
  });
}

/** A new link: its object and objectType join the document's `_objecten` (the 1.7 list filters). */
async function linked(d: Documenten, eio: Pick<Stored<EioDoc>, '_id'>, oio: Pick<OioDoc, 'object' | 'objectType'>): Promise<void> {
  await d.informatieobjecten.store.followUp({ _id: eio._id, ...LIVE }, { $addToSet: { [OBJECTEN]: { $each: [oio.object, oio.objectType] } } });
}

/** A link gone: its object leaves the document's `_objecten`, and its objectType when no other link has that type. */
async function unlinked(d: Documenten, oio: OioDoc): Promise<void> {
  const uuid = d.informatieobjecten.uuidOf(oio.informatieobject);
  if (!uuid) return;
  const others = await d.objectinformatieobjecten.store.find({ informatieobject: oio.informatieobject });
  const gone = [oio.object, ...(others.some((o) => o.objectType === oio.objectType) ? [] : [oio.objectType])];
  await d.informatieobjecten.store.raw.updateOne({ _id: uuid, ...LIVE }, pull(OBJECTEN, { $in: gone }));
}

/**
 * Fills `_objecten` of the documents linked before it existed, once per database (the mark in `migrations`): every
 * objectinformatieobject of every tenant (by the _id index), each a single update of its document.
 */
export async function backfillObjecten(d: Documenten): Promise<number> {
  const marks = d.api.deps.db.collection<{ _id: string; at: Date }>('migrations');
  const id = 'documenten.objecten';
  if (await marks.findOne({ _id: id })) return 0;
  let n = 0;
  for await (const oio of d.objectinformatieobjecten.store.raw.find(LIVE).sort({ _id: 1 })) {
    const uuid = d.informatieobjecten.uuidOf(String(oio.informatieobject));
    if (uuid) await linked(d, { _id: uuid }, oio as Stored<OioDoc>);
    n++;
  }
  await marks.updateOne({ _id: id }, { $setOnInsert: { at: new Date() } }, { upsert: true });
  return n;
}

function linkOf(d: Documenten, informatieobject: string, object: string): Promise<Stored<OioDoc> | undefined> {
  // By document (few links each), then by object: one index-served lookup.
  return d.objectinformatieobjecten.store.findBy('informatieobject', informatieobject).then((links) => links.find((l) => l.object === object));
}

/** `bad-url` when the object does not answer, `invalid-resource` when it is not of its objectType. */
async function objectError(d: Documenten, objectType: string, object: string): Promise<InvalidParam | undefined> {
  const local = localRegistration(d, objectType, object);
  if (local)
    return (await local.objects.byUrl(object)) ? undefined : { name: 'object', code: 'bad-url', reason: `De ${objectType} ${object} bestaat niet.` };
  return d.refs.remote('object', object, SHAPES[objectType] ?? (() => true));
}

/**
 * Whether the object's registration holds the relation to the document (a zaakinformatieobject, a
 * besluitinformatieobject); undefined when that cannot be asked (a verzoek, or no answer).
 */
async function relationHeld(d: Documenten, objectType: string, object: string, informatieobject: string): Promise<boolean | undefined> {
  const local = localRegistration(d, objectType, object);
  if (local) {
    // By document (few relations each): the lookup the registration's own informatieobject filter uses.
    const relations = await local.relations.store.find({ informatieobject });
    return relations.some((r) => r[local.field] === object);
  }
  const relation = RELATIONS[objectType];
  const at = relation ? object.lastIndexOf(`/${relation.path}/`) : -1;
  if (!relation || at < 0) return undefined;
  const query = `${relation.field}=${encodeURIComponent(object)}&informatieobject=${encodeURIComponent(informatieobject)}`;
  const { status, body } = await d.api.deps.fetchJson(`${object.slice(0, at)}/${relation.collection}?${query}`);
  if (status !== 200) return undefined;
  const list = Array.isArray(body) ? body : ((body as { results?: unknown[] } | undefined)?.results ?? []);
  return list.length > 0;
}

/** Versions whose content the import's content check hashes at once (when no hash was kept with them). */
const CONTROLE_PARALLEL = 8;

/** The links the Zaken API keeps in step (see DocumentLinks). */
export function documentLinks(d: Documenten): DocumentLinks {
  const eio = d.informatieobjecten;
  return {
    owns: (url) => !!eio.uuidOf(url),
    bewaarInhoud: async (bytes) => {
      const pass = hashing(bytes);
      const file = await d.inhoud.fromStream(pass.bytes);
      return { ...file, sha256: pass.digest() };
    },
    inhoudControle: async (urls) => {
      const ours = new Map<string, string>();
      for (const url of urls) {
        const uuid = eio.uuidOf(url);
        if (uuid) ours.set(uuid, url);
      }
      const byDoc = new Map<string, InhoudControle['documenten'][number]>();
      await zijAanZij(await d.versies.allOf([...ours.keys()]), CONTROLE_PARALLEL, async (v) => {
        const files = (Array.isArray(v._inhoud) ? v._inhoud : [v._inhoud]).filter((f): f is string => !!f);
        // (a version whose hash was not kept with it: taken now from the stored bytes)
        const gemeten = !files.length
          ? null
          : v._sha256
            ? { sha256: v._sha256, size: v.bestandsomvang ?? null }
            : await digestOf(d.inhoud.download(files));
        let doc = byDoc.get(v._eio);
        if (!doc) byDoc.set(v._eio, (doc = { url: ours.get(v._eio)!, versies: [] }));
        doc.versies.push({ versie: v.versie, omvang: gemeten?.size ?? null, sha256: gemeten?.sha256 ?? null });
      });
      // (in the order asked, each one's versions oldest first)
      for (const doc of byDoc.values()) doc.versies.sort((a, b) => a.versie - b.versie);
      return [...ours.keys()].flatMap((uuid) => byDoc.get(uuid) ?? []);
    },
    readable: async (urls, caller) => {
      const ids = [...new Set(urls.map((u) => eio.uuidOf(u)).filter((u): u is string => !!u))];
      const out = new Map<string, Answer<object>>();
      if (!ids.length) return out;
      for (const doc of await eio.store.find({ _id: { $in: ids }, ...readyFilter(caller) } as Filter<Document>)) {
        if (mayOnDocument(caller, doc, [LEZEN])) out.set(eio.url(doc._id), await eio.toApi(doc));
      }
      return out;
    },
    document: async (url) => {
      const uuid = d.informatieobjecten.uuidOf(url);
      if (!uuid) return undefined;
      const doc = await d.informatieobjecten.store.get(uuid);
      return doc ? d.informatieobjecten.toApi(doc) : null;
    },
    link: async (informatieobject, object, objectType, caller: Caller) => {
      if (await linkOf(d, informatieobject, object)) return;
      const eio = await d.informatieobjecten.byUrl(informatieobject);
      if (!eio) return;
      const uuid = randomUUID();
      const oio = d.objectinformatieobjecten;
      await oio.insert({ informatieobject, object, objectType, ...partFacts(eio), _bronorganisatie: eio.bronorganisatie }, oio.ctx(caller, uuid));
    },
    unlink: async (informatieobject, object, caller: Caller) => {
      const link = await linkOf(d, informatieobject, object);
      if (link && (await d.objectinformatieobjecten.destroy(link, d.objectinformatieobjecten.ctx(caller, link._id)))) await unlinked(d, link);
    },
  };
}
