import type { Document, Filter } from 'mongodb';
import type { z as zod } from 'zod';
import { ZgwError } from '../../common/http/errors';
import { live, readAll, type Stored } from '../../common/storage/store';
import type { Resource } from '../../common/platform/resource';
import { invalidParams } from '../../common/http/validation';
import { BIJWERKEN, GEFORCEERD, PART_LINKS, READ, UPDATE, nonField, type RollenRead, type Zaken } from './context';
import { betrokkeneIdentificatie, objectIdentificatieIn, type BetrokkeneType } from './identificaties';
import { registerPart } from './parts';
import { fieldOf } from '../../common/resources/expand';
import {
  PERSON_OBJECT_TYPES,
  V17,
  ZaakObjectDeclared17,
  Rol,
  RolDeclared,
  RolInput,
  RolQuery,
  ZaakObject,
  ZaakObjectDeclared,
  ZaakObjectInput,
  ZaakObjectQuery,
  type RolDoc,
  type ZaakObjectDoc,
} from './schemas';
import type { Pii } from '@zgw/shared';
import { PII_FIELDS, PII_HASHES, openPii, piiCondition, piiHashes, sealPii } from '../../common/resources/pii-fields';

/** `betrokkeneIdentificatie__natuurlijkPersoon__inpBsn` and friends: query name -> (betrokkeneType, stored field). */
export const IDENTIFICATIE_FILTERS: Record<string, [BetrokkeneType, string]> = {
  natuurlijkPersoon__inpBsn: ['natuurlijk_persoon', 'inpBsn'],
  natuurlijkPersoon__anpIdentificatie: ['natuurlijk_persoon', 'anpIdentificatie'],
  natuurlijkPersoon__inpA_nummer: ['natuurlijk_persoon', 'inpA_nummer'],
  nietNatuurlijkPersoon__innNnpId: ['niet_natuurlijk_persoon', 'innNnpId'],
  nietNatuurlijkPersoon__annIdentificatie: ['niet_natuurlijk_persoon', 'annIdentificatie'],
  vestiging__vestigingsNummer: ['vestiging', 'vestigingsNummer'],
  organisatorischeEenheid__identificatie: ['organisatorische_eenheid', 'identificatie'],
  medewerker__identificatie: ['medewerker', 'identificatie'],
};

/** The rollen condition of a query whose rol filters carry `prefix` (`rol__` on /zaken, none on /rollen). */
export function rolFilter(pii: Pii, q: object, prefix: string): Filter<Document> | undefined {
  const f: Filter<Document> = {};
  const sealed: Filter<Document>[] = [];
  const get = (k: string) => fieldOf(q, `${prefix}${k}`);
  if (get('betrokkeneType')) f.betrokkeneType = get('betrokkeneType');
  if (get('betrokkene')) f.betrokkene = get('betrokkene');
  if (get('omschrijvingGeneriek')) f.omschrijvingGeneriek = get('omschrijvingGeneriek');
  for (const [name, [type, field]] of Object.entries(IDENTIFICATIE_FILTERS)) {
    const v = get(`betrokkeneIdentificatie__${name}`);
    if (v === undefined || v === '') continue;
    f.betrokkeneType = type;
    // a natural person's identifiers are sealed at rest: looked up by their search hashes
    if (PII_FIELDS.has(field)) sealed.push(piiCondition(pii, field, String(v)));
    else f[`betrokkeneIdentificatie.${field}`] = v;
  }
  const ors = sealed.filter((c) => c.$or);
  for (const c of sealed) if (!c.$or) Object.assign(f, c);
  if (ors.length) f.$and = ors;
  return Object.keys(f).length ? f : undefined;
}

export function rolFilterOfZaakQuery(pii: Pii, q: object): Filter<Document> | undefined {
  return rolFilter(pii, q, 'rol__');
}

