import { fieldOf } from '../../common/resources/expand';
import type { AnyQuery, Resource, WriteContext } from '../../common/platform/resource';
import { ZgwError } from '../../common/http/errors';
import { BIJWERKEN, GEFORCEERD, PART_LINKS, READ, UPDATE, nonField, type Zaken } from './context';
import { registerPart } from './parts';
import { hasKeys } from '../../common/platform/references';
import {
  KlantContact,
  KlantContactInput,
  ZaakContactMoment,
  ZaakContactMomentInput,
  ZaakContactMomentQuery,
  ZaakInformatieObject,
  ZaakInformatieObjectInput,
  ZaakInformatieObjectQuery,
  ZaakQueryOnly,
  ZaakVerzoek,
  ZaakVerzoekInput,
  ZaakVerzoekQuery,
  type KlantContactDoc,
  type ZaakContactMomentDoc,
  type ZaakDoc,
  type ZaakInformatieObjectDoc,
  type ZaakPartDoc,
  type ZaakVerzoekDoc,
} from './schemas';
import type { z as zod } from 'zod';

/** An informatieobject of a Documenten API: an object with these fields (ours read in-process, others fetched). */
const isInformatieobject = hasKeys('informatieobjecttype', 'titel', 'bronorganisatie');

export function registerZaakinformatieobjecten(z: Zaken): Resource<ZaakInformatieObjectDoc> {
  return registerPart<ZaakInformatieObjectDoc, zod.output<typeof ZaakInformatieObjectQuery>>(z, {
    in17: 'ZaakInformatieObject',
    collection: 'zaakinformatieobjecten',
    resource: 'zaakinformatieobject',
    schema: ZaakInformatieObject,
    input: ZaakInformatieObjectInput,
    query: ZaakInformatieObjectQuery,
    scopes: { read: READ, create: ['zaken.aanmaken', BIJWERKEN, GEFORCEERD], update: UPDATE, destroy: [BIJWERKEN, GEFORCEERD, 'zaken.verwijderen'] },
    operations: ['list', 'create', 'read', 'update', 'partial_update', 'destroy'],
    plainList: true,
    link: PART_LINKS.zaakinformatieobjecten,
    immutable: ['informatieobject'],
    defaults: { titel: '', beschrijving: '', vernietigingsdatum: null, status: null },
    exact: ['informatieobject'],
    rules: async (doc, zaak, ctx, current) => {
      if (!current) {
        const { status, body } = await z.refs.informatieobject(doc.informatieobject);
        if (status !== 200) throw ZgwError.field('informatieobject', 'bad-url', `${doc.informatieobject} gaf status ${status || 'geen antwoord'}.`);
        if (!body || typeof body !== 'object' || !isInformatieobject(body)) {
          throw ZgwError.field('informatieobject', 'invalid-resource', `${doc.informatieobject} is geen informatieobject.`);
        }
        // (history: the zaaktype may have dropped the document's type since)
        if (!ctx.historie) await mustBeAllowedType(z, zaak, String(fieldOf(body, 'informatieobjecttype')));
      }
      if (doc.status) {
        const status = await z.statussen.byUrl(doc.status);
        if (!status || status.zaak !== doc.zaak) throw ZgwError.field('status', 'bad-url', 'status moet een status van deze zaak zijn.');
      }
      return {
        ...doc,
        aardRelatieWeergave: 'Hoort bij, omgekeerd: kent',
        registratiedatum: current?.registratiedatum ?? new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      };
    },
    afterWrite: async (stored, _zaak, ctx, previous) => {
      const statusId = stored.status ? z.statussen.uuidOf(stored.status) : undefined;
      if (statusId) await z.statussen.store.followUp({ _id: statusId }, { $addToSet: { _zaakinformatieobjecten: stored._id } });
      // A document of this platform records the link as its objectinformatieobject.
      if (!previous) await z.api.deps.components.documenten?.link(stored.informatieobject, stored.zaak, 'zaak', ctx.caller);
    },
    afterDestroy: (current, ctx) => unlinkDocument(z, current, ctx),
    render: (doc) => ({ uuid: doc._id }),
  });
}

