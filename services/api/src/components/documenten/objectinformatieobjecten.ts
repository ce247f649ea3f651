import { randomUUID } from 'node:crypto';
import type { Caller } from '../../common/auth';
import { ZgwError, type InvalidParam } from '../../common/errors';
import type { Resource } from '../../common/resource';
import type { Stored } from '../../common/store';
import { hasKeys } from '../zaken/refs';
import type { Zaken } from '../zaken/context';
import { AANMAKEN, READ, VERWIJDEREN, nonField, partFacts, type DocumentLinks, type Documenten } from './context';
import { registerPart } from './parts';
import { ObjectInformatieObject, ObjectInformatieObjectInput, ObjectInformatieObjectQuery, type Doc } from './schemas';

/** What a JSON document must have to be the object its objectType says. */
const SHAPES: Record<string, (body: Record<string, unknown>) => boolean> = {
  zaak: hasKeys('zaaktype', 'bronorganisatie'),
  besluit: hasKeys('besluittype', 'verantwoordelijkeOrganisatie'),
  verzoek: hasKeys('url'),
};

/** The relation collection in the registration of each object type, and its field naming the object. */
const RELATIONS: Record<string, { path: string; field: string; collection: string } | undefined> = {
  zaak: { path: 'zaken', field: 'zaak', collection: 'zaakinformatieobjecten' },
  besluit: { path: 'besluiten', field: 'besluit', collection: 'besluitinformatieobjecten' },
  verzoek: undefined,
};

/**
 * Objectinformatieobjecten: which zaken and besluiten a document belongs to. The Zaken API of this platform keeps
 * them in step with its zaakinformatieobjecten in-process (`links`); a client may record a link that another
 * registration holds (drc-002, drc-003, drc-004), and remove one that registration no longer holds.
 */
export function registerObjectinformatieobjecten(d: Documenten): Resource<Doc> {
  return registerPart(d, {
    collection: 'objectinformatieobjecten',
    resource: 'objectinformatieobject',
    schema: ObjectInformatieObject,
    input: ObjectInformatieObjectInput,
    query: ObjectInformatieObjectQuery,
    scopes: { read: READ, create: [AANMAKEN], update: [], destroy: [VERWIJDEREN] },
    operations: ['list', 'create', 'read', 'destroy'],
    plainList: true,
    exact: ['object'],
    rules: async (doc) => {
      const objectType = String(doc.objectType);
      const object = String(doc.object);
      const error = await objectError(d, objectType, object);
      if (error) throw ZgwError.validation([error]);
      if (await linkOf(d, String(doc.informatieobject), object)) throw nonField('unique', 'Dit object is al aan dit informatieobject gekoppeld.');
      if ((await relationHeld(d, objectType, object, String(doc.informatieobject))) === false) {
        throw nonField('inconsistent-relation', `De ${objectType} heeft dit informatieobject niet in zijn registratie.`);
      }
      return { informatieobject: doc.informatieobject, object, objectType };
    },
    beforeDestroy: async (current) => {
      if (await relationHeld(d, String(current.objectType), String(current.object), String(current.informatieobject))) {
        throw nonField('inconsistent-relation', `De ${String(current.objectType)} heeft dit informatieobject nog in zijn registratie; verwijder de relatie daar.`);
      }
    },
  });
}

function zakenOf(d: Documenten): Zaken | undefined {
  return d.api.deps.components.get('zaken') as Zaken | undefined;
}

function linkOf(d: Documenten, informatieobject: string, object: string): Promise<Stored<Doc> | undefined> {
  // By document (few links each), then by object: one index-served lookup.
  return d.objectinformatieobjecten.store.find({ informatieobject }).then((links) => links.find((l) => l.object === object));
}

/** `bad-url` when the object does not answer, `invalid-resource` when it is not of its objectType. */
async function objectError(d: Documenten, objectType: string, object: string): Promise<InvalidParam | undefined> {
  const zaken = zakenOf(d);
  if (objectType === 'zaak' && zaken?.zaken.uuidOf(object)) {
    return (await zaken.zaken.byUrl(object)) ? undefined : { name: 'object', code: 'bad-url', reason: `De zaak ${object} bestaat niet.` };
  }
  return d.refs.remote('object', object, SHAPES[objectType] ?? (() => true));
}

/**
 * Whether the object's registration holds the relation to the document (a zaakinformatieobject, a
 * besluitinformatieobject); undefined when that cannot be asked (a verzoek, or no answer).
 */
async function relationHeld(d: Documenten, objectType: string, object: string, informatieobject: string): Promise<boolean | undefined> {
  const zaken = zakenOf(d);
  if (objectType === 'zaak' && zaken?.zaken.uuidOf(object)) {
    const zios = await zaken.zaakinformatieobjecten.store.find({ informatieobject });
    return zios.some((z) => z.zaak === object);
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

/** The links the Zaken API keeps in step (see DocumentLinks). */
export function documentLinks(d: Documenten): DocumentLinks {
  return {
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
      if (link) await d.objectinformatieobjecten.destroy(link, d.objectinformatieobjecten.ctx(caller, link._id));
    },
  };
}