/**
 * The uuids of the zaken with a rol that matches `filter` (rolFilterOfZaakQuery). A natural person's identifier (its
 * search hash under one key, plain fields beside it: a `_zoek` by BSN) is read as `Store.findBy` reads, together with
 * the same reads of concurrent requests, and the rollen found go into `read`; any other filter is a query of its own
 * for the zaak uuids alone.
 */
export async function zakenWithRol(z: Zaken, filter: Filter<Document>, read?: RollenRead): Promise<string[]> {
  const fields = Object.entries(filter);
  const plain = fields.every(([k, v]) => !k.startsWith('$') && typeof v === 'string');
  const hashes = plain ? fields.filter(([k]) => k.startsWith(`${PII_HASHES}.`)) : [];
  const [field, hash] = hashes.length === 1 ? hashes[0]! : [];
  const whole = field !== undefined;
  const rollen: Document[] = whole
    ? await z.rollen.store.findBy(field, String(hash), Object.fromEntries(fields.filter(([k]) => k !== field)) as Record<string, string>)
    : await readAll(z.rollen.store.raw.find(live(filter), { projection: { _zaakUuid: 1 } }));
  if (whole) for (const rol of rollen) read?.set(String(rol._id), rol as Stored<RolDoc>);
  return [...new Set(rollen.map((r) => String(r._zaakUuid)))];
}

/**
 * Validates an identificatie against the schema of its type; field names carry the identificatie's own name. A type
 * without an identificatie in the standard (a besluit, enkelvoudig_document or status zaakobject) keeps none.
 */
function parseIdentificatie(schema: zod.ZodType | undefined, name: string, value: unknown): Identificatie | null {
  if (value === undefined || value === null || !schema) return null;
  const r = schema.safeParse(value);
  if (!r.success) {
    throw ZgwError.validation(invalidParams(r.error, value).map((p) => ({ ...p, name: p.name === 'nonFieldErrors' ? name : `${name}.${p.name}` })));
  }
  return r.data as Identificatie;
}

/** An identificatie as stored (betrokkeneIdentificatie, objectIdentificatie): an object of its type's schema. */
type Identificatie = NonNullable<RolDoc['betrokkeneIdentificatie']>;

export function registerRollen(z: Zaken): Resource<RolDoc> {
  return registerPart<RolDoc, zod.output<typeof RolQuery>>(z, {
    in17: 'Rol',
    collection: 'rollen',
    resource: 'rol',
    declared: RolDeclared,
    schema: Rol,
    input: RolInput,
    query: RolQuery,
    scopes: { read: READ, create: UPDATE, update: UPDATE, destroy: UPDATE },
    operations: ['list', 'create', 'read', 'destroy'],
    link: PART_LINKS.rollen,
    defaults: { betrokkene: '', afwijkendeNaamBetrokkene: '', indicatieMachtiging: '', contactpersoonRol: null, betrokkeneIdentificatie: null },
    exact: ['roltype', 'omschrijving'],
    filter: (q) => rolFilter(z.api.deps.pii, q, '') ?? {},
    rules: async (doc, zaak) => {
      const roltype = await z.refs.mustCatalogus('roltypen', 'roltype', doc.roltype);
      if (roltype.zaaktype !== zaak.zaaktype) throw nonField('zaaktype-mismatch', 'Het roltype hoort niet bij het zaaktype van de zaak.');
      if (!doc.betrokkene && !doc.betrokkeneIdentificatie) {
        throw nonField('invalid-betrokkene', 'Geef betrokkene (een URL) of betrokkeneIdentificatie op.');
      }
      const schema = betrokkeneIdentificatie[doc.betrokkeneType];
      const identificatie = parseIdentificatie(schema, 'betrokkeneIdentificatie', doc.betrokkeneIdentificatie);
      return {
        ...doc,
        betrokkeneIdentificatie: sealPii(z.api.deps.pii, identificatie),
        [PII_HASHES]: piiHashes(z.api.deps.pii, identificatie),
        omschrijving: String(roltype.omschrijving),
        omschrijvingGeneriek: String(roltype.omschrijvingGeneriek),
        registratiedatum: new Date().toISOString(),
      };
    },
    render: (doc) => ({
      uuid: doc._id,
      statussen: (doc._statussen ?? []).map((id) => z.statussen.url(id)),
      betrokkeneIdentificatie: openPii(z.api.deps.pii, doc.betrokkeneIdentificatie),
    }),
  });
}