/** Removes the objectinformatieobject of a zaakinformatieobject that goes (when the document is one of ours). */
export async function unlinkDocument(z: Zaken, zio: ZaakInformatieObjectDoc, ctx: WriteContext): Promise<void> {
  await z.api.deps.components.documenten?.unlink(zio.informatieobject, zio.zaak, ctx.caller);
}

/**
 * zrc-017: the document's informatieobjecttype must be one of the zaak's zaaktype. The zaaktype names them by
 * omschrijving; the zaak counts the versions valid on its startdatum (the Catalogi resolver, as a zaaktype GET with
 * that datumGeldigheid shows them).
 */
async function mustBeAllowedType(z: Zaken, zaak: ZaakDoc, informatieobjecttype: string): Promise<void> {
  const c = z.catalogi;
  const datum = zaak.startdatum;
  const allowed = await c.api.cached(`zaaktype-iots:${zaak.zaaktype}:${datum}`, () => c.informatieobjecttypenOn(zaak.zaaktype, datum));
  if (!allowed.includes(informatieobjecttype)) {
    throw nonField(
      'missing-zaaktype-informatieobjecttype-relation',
      'Het informatieobjecttype van het document hoort niet bij het zaaktype van de zaak.',
    );
  }
}

export function registerKlantcontacten(z: Zaken): Resource<KlantContactDoc> {
  return registerPart<KlantContactDoc, zod.output<typeof ZaakQueryOnly>>(z, {
    collection: 'klantcontacten',
    resource: 'klantcontact',
    schema: KlantContact,
    input: KlantContactInput,
    query: ZaakQueryOnly,
    scopes: { read: READ, create: UPDATE, update: UPDATE, destroy: UPDATE },
    operations: ['list', 'create', 'read'],
    head: false,
    defaults: { kanaal: '', onderwerp: '', toelichting: '' },
    rules: async (doc, zaak, ctx) => ({ ...doc, identificatie: doc.identificatie || `KC-${ctx.uuid.slice(0, 8).toUpperCase()}` }),
    render: (doc) => ({ uuid: doc._id }),
  });
}

/** zaakcontactmomenten and zaakverzoeken: a link from a zaak to an object of another registration. */
function registerKoppeling<D extends ZaakPartDoc, Q extends AnyQuery>(
  z: Zaken,
  collection: string,
  resource: string,
  field: keyof D & keyof Q & string,
  schemas: { schema: zod.ZodType; input: zod.ZodObject; query: zod.ZodObject & zod.ZodType<Q> },
): Resource<D> {
  return registerPart<D, Q>(z, {
    collection,
    resource,
    ...schemas,
    scopes: { read: READ, create: [BIJWERKEN], update: [BIJWERKEN], destroy: [BIJWERKEN] },
    operations: ['list', 'create', 'read', 'destroy'],
    head: false,
    plainList: true,
    exact: [field],
    rules: async (doc, _zaak, ctx) => {
      // (history: the other registration may have moved or closed since)
      if (ctx.historie) return doc;
      const error = await z.refs.remote(field, String(fieldOf(doc, field)), hasKeys('url'));
      if (error) throw ZgwError.validation([error]);
      return doc;
    },
    render: (doc) => ({ uuid: doc._id }),
  });
}

export function registerZaakcontactmomenten(z: Zaken): Resource<ZaakContactMomentDoc> {
  return registerKoppeling<ZaakContactMomentDoc, zod.output<typeof ZaakContactMomentQuery>>(
    z,
    'zaakcontactmomenten',
    'zaakcontactmoment',
    'contactmoment',
    {
      schema: ZaakContactMoment,
      input: ZaakContactMomentInput,
      query: ZaakContactMomentQuery,
    },
  );
}

export function registerZaakverzoeken(z: Zaken): Resource<ZaakVerzoekDoc> {
  return registerKoppeling<ZaakVerzoekDoc, zod.output<typeof ZaakVerzoekQuery>>(z, 'zaakverzoeken', 'zaakverzoek', 'verzoek', {
    schema: ZaakVerzoek,
    input: ZaakVerzoekInput,
    query: ZaakVerzoekQuery,
  });
}
