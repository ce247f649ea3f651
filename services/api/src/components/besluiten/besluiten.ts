import type { z } from 'zod';
import type { Document, Filter } from 'mongodb';
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../common/auth/auth';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import { Resource, type WriteContext } from '../../common/platform/resource';
import { publicFields, type Stored } from '../../common/storage/store';
import { mustMayChangeClosed } from '../../common/platform/zaak-rechten';
import { hasKeys } from '../../common/platform/references';
import {
  AANMAKEN,
  ANY_BESLUIT_SCOPE,
  BESLUIT_AUTH_FIELD,
  BIJWERKEN,
  READ,
  VERWIJDEREN,
  and,
  authFilter,
  besluittypenWith,
  mayOnBesluittype,
  mustBeUnchanged,
  mustMayOnBesluittype,
  nonField,
  withDefaults,
  vandaag,
  type Besluiten,
  isLocalZaak,
  mustKeepHeldZaak,
} from './context';
import { unlinkDocument } from './besluitinformatieobjecten';
import { expand } from './expand';
import { fieldOf, type Expansion } from '../../common/resources/expand';
import {
  Besluit,
  BesluitExpanded11,
  BesluitInput,
  BesluitQuery,
  V11,
  BesluitReadQuery,
  VERVALREDENEN,
  type BesluitDoc,
  type BesluitIn,
} from './schemas';
import type { BesluitTypeLink } from '../../common/platform/links';

const DEFAULTS = {
  zaak: '',
  toelichting: '',
  bestuursorgaan: '',
  vervaldatum: null,
  vervalreden: '',
  publicatiedatum: null,
  verzenddatum: null,
  uiterlijkeReactiedatum: null,
} satisfies Partial<BesluitDoc>;

/** List filters that are exact matches on the stored field of the same name. */
export const BESLUIT_FILTERS = ['identificatie', 'verantwoordelijkeOrganisatie', 'besluittype', 'zaak'] as const;

export function registerBesluiten(b: Besluiten): Resource<BesluitDoc> {
  const besluiten: Resource<BesluitDoc, BesluitIn> = new Resource<
    BesluitDoc,
    BesluitIn,
    z.output<typeof BesluitQuery>,
    z.output<typeof BesluitReadQuery>
  >(b.api, {
    collection: 'besluiten',
    resource: 'besluit',
    schema: Besluit,
    input: BesluitInput,
    query: BesluitQuery,
    readQuery: BesluitReadQuery,
    // `expand` comes with Besluiten 1.1.0; the 1.0.2 file does not declare it (the server takes it all the same).
    declared: { query: BesluitQuery.omit({ expand: true }), readQuery: BesluitReadQuery.omit({ expand: true }) },
    variants: { [V11]: { expanded: BesluitExpanded11, query: BesluitQuery, readQuery: BesluitReadQuery } },
    scopes: { read: READ, create: [AANMAKEN], update: [BIJWERKEN], destroy: [VERWIJDEREN] },
    operations: ['list', 'read', 'update', 'partial_update', 'destroy'],
    kanaal: 'besluiten',
    kenmerken: (doc) => ({ verantwoordelijkeOrganisatie: doc.verantwoordelijkeOrganisatie, besluittype: doc.besluittype }),
    weergave: (doc) => doc.identificatie,
    visible: (doc, caller) => mayOnBesluittype(caller, doc.besluittype, ANY_BESLUIT_SCOPE),
    filter: (q, caller) => {
      const f: Filter<Document> = {};
      for (const k of BESLUIT_FILTERS) if (q[k] !== undefined && q[k] !== '') f[k] = q[k];
      return and(authFilter(caller, BESLUIT_AUTH_FIELD), f);
    },
    // A list only the autorisaties restrict is counted from the counts kept per besluittype.
    count: (filter, caller) => {
      const types = besluittypenWith(caller);
      if (!types || JSON.stringify(filter) !== JSON.stringify(authFilter(caller, BESLUIT_AUTH_FIELD))) return undefined;
      return () => besluiten.store.countBuckets(types.map((t) => [t]));
    },
    prepare: (data, ctx, current) => prepare(b, data, ctx, current),
    beforeDestroy: async (current, ctx) => {
      mustMayOnBesluittype(ctx.caller, current.besluittype, [VERWIJDEREN]);
      await mustMayChangeZaak(b, ctx.caller, current.zaak);
      await mustKeepHeldZaak(b, current.zaak);
      await voorWijziging(b, current, [current.zaak]);
    },
    afterDestroy: (current, ctx) => removeParts(b, current, ctx),
    // The zaak of a besluit records it among its besluiten (Zaken API: zaakbesluit), whenever it is one of ours.
    followsCreate: (doc) => isLocalZaak(b, doc.zaak),
    afterWrite: (stored, ctx, previous) => keepZaakInStep(b, stored, ctx.caller, previous),
    render: async (doc, url, query, req) => {
      const extra: { vervalredenWeergave: string; _expand?: Expansion } = {
        vervalredenWeergave: doc.vervalreden ? VERVALREDENEN[doc.vervalreden] : '',
      };
      if (query?.expand && req?.caller) extra._expand = await expand(b, req.caller, { ...publicFields(doc), url }, query.expand);
      return extra;
    },
  });
  besluiten.store.countBy(['besluittype']);
  registerCreate(b, besluiten);
  return besluiten;
}