export function registerZaakobjecten(z: Zaken): Resource<ZaakObjectDoc> {
  return registerPart<ZaakObjectDoc, zod.output<typeof ZaakObjectQuery>>(z, {
    in17: 'ZaakObject',
    declared17: ZaakObjectDeclared17,
    collection: 'zaakobjecten',
    resource: 'zaakobject',
    declared: ZaakObjectDeclared,
    schema: ZaakObject,
    input: ZaakObjectInput,
    query: ZaakObjectQuery,
    scopes: { read: READ, create: ['zaken.aanmaken', BIJWERKEN, GEFORCEERD], update: UPDATE, destroy: [BIJWERKEN, GEFORCEERD, 'zaken.verwijderen'] },
    operations: ['list', 'create', 'read', 'update', 'partial_update', 'destroy'],
    auditHeaders: ['create'],
    link: PART_LINKS.zaakobjecten,
    // (afleidingswijze zaakobject: a closed zaak's archiving follows its zaakobjecten, see herberekenen.ts)
    archiefbron: true,
    defaults: {
      object: '',
      zaakobjecttype: '',
      objectTypeOverige: '',
      objectTypeOverigeDefinitie: null,
      relatieomschrijving: '',
      objectIdentificatie: null,
    },
    exact: ['object', 'objectType'],
    rules: async (doc, zaak) => {
      // Stored exactly as sent: overigeData may hold identical entries (no set semantics anywhere).
      // (an update's current objectIdentificatie comes sealed: opened, it is checked like a new one)
      // A person's identificatie may come as `betrokkeneIdentificatie`, as the 1.6 and 1.7 files name it.
      const { betrokkeneIdentificatie: asBetrokkene, ...rest } = doc;
      const given = doc.objectIdentificatie ?? (PERSON_OBJECT_TYPES.has(doc.objectType) ? asBetrokkene : undefined);
      const identificatie = parseIdentificatie(
        objectIdentificatieIn[doc.objectType],
        doc.objectIdentificatie ? 'objectIdentificatie' : 'betrokkeneIdentificatie',
        openPii(z.api.deps.pii, given),
      );
      if (!doc.object && !identificatie) throw nonField('invalid-zaakobject', 'Geef object (een URL) of objectIdentificatie op.');
      if (doc.objectType === 'overige' && !doc.objectTypeOverige && !doc.objectTypeOverigeDefinitie) {
        throw ZgwError.field('objectTypeOverige', 'required', 'Bij objectType "overige" hoort objectTypeOverige of objectTypeOverigeDefinitie.');
      }
      if (doc.zaakobjecttype) {
        const zot = await z.refs.mustCatalogus('zaakobjecttypen', 'zaakobjecttype', doc.zaakobjecttype);
        if (zot.zaaktype !== zaak.zaaktype) throw nonField('zaaktype-mismatch', 'Het zaakobjecttype hoort niet bij het zaaktype van de zaak.');
      }
      return {
        ...rest,
        objectIdentificatie: sealPii(z.api.deps.pii, identificatie),
        [PII_HASHES]: piiHashes(z.api.deps.pii, identificatie),
      };
    },
    render: (doc, _url, _query, req) => {
      const objectIdentificatie = openPii(z.api.deps.pii, doc.objectIdentificatie);
      // 1.7 answers a person's identificatie under both names (see PERSON_OBJECT_TYPES).
      const asBetrokkene =
        PERSON_OBJECT_TYPES.has(doc.objectType) && z.api.versionFor(req) === V17 ? { betrokkeneIdentificatie: objectIdentificatie } : {};
      return { uuid: doc._id, objectIdentificatie, ...asBetrokkene };
    },
  });
}
