import { fieldOf } from '../../common/resources/expand';
import type { z } from 'zod';
import type { Document, Filter } from 'mongodb';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../common/auth/auth';
import { UuidParams } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { Resource } from '../../common/platform/resource';
import { publicFields, type Stored } from '../../common/storage/store';
import { hasKeys } from '../../common/platform/references';
import {
  AANMAKEN,
  ANY_BESLUIT_SCOPE,
  BIJWERKEN,
  PART_AUTH_FIELD,
  READ,
  VERWIJDEREN,
  and,
  authFilter,
  mayOnBesluittype,
  mustBeUnchanged,
  mustMayOnBesluittype,
  nonField,
  type Besluiten,
  mustKeepHeldZaak,
} from './context';
import { expand } from './expand';
import {
  BesluitInformatieObject,
  BesluitInformatieObjectExpanded11,
  V11,
  BesluitInformatieObjectInput,
  BesluitInformatieObjectQuery,
  BesluitInformatieObjectReadQuery,
  type BesluitInformatieObjectDoc as BioDoc,
  type BesluitInformatieObjectIn,
} from './schemas';

/** An informatieobject of a Documenten API: an object with these fields (ours read in-process, others fetched). */
const isInformatieobject = hasKeys('informatieobjecttype', 'titel', 'bronorganisatie');

/**
 * Besluitinformatieobjecten: the documents a besluit is laid down in. Each carries its besluit's besluittype
 * (`_besluittype`) for the autorisaties inside every query; a document of this platform records the link as its
 * objectinformatieobject (brc-005), removed again with the link.
 */
export function registerBesluitinformatieobjecten(b: Besluiten): Resource<BioDoc> {
  const bios: Resource<BioDoc, BesluitInformatieObjectIn> = new Resource<
    BioDoc,
    BesluitInformatieObjectIn,
    z.output<typeof BesluitInformatieObjectQuery>
  >(b.api, {
    collection: 'besluitinformatieobjecten',
    resource: 'besluitinformatieobject',
    schema: BesluitInformatieObject,
    input: BesluitInformatieObjectInput,
    query: BesluitInformatieObjectQuery,
    readQuery: BesluitInformatieObjectReadQuery,
    declared: {
      query: BesluitInformatieObjectQuery.omit({ expand: true }),
      readQuery: BesluitInformatieObjectReadQuery.omit({ expand: true }),
    },
    variants: {
      [V11]: { expanded: BesluitInformatieObjectExpanded11, query: BesluitInformatieObjectQuery, readQuery: BesluitInformatieObjectReadQuery },
    },
    scopes: { read: READ, create: [AANMAKEN], update: [BIJWERKEN], destroy: [VERWIJDEREN] },
    operations: ['list', 'read', 'destroy'],
    plainList: true,
    // The audit trail of the besluit shows its besluitinformatieobjecten; the standard notifies besluit writes only.
    hoofdObject: (doc) => doc.besluit,
    visible: (doc, caller) => mayOnBesluittype(caller, doc[PART_AUTH_FIELD], ANY_BESLUIT_SCOPE),
    filter: (q, caller) => {
      const f: Filter<Document> = {};
      for (const k of ['besluit', 'informatieobject'] as const) if (q[k] !== undefined && q[k] !== '') f[k] = q[k];
      return and(authFilter(caller, PART_AUTH_FIELD), f);
    },
    // (the registration import's writes; the API's create is registerCreate's)
    prepare: (data, ctx, current) => prepare(b, data, ctx.caller, { historie: !!ctx.historie, current }),
    beforeDestroy: async (current, ctx) => {
      mustMayOnBesluittype(ctx.caller, current[PART_AUTH_FIELD], [VERWIJDEREN]);
      await mustKeepHeldZaak(b, (await b.besluiten.byUrl(current.besluit))?.zaak);
    },
    followsCreate: (doc) => !!b.api.deps.components.documenten?.owns(doc.informatieobject),
    afterWrite: async (stored, ctx) => b.api.deps.components.documenten?.link(stored.informatieobject, stored.besluit, 'besluit', ctx.caller),
    afterDestroy: (current, ctx) => unlinkDocument(b, current, ctx.caller),
    render: async (doc, url, query, req) =>
      query?.expand && req?.caller ? { _expand: await expand(b, req.caller, { ...publicFields(doc), url }, String(query.expand)) } : {},
  });
  registerCreate(b, bios);
  registerUpdates(b, bios);
  return bios;
}

/** Removes the objectinformatieobject of a besluitinformatieobject that goes (when the document is one of ours). */
export async function unlinkDocument(b: Besluiten, bio: BioDoc, caller: Caller): Promise<void> {
  await b.api.deps.components.documenten?.unlink(bio.informatieobject, bio.besluit, caller);
}

/**
 * The rules of a create: the besluit one of this API (`no_match`, `does_not_exist`) that the caller may add to; the
 * informatieobject a document that answers (brc-003: `bad-url`, `invalid-resource`) of an informatieobjecttype of
 * the besluittype (brc-007); each document once per besluit (`unique`).
 */