// ---------------------------------------------------------------- rules

/**
 * The rules of a create or update (brc-001, brc-002, brc-006): the besluittype a published one of the Catalogi API,
 * fixed once set, like identificatie and verantwoordelijkeOrganisatie; a datum not in the future; the zaak one
 * that exists, whose zaaktype knows the besluittype; an identificatie unique per verantwoordelijkeOrganisatie,
 * generated when none is given.
 */
async function prepare(b: Besluiten, input: BesluitIn, ctx: WriteContext, current?: Stored<BesluitDoc>): Promise<BesluitDoc> {
  const { caller } = ctx;
  if (current) {
    mustMayOnBesluittype(caller, current.besluittype, [BIJWERKEN]);
    mustBeUnchanged(current, input, ['besluittype', 'identificatie', 'verantwoordelijkeOrganisatie']);
  }
  const besluittype = await b.refs.mustCatalogus('besluittypen', 'besluittype', input.besluittype);
  if (besluittype.concept !== false) throw ZgwError.field('besluittype', 'not-published', 'Het besluittype is nog niet gepubliceerd.');
  if (input.datum > vandaag()) throw ZgwError.field('datum', 'future_not_allowed', 'De beslisdatum mag niet in de toekomst liggen.');

  const doc: BesluitDoc = {
    ...withDefaults(input, DEFAULTS),
    identificatie: input.identificatie ?? '',
    besluittype: b.catalogi.besluittypen.url(besluittype._id),
    zaak: input.zaak || '',
  };
  if (doc.zaak) await checkZaak(b, doc.zaak, besluittype, !!ctx.historie);
  if (!current) mustMayOnBesluittype(caller, doc.besluittype, [AANMAKEN]);
  // A besluit that joins or leaves a closed zaak changes that zaak: zaken.geforceerd-bijwerken (as for its other parts).
  if (doc.zaak !== (current?.zaak ?? '')) {
    await mustMayChangeZaak(b, caller, doc.zaak);
    if (current) await mustMayChangeZaak(b, caller, current.zaak);
  }
  if (current) doc.identificatie = current.identificatie;
  else if (input.identificatie) await mustBeUnique(b, doc);
  else doc.identificatie = await nextIdentificatie(b, doc);
  // (a new besluit is marked itself until its zaak has it: Resource.insert)
  if (current && !ctx.historie) await voorWijziging(b, current, [current.zaak, doc.zaak]);
  return doc;
}

/** Before a besluit changes or goes: the zaken of this platform whose archiving may follow its dates (see ZaakBesluitLinks). */
async function voorWijziging(b: Besluiten, besluit: Stored<BesluitDoc>, zaken: string[]): Promise<void> {
  await b.api.deps.components.zaken?.besluitLinks.voorWijziging(
    b.besluiten.url(besluit._id),
    zaken.filter((zaak) => isLocalZaak(b, zaak)),
  );
}

/**
 * brc-006 (the second half not for history): the zaak exists (one of ours in-process, another Zaken API's fetched: `bad-url`, `invalid-resource`) and its
 * zaaktype lists the besluittype among its besluittypen (`zaaktype-mismatch`).
 */
async function checkZaak(b: Besluiten, url: string, besluittype: Stored<BesluitTypeLink>, historie: boolean): Promise<void> {
  const zaken = b.api.deps.components.zaken;
  let zaak: object;
  if (zaken?.zaken.uuidOf(url)) {
    const local = await zaken.zaken.byUrl(url);
    if (!local) throw ZgwError.field('zaak', 'bad-url', `De zaak ${url} bestaat niet.`);
    zaak = local;
  } else {
    const { error, body } = await b.refs.remoteObject('zaak', url, hasKeys('zaaktype', 'bronorganisatie'));
    if (error || !body) throw ZgwError.validation([error!]);
    zaak = body;
  }
  // (history: the zaaktype may have dropped the besluittype since)
  if (!historie && !(await zaaktypeKnows(b, String(fieldOf(zaak, 'zaaktype')), besluittype))) {
    throw nonField('zaaktype-mismatch', 'Het besluittype hoort niet bij het zaaktype van de zaak.');
  }
}

/**
 * Whether the zaaktype lists the besluittype: one of our zaaktypen names its besluittypen by omschrijving within its
 * catalogus (the 1.3 history model), another Catalogi API's lists their URLs.
 */
async function zaaktypeKnows(b: Besluiten, zaaktypeUrl: string, besluittype: Stored<BesluitTypeLink>): Promise<boolean> {
  const zaaktypen = b.catalogi.zaaktypen;
  if (zaaktypen.uuidOf(zaaktypeUrl)) {
    const zaaktype = await b.catalogi.api.cached(`doc:${zaaktypeUrl}`, async () => (await zaaktypen.byUrl(zaaktypeUrl)) ?? null);
    return (
      !!zaaktype &&
      zaaktype.catalogus === besluittype.catalogus &&
      ((zaaktype.besluittypen as string[] | undefined) ?? []).includes(String(besluittype.omschrijving))
    );
  }
  const { status, body } = await b.api.deps.fetchJson(zaaktypeUrl);
  const listed = status === 200 && body && typeof body === 'object' ? fieldOf(body, 'besluittypen') : undefined;
  return Array.isArray(listed) && listed.includes(b.catalogi.besluittypen.url(besluittype._id));
}

/** A closed zaak of this platform changes only with zaken.geforceerd-bijwerken (zrc-007), also through its besluiten. */
async function mustMayChangeZaak(b: Besluiten, caller: Caller, zaakUrl: unknown): Promise<void> {
  if (!isLocalZaak(b, zaakUrl)) return;
  const zaak = await b.api.deps.components.zaken!.zaken.byUrl(String(zaakUrl));
  if (zaak) mustMayChangeClosed(caller, zaak);
}

const NIET_UNIEK: InvalidParam = {
  name: 'identificatie',
  code: 'identificatie-niet-uniek',
  reason: 'Deze identificatie bestaat al voor deze verantwoordelijke organisatie.',
};

async function mustBeUnique(b: Besluiten, doc: BesluitDoc): Promise<void> {
  const taken = await b.besluiten.store.findOne({ verantwoordelijkeOrganisatie: doc.verantwoordelijkeOrganisatie, identificatie: doc.identificatie });
  if (taken) throw ZgwError.validation([NIET_UNIEK]);
}

/**
 * The create: a besluit without an identificatie gets the next `BESLUIT-<year>-<number>` of its
 * verantwoordelijkeOrganisatie (brc-002), passing over numbers clients took by hand; one taken meanwhile by a
 * concurrent create is `identificatie-niet-uniek` (the unique index decides).
 */
function registerCreate(b: Besluiten, besluiten: Resource<BesluitDoc>): void {
  b.api.route({
    method: 'POST',
    path: '/besluiten',
    operationId: 'besluit_create',
    summary: 'Maak een BESLUIT aan.',
    scopes: [AANMAKEN],
    body: BesluitInput,
    response: Besluit,
    handler: async ({ req, caller, body }) => {
      const ctx = besluiten.ctx(caller, randomUUID(), req);
      const doc = await prepare(b, body, ctx);
      try {
        return await besluiten.toApi(await besluiten.insert(doc, ctx), undefined, req);
      } catch (err) {
        if ((err as { code?: number }).code === 11000) throw ZgwError.validation([NIET_UNIEK]);
        throw err;
      }
    },
  });
}

async function nextIdentificatie(b: Besluiten, doc: BesluitDoc): Promise<string> {
  for (;;) {
    const identificatie = await b.identificaties.next(doc.verantwoordelijkeOrganisatie, doc.datum);
    if (!(await b.besluiten.store.findOne({ verantwoordelijkeOrganisatie: doc.verantwoordelijkeOrganisatie, identificatie }))) return identificatie;
  }
}

// ---------------------------------------------------------------- links kept in step

/** The zaak's besluiten follow the besluit's `zaak`: added under a new zaak, removed from the one it left. */
async function keepZaakInStep(b: Besluiten, stored: Stored<BesluitDoc>, caller: Caller, previous?: Stored<BesluitDoc>): Promise<void> {
  const zaken = b.api.deps.components.zaken;
  if (!zaken) return;
  const url = b.besluiten.url(stored._id);
  if (previous?.zaak && previous.zaak !== stored.zaak && isLocalZaak(b, previous.zaak)) await zaken.besluitLinks.unlink(previous.zaak, url, caller);
  if (isLocalZaak(b, stored.zaak)) await zaken.besluitLinks.link(stored.zaak, url, caller);
  // (a new besluit: no zaakobject points at it yet)
  if (previous) await zaken.besluitLinks.gewijzigd(url, caller);
}

/**
 * Deleting a besluit deletes its besluitinformatieobjecten (brc-008) with their objectinformatieobjecten, and takes
 * it from its zaak's besluiten.
 */
async function removeParts(b: Besluiten, besluit: Stored<BesluitDoc>, ctx: WriteContext): Promise<void> {
  const url = b.besluiten.url(besluit._id);
  const bios = b.besluitinformatieobjecten;
  for (const bio of await bios.store.find({ besluit: url })) {
    if (await bios.destroy(bio, bios.ctx(ctx.caller, bio._id))) await unlinkDocument(b, bio, ctx.caller);
  }
  const zaken = b.api.deps.components.zaken;
  if (isLocalZaak(b, besluit.zaak)) await zaken!.besluitLinks.unlink(besluit.zaak, url, ctx.caller);
  await zaken?.besluitLinks.gewijzigd(url, ctx.caller);
}