async function prepare(
  b: Besluiten,
  input: BesluitInformatieObjectIn,
  caller: Caller,
  opts: { historie?: boolean; current?: Stored<BioDoc> } = {},
): Promise<BioDoc> {
  const besluitUrl = input.besluit;
  const uuid = b.besluiten.uuidOf(besluitUrl);
  if (!uuid) throw ZgwError.field('besluit', 'no_match', `${besluitUrl} is geen besluit-URL van deze Besluiten API.`);
  const besluit = await b.besluiten.store.get(uuid);
  if (!besluit) throw ZgwError.field('besluit', 'does_not_exist', `Het besluit ${besluitUrl} bestaat niet.`);
  mustMayOnBesluittype(caller, besluit.besluittype, [AANMAKEN]);

  const { informatieobject } = input;
  const { status, body } = await b.refs.informatieobject(informatieobject);
  if (status !== 200) throw ZgwError.field('informatieobject', 'bad-url', `${informatieobject} gaf status ${status || 'geen antwoord'}.`);
  if (!body || typeof body !== 'object' || Array.isArray(body) || !isInformatieobject(body)) {
    throw ZgwError.field('informatieobject', 'invalid-resource', `${informatieobject} is geen informatieobject.`);
  }
  // (history: the besluittype may have dropped the document's type since)
  if (!opts.historie && !(await besluittypeKnows(b, besluit.besluittype, String(fieldOf(body, 'informatieobjecttype'))))) {
    throw nonField(
      'missing-besluittype-informatieobjecttype-relation',
      'Het informatieobjecttype van het document hoort niet bij het besluittype van het besluit.',
    );
  }
  // By besluit (few documents each), then by document.
  const links = await b.besluitinformatieobjecten.store.find({ besluit: besluitUrl });
  if (links.some((l) => l.informatieobject === informatieobject && l._id !== opts.current?._id)) {
    throw nonField('unique', 'Dit informatieobject is al aan dit besluit gekoppeld.');
  }
  return { informatieobject, besluit: besluitUrl, [PART_AUTH_FIELD]: besluit.besluittype, _besluitUuid: besluit._id };
}

/**
 * brc-007: whether the besluittype lists the informatieobjecttype. Ours name them by omschrijving within the
 * catalogus (the 1.3 history model: every version of that omschrijving counts); another Catalogi API's list URLs.
 */
async function besluittypeKnows(b: Besluiten, besluittypeUrl: string, informatieobjecttype: string): Promise<boolean> {
  const c = b.catalogi;
  const local = c.besluittypen.uuidOf(besluittypeUrl);
  const besluittype = local ? await c.api.cached(`doc:${besluittypeUrl}`, async () => (await c.besluittypen.byUrl(besluittypeUrl)) ?? null) : null;
  if (besluittype) {
    const names = (besluittype.informatieobjecttypen as string[] | undefined) ?? [];
    const iot = c.informatieobjecttypen.uuidOf(informatieobjecttype)
      ? await c.api.cached(`doc:${informatieobjecttype}`, async () => (await c.informatieobjecttypen.byUrl(informatieobjecttype)) ?? null)
      : (await b.refs.json(informatieobjecttype)).body;
    return (
      !!iot && typeof iot === 'object' && fieldOf(iot, 'catalogus') === besluittype.catalogus && names.includes(String(fieldOf(iot, 'omschrijving')))
    );
  }
  const { status, body } = await b.refs.json(besluittypeUrl);
  const listed = status === 200 && body && typeof body === 'object' ? fieldOf(body, 'informatieobjecttypen') : undefined;
  return Array.isArray(listed) && listed.includes(informatieobjecttype);
}

/** The create; the same document linked twice at the same moment is `unique` too (the unique index decides). */
function registerCreate(b: Besluiten, bios: Resource<BioDoc>): void {
  b.api.route({
    method: 'POST',
    path: '/besluitinformatieobjecten',
    operationId: 'besluitinformatieobject_create',
    summary: 'Maak een BESLUIT-INFORMATIEOBJECT relatie aan.',
    scopes: [AANMAKEN],
    body: BesluitInformatieObjectInput,
    response: BesluitInformatieObject,
    handler: async ({ req, caller, body }) => {
      const ctx = bios.ctx(caller, randomUUID(), req);
      const doc = await prepare(b, body, caller);
      try {
        return await bios.toApi(await bios.insert(doc, ctx), undefined, req);
      } catch (err) {
        if ((err as { code?: number }).code === 11000) throw nonField('unique', 'Dit informatieobject is al aan dit besluit gekoppeld.');
        throw err;
      }
    },
  });
}

/**
 * brc-004: a besluitinformatieobject never changes its besluit or informatieobject. The standard's rule names
 * `besluitinformatieobject_update` and `_partial_update`: they answer `wijzigen-niet-toegelaten` for any change and
 * the object as it is otherwise (there is nothing else to change).
 */
function registerUpdates(b: Besluiten, bios: Resource<BioDoc>): void {
  for (const partial of [false, true]) {
    b.api.route({
      method: partial ? 'PATCH' : 'PUT',
      path: '/besluitinformatieobjecten/:uuid',
      operationId: `besluitinformatieobject_${partial ? 'partial_update' : 'update'}`,
      documented: false,
      summary: `Werk een BESLUIT-INFORMATIEOBJECT relatie ${partial ? 'deels ' : ''}bij: besluit en informatieobject liggen vast.`,
      scopes: [BIJWERKEN],
      params: UuidParams,
      body: partial ? BesluitInformatieObjectInput.partial() : BesluitInformatieObjectInput,
      response: BesluitInformatieObject,
      handler: async ({ req, caller, params, body }) => {
        const current = await bios.getOr404(params.uuid, caller);
        mustMayOnBesluittype(caller, current[PART_AUTH_FIELD], [BIJWERKEN]);
        mustBeUnchanged(current, body, ['besluit', 'informatieobject']);
        return bios.toApi(current, undefined, req);
      },
    });
  }
}
