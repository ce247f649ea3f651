import { z } from 'zod';
import { borrowed, expandedOf, lend, toOne } from '../../common/resources/embedded';
import { fieldsParam } from '../../common/resources/fields';
import { VERTROUWELIJKHEID, booleanParam, choiceOf, date, dateTime, url, type StoredFields } from '../../common/resources/schema-parts';
import {
  BETROKKENE_TYPEN,
  ContactPersoonRol,
  GeoWithin,
  Geometry,
  OBJECT_TYPEN,
  ObjectTypeOverigeDefinitie,
  betrokkeneIdentificatie,
  objectIdentificatie,
  objectIdentificatie17,
} from './identificaties';

/**
 * Zaken API 1.5.1 resources. As in Catalogi: an input schema per resource with only the writable fields (its
 * partial is the PATCH body) and an output schema for the OpenAPI document. Read-only and derived fields are
 * set by the resource's rules.
 */

export { VERTROUWELIJKHEID, date, dateTime, url };

const text = (max: number) => z.string().max(max);
const rsin = z.string().regex(/^\d{9}$/, { message: 'Een RSIN bestaat uit 9 cijfers.' });
const duration = z.string().regex(/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/, {
  message: 'Ongeldige duur: gebruik ISO 8601, bijvoorbeeld P10D.',
});

export const ARCHIEFNOMINATIE = z.enum(['blijvend_bewaren', 'vernietigen']);
export const ARCHIEFSTATUS = z.enum(['nog_te_archiveren', 'gearchiveerd', 'gearchiveerd_procestermijn_onbekend', 'overgedragen']);
export const BETALINGSINDICATIE = z.enum(['nvt', 'nog_niet', 'gedeeltelijk', 'geheel']);
export const BETROKKENE_TYPE = z.enum(BETROKKENE_TYPEN);
export const OBJECT_TYPE = z.enum(OBJECT_TYPEN);
export const ROL_OMSCHRIJVING_GENERIEK = z.enum([
  'adviseur',
  'behandelaar',
  'belanghebbende',
  'beslisser',
  'initiator',
  'klantcontacter',
  'zaakcoordinator',
  'mede_initiator',
]);
export const ORDERING = ['startdatum', 'einddatum', 'publicatiedatum', 'archiefactiedatum', 'registratiedatum', 'identificatie'] as const;
/** The standard's file names the first four; the list also orders by registratiedatum and identificatie. */
export const ORDERING_ENUM = choiceOf(ORDERING.flatMap((f) => [f, `-${f}`]) as [string, ...string[]], {
  enum: ORDERING.slice(0, 4).flatMap((f) => [f, `-${f}`]),
});

// ---------------------------------------------------------------- Zaak

const RelevanteZaak = z.object({ url, aardRelatie: z.enum(['vervolg', 'onderwerp', 'bijdrage']) }).meta({ id: 'RelevanteZaak' });
const ZaakKenmerk = z.object({ kenmerk: text(40), bron: text(40) }).meta({ id: 'ZaakKenmerk' });
const Verlenging = z.object({ reden: text(200), duur: duration }).meta({ id: 'Verlenging' });
const Opschorting = z.object({ indicatie: z.boolean(), reden: text(200) }).meta({ id: 'Opschorting' });
const Processobject = z
  .object({ datumkenmerk: text(250), identificatie: text(250), objecttype: text(250), registratie: text(250) })
  .meta({ id: 'Processobject' });

export const ZaakInput = z
  .object({
    identificatie: text(40).optional(),
    bronorganisatie: rsin,
    omschrijving: text(80).optional(),
    toelichting: text(1000).optional(),
    zaaktype: url,
    registratiedatum: date.optional(),
    verantwoordelijkeOrganisatie: rsin,
    startdatum: date,
    einddatumGepland: date.nullable().optional(),
    uiterlijkeEinddatumAfdoening: date.nullable().optional(),
    publicatiedatum: date.nullable().optional(),
    communicatiekanaal: z.union([z.literal(''), url]).optional(),
    productenOfDiensten: z.array(url).optional(),
    vertrouwelijkheidaanduiding: VERTROUWELIJKHEID.optional(),
    betalingsindicatie: z.union([BETALINGSINDICATIE, z.literal('')]).optional(),
    laatsteBetaaldatum: dateTime.nullable().optional(),
    zaakgeometrie: Geometry.nullable().optional(),
    verlenging: Verlenging.nullable().optional(),
    opschorting: Opschorting.nullable().optional(),
    selectielijstklasse: z.union([z.literal(''), url]).optional(),
    hoofdzaak: url.nullable().optional(),
    relevanteAndereZaken: z.array(RelevanteZaak).optional(),
    kenmerken: z.array(ZaakKenmerk).optional(),
    archiefnominatie: z
      .union([ARCHIEFNOMINATIE, z.literal('')])
      .nullable()
      .optional(),
    archiefstatus: ARCHIEFSTATUS.optional(),
    archiefactiedatum: date.nullable().optional(),
    opdrachtgevendeOrganisatie: text(9).optional(),
    processobjectaard: text(200).nullable().optional(),
    startdatumBewaartermijn: date.nullable().optional(),
    processobject: Processobject.nullable().optional(),
  })
  .meta({ id: 'ZaakRequest' });

export const Zaak = ZaakInput.extend({
  url,
  uuid: z.uuid(),
  identificatie: z.string(),
  einddatum: date.nullable(),
  betalingsindicatieWeergave: z.string(),
  deelzaken: z.array(url),
  eigenschappen: z.array(url),
  rollen: z.array(url),
  status: url.nullable(),
  zaakinformatieobjecten: z.array(url),
  zaakobjecten: z.array(url),
  resultaat: url.nullable(),
  _expand: z.record(z.string(), z.unknown()).optional(),
}).meta({ id: 'Zaak' });

/** A legal hold on a zaak (bewaring.ts): its reason, who set it (client id, and as shown) and when. */
export interface Bewaring {
  reden: string;
  door: string;
  doorWeergave: string;
  sinds: Date;
}

/**
 * A zaak as stored: its links to its parts as uuids (see PART_LINKS; `_status` and `_resultaat` its current ones),
 * from which a read makes their URLs, and the rank of its vertrouwelijkheidaanduiding (see ZAAK_AUTH_FIELDS).
 */
export type ZaakDoc = StoredFields<
  typeof Zaak,
  | 'uuid'
  | 'betalingsindicatieWeergave'
  | 'deelzaken'
  | 'eigenschappen'
  | 'rollen'
  | 'status'
  | 'zaakinformatieobjecten'
  | 'zaakobjecten'
  | 'resultaat'
> & {
  _vertrouwelijkheid: number;
  _rollen?: string[];
  _zaakobjecten?: string[];
  _eigenschappen?: string[];
  _zaakinformatieobjecten?: string[];
  _deelzaken?: string[];
  _status?: string | null;
  _resultaat?: string | null;
  /**
   * Set when the zaak is closed: its archiving fields that follow their sources (zrc-021, see archief.ts), recomputed
   * when a source changes; null while it is open.
   */
  _archief?: ('archiefnominatie' | 'archiefactiedatum' | 'startdatumBewaartermijn')[] | null;
  /** A legal hold, while there is one (bewaring.ts): its reason, who set it and when; never in the representation. */
  _bewaring?: Bewaring;
  /** When the hold was set (the key the zaken on hold are listed by); absent when the zaak is not on hold. */
  _bewaardSinds?: Date;
};

/**
 * What every part of a zaak carries of its zaak: its zaaktype and the rank of its vertrouwelijkheidaanduiding (see
 * PART_AUTH_FIELDS), its uuid, and its bronorganisatie (for the part's notifications).
 */
export type ZaakPartFacts = { _zaaktype: string; _vertrouwelijkheid: number; _zaakUuid: string; _bronorganisatie: string };
/** What every part of a zaak has. */
export type ZaakPartDoc = { zaak: string } & ZaakPartFacts;
/** A part as stored, from the schema it is served by (its `uuid` is the `_id`; `Computed` fields made at read time). */
type PartOf<S extends z.ZodType, Computed extends PropertyKey = never> = StoredFields<S, 'uuid' | Computed> & ZaakPartFacts;

/** A filter on a URL field (`format: uri` in the standard): anything else is a 400 naming the parameter. */
const urlFilter = z.url().optional();
/** A boolean query parameter, as Django's filters take it. */
const ISNULL = booleanParam;
/** A comma-separated `__in` parameter whose every value is one of `values`. */
const csvOf = (values: readonly string[]) =>
  z.string().refine((v) => v.split(',').every((x) => x.trim() === '' || values.includes(x.trim())), { message: `Kies uit: ${values.join(', ')}.` });

/** The list filters of GET /zaken (query strings) — `_zoek` takes the same names in its body. */
const ZAAK_FILTERS = {
  identificatie: z.string().optional(),
  bronorganisatie: z.string().optional(),
  bronorganisatie__in: z.string().optional(),
  zaaktype: urlFilter,
  archiefnominatie: ARCHIEFNOMINATIE.optional(),
  archiefnominatie__in: csvOf(ARCHIEFNOMINATIE.options).optional(),
  archiefactiedatum: date.optional(),
  archiefactiedatum__lt: date.optional(),
  archiefactiedatum__gt: date.optional(),
  archiefactiedatum__isnull: ISNULL.optional(),
  archiefstatus: ARCHIEFSTATUS.optional(),
  archiefstatus__in: csvOf(ARCHIEFSTATUS.options).optional(),
  startdatum: date.optional(),
  startdatum__gt: date.optional(),
  startdatum__gte: date.optional(),
  startdatum__lt: date.optional(),
  startdatum__lte: date.optional(),
  registratiedatum: date.optional(),
  registratiedatum__gt: date.optional(),
  registratiedatum__lt: date.optional(),
  einddatum: date.optional(),
  einddatum__gt: date.optional(),
  einddatum__lt: date.optional(),
  einddatum__isnull: ISNULL.optional(),
  einddatumGepland: date.optional(),
  einddatumGepland__gt: date.optional(),
  einddatumGepland__lt: date.optional(),
  uiterlijkeEinddatumAfdoening: date.optional(),
  uiterlijkeEinddatumAfdoening__gt: date.optional(),
  uiterlijkeEinddatumAfdoening__lt: date.optional(),
  rol__betrokkeneType: BETROKKENE_TYPE.optional(),
  rol__betrokkene: urlFilter,
  rol__omschrijvingGeneriek: ROL_OMSCHRIJVING_GENERIEK.optional(),
  maximaleVertrouwelijkheidaanduiding: VERTROUWELIJKHEID.optional(),
  rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: z.string().max(9).optional(),
  rol__betrokkeneIdentificatie__natuurlijkPersoon__anpIdentificatie: z.string().max(17).optional(),
  rol__betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer: z.string().max(10).optional(),
  rol__betrokkeneIdentificatie__nietNatuurlijkPersoon__innNnpId: z.string().optional(),
  rol__betrokkeneIdentificatie__nietNatuurlijkPersoon__annIdentificatie: z.string().max(17).optional(),
  rol__betrokkeneIdentificatie__vestiging__vestigingsNummer: z.string().max(24).optional(),
  rol__betrokkeneIdentificatie__medewerker__identificatie: z.string().max(24).optional(),
  rol__betrokkeneIdentificatie__organisatorischeEenheid__identificatie: z.string().optional(),
  ordering: ORDERING_ENUM.optional(),
  expand: z.string().optional(),
};

export const ZaakQuery = z.object(ZAAK_FILTERS);

/** The `_zoek` body: the list filters (lists as arrays instead of comma-separated), uuid__in, zaaktype__in, geometry. */
export const ZaakZoek = z
  .object({
    ...ZAAK_FILTERS,
    bronorganisatie__in: z.array(z.string()).optional(),
    archiefnominatie__in: z.array(ARCHIEFNOMINATIE).optional(),
    archiefstatus__in: z.array(ARCHIEFSTATUS).optional(),
    archiefactiedatum__isnull: z.boolean().optional(),
    einddatum__isnull: z.boolean().optional(),
    uuid__in: z.array(z.uuid()).optional(),
    zaaktype__in: z.array(url).optional(),
    zaakgeometrie: GeoWithin.optional(),
  })
  .meta({ id: 'ZaakZoek' });

export const ZaakReadQuery = z.object({ expand: z.string().optional() });

// ---------------------------------------------------------------- Status

export const StatusInput = z
  .object({
    zaak: url,
    statustype: url,
    datumStatusGezet: dateTime,
    statustoelichting: text(1000).optional(),
    gezetdoor: z.union([z.literal(''), z.url().max(200)]).optional(),
  })
  .meta({ id: 'StatusRequest' });

export const Status = StatusInput.extend({
  url,
  uuid: z.uuid(),
  indicatieLaatstGezetteStatus: z.boolean(),
  zaakinformatieobjecten: z.array(url),
}).meta({ id: 'Status' });

/** `_eind`: whether its statustype is the zaaktype's last; `_zaakinformatieobjecten`: the documents given with it. */
export type StatusDoc = PartOf<typeof Status, 'zaakinformatieobjecten'> & { _eind: boolean; _zaakinformatieobjecten?: string[] };

export const StatusQuery = z.object({
  zaak: urlFilter,
  statustype: urlFilter,
  indicatieLaatstGezetteStatus: choiceOf(['true', 'false'], { type: 'boolean' }).optional(),
});

// ---------------------------------------------------------------- Resultaat

export const ResultaatInput = z.object({ zaak: url, resultaattype: url, toelichting: text(1000).optional() }).meta({ id: 'ResultaatRequest' });
export const Resultaat = ResultaatInput.extend({ url, uuid: z.uuid() }).meta({ id: 'Resultaat' });
export type ResultaatDoc = PartOf<typeof Resultaat>;
export const ResultaatQuery = z.object({ zaak: urlFilter, resultaattype: urlFilter });

// ---------------------------------------------------------------- Rol

export const RolInput = z
  .object({
    zaak: url,
    betrokkene: z.union([z.literal(''), url]).optional(),
    betrokkeneType: BETROKKENE_TYPE,
    afwijkendeNaamBetrokkene: text(625).optional(),
    roltype: url,
    roltoelichting: text(1000),
    indicatieMachtiging: z.union([z.enum(['gemachtigde', 'machtiginggever']), z.literal('')]).optional(),
    contactpersoonRol: ContactPersoonRol.nullable().optional(),
    /** Validated against the schema of its betrokkeneType by the rol rules. */
    betrokkeneIdentificatie: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .meta({ id: 'RolRequest' });

export const Rol = RolInput.extend({
  url,
  uuid: z.uuid(),
  omschrijving: z.string(),
  omschrijvingGeneriek: z.string(),
  registratiedatum: z.string(),
  statussen: z.array(url),
}).meta({ id: 'Rol' });

/**
 * Rol as the document shows it: the betrokkeneIdentificatie of each betrokkeneType, as the standard's file declares
 * them (the server validates the one the betrokkeneType names; see the rol rules).
 */
const declaredBetrokkene = { betrokkeneIdentificatie: z.union(Object.values(betrokkeneIdentificatie)).nullable().optional() };
export const RolDeclared = { input: RolInput.extend(declaredBetrokkene), schema: Rol.extend(declaredBetrokkene) };

/**
 * `_statussen`: the statussen it set (gezetdoor); `_pii`: the search hashes of its betrokkeneIdentificatie's sealed
 * identifiers (common/resources/pii-fields.ts).
 */
export type RolDoc = PartOf<typeof Rol, 'statussen'> & { _statussen?: string[]; _pii?: Record<string, string> };

export const RolQuery = z.object({
  zaak: urlFilter,
  betrokkene: urlFilter,
  betrokkeneType: BETROKKENE_TYPE.optional(),
  betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: z.string().max(9).optional(),
  betrokkeneIdentificatie__natuurlijkPersoon__anpIdentificatie: z.string().max(17).optional(),
  betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer: z.string().max(10).optional(),
  betrokkeneIdentificatie__nietNatuurlijkPersoon__innNnpId: z.string().optional(),
  betrokkeneIdentificatie__nietNatuurlijkPersoon__annIdentificatie: z.string().max(17).optional(),
  betrokkeneIdentificatie__vestiging__vestigingsNummer: z.string().max(24).optional(),
  betrokkeneIdentificatie__organisatorischeEenheid__identificatie: z.string().optional(),
  betrokkeneIdentificatie__medewerker__identificatie: z.string().max(24).optional(),
  roltype: urlFilter,
  omschrijving: z.string().optional(),
  omschrijvingGeneriek: ROL_OMSCHRIJVING_GENERIEK.optional(),
});

// ---------------------------------------------------------------- ZaakObject

export const ZaakObjectInput = z
  .object({
    zaak: url,
    object: z.union([z.literal(''), url]).optional(),
    zaakobjecttype: z.union([z.literal(''), url]).optional(),
    objectType: OBJECT_TYPE,
    // The standard's pattern `[a-z\_]+` with JSON Schema's semantics: unanchored, so "GlobaleLocatie" matches.
    objectTypeOverige: z
      .union([
        z.literal(''),
        z
          .string()
          .max(100)
          .regex(/[a-z_]/, { message: 'Bevat geen kleine letter of underscore (patroon [a-z_]+).' }),
      ])
      .optional(),
    objectTypeOverigeDefinitie: ObjectTypeOverigeDefinitie.nullable().optional(),
    relatieomschrijving: text(80).optional(),
    /** Validated against the schema of its objectType by the zaakobject rules. */
    objectIdentificatie: z.record(z.string(), z.unknown()).nullable().optional(),
    /** The 1.6 and 1.7 files' name of the objectIdentificatie of a person (see ZaakObjectDeclared17). */
    betrokkeneIdentificatie: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .meta({ id: 'ZaakObjectRequest' });

export const ZaakObject = ZaakObjectInput.extend({ url, uuid: z.uuid() }).meta({ id: 'ZaakObject' });
/** ZaakObject as the document shows it: the objectIdentificatie of each objectType (see RolDeclared). */
const declaredObject = {
  objectIdentificatie: z
    .union(Object.values(objectIdentificatie) as [z.ZodType, ...z.ZodType[]])
    .nullable()
    .optional(),
};
export const ZaakObjectDeclared = {
  input: ZaakObjectInput.omit({ betrokkeneIdentificatie: true }).extend(declaredObject),
  schema: ZaakObject.omit({ betrokkeneIdentificatie: true }).extend(declaredObject),
};
/**
 * As 1.7 declares it: an address's identificatie also as `aoaIdentificatie`, and the identificatie of a person
 * (natuurlijk_persoon, vestiging, medewerker, ...) as `betrokkeneIdentificatie`, as the 1.6 and 1.7 files name it. The
 * server takes either name for a person and answers both in 1.7 (PERSON_OBJECT_TYPES).
 */
export const PERSON_OBJECT_TYPES: ReadonlySet<string> = new Set(BETROKKENE_TYPEN);
const declaredObject17 = {
  objectIdentificatie: z
    .union(
      Object.entries(objectIdentificatie17)
        .filter(([type]) => !PERSON_OBJECT_TYPES.has(type))
        .map(([, schema]) => schema) as [z.ZodType, ...z.ZodType[]],
    )
    .nullable()
    .optional(),
  betrokkeneIdentificatie: declaredBetrokkene.betrokkeneIdentificatie,
};
export const ZaakObjectDeclared17 = {
  input: ZaakObjectInput.extend(declaredObject17).meta({ id: 'ZaakObjectRequest@1.7.0' }),
  schema: ZaakObject.extend(declaredObject17).meta({ id: 'ZaakObject@1.7.0' }),
};
/** `_pii`: the search hashes of its objectIdentificatie's sealed identifiers (also the mark that they are sealed). */
export type ZaakObjectDoc = PartOf<typeof ZaakObject> & { _pii?: Record<string, string> };
export const ZaakObjectQuery = z.object({ zaak: urlFilter, object: urlFilter, objectType: OBJECT_TYPE.optional() });

// ---------------------------------------------------------------- ZaakInformatieObject

export const ZaakInformatieObjectInput = z
  .object({
    informatieobject: url,
    zaak: url,
    titel: text(200).optional(),
    beschrijving: z.string().optional(),
    vernietigingsdatum: dateTime.nullable().optional(),
    status: url.nullable().optional(),
  })
  .meta({ id: 'ZaakInformatieObjectRequest' });

export const ZaakInformatieObject = ZaakInformatieObjectInput.extend({
  url,
  uuid: z.uuid(),
  aardRelatieWeergave: z.string(),
  registratiedatum: z.string(),
}).meta({ id: 'ZaakInformatieObject' });

export type ZaakInformatieObjectDoc = PartOf<typeof ZaakInformatieObject>;
export const ZaakInformatieObjectQuery = z.object({ zaak: urlFilter, informatieobject: urlFilter });

// ---------------------------------------------------------------- KlantContact, ZaakContactMoment, ZaakVerzoek

export const KlantContactInput = z
  .object({
    zaak: url,
    identificatie: text(14).optional(),
    datumtijd: dateTime,
    kanaal: text(20).optional(),
    onderwerp: text(200).optional(),
    toelichting: text(1000).optional(),
  })
  .meta({ id: 'KlantContactRequest' });
export const KlantContact = KlantContactInput.extend({ url, uuid: z.uuid(), identificatie: z.string() }).meta({ id: 'KlantContact' });
export type KlantContactDoc = PartOf<typeof KlantContact>;
export const ZaakQueryOnly = z.object({ zaak: urlFilter });

export const ZaakContactMomentInput = z.object({ zaak: url, contactmoment: url }).meta({ id: 'ZaakContactMomentRequest' });
export const ZaakContactMoment = ZaakContactMomentInput.extend({ url, uuid: z.uuid() }).meta({ id: 'ZaakContactMoment' });
export type ZaakContactMomentDoc = PartOf<typeof ZaakContactMoment>;
export const ZaakContactMomentQuery = z.object({ zaak: urlFilter, contactmoment: urlFilter });

export const ZaakVerzoekInput = z.object({ zaak: url, verzoek: url }).meta({ id: 'ZaakVerzoekRequest' });
export const ZaakVerzoek = ZaakVerzoekInput.extend({ url, uuid: z.uuid() }).meta({ id: 'ZaakVerzoek' });
export type ZaakVerzoekDoc = PartOf<typeof ZaakVerzoek>;
export const ZaakVerzoekQuery = z.object({ zaak: urlFilter, verzoek: urlFilter });

// ---------------------------------------------------------------- nested under a zaak: zaakeigenschappen, besluiten

export const ZaakEigenschapInput = z.object({ zaak: url.optional(), eigenschap: url, waarde: z.string() }).meta({ id: 'ZaakEigenschapRequest' });
export const ZaakEigenschap = ZaakEigenschapInput.extend({ url, uuid: z.uuid(), zaak: url, naam: z.string() }).meta({ id: 'ZaakEigenschap' });

export const ZaakBesluitInput = z.object({ besluit: url }).meta({ id: 'ZaakBesluitRequest' });
export const ZaakBesluit = ZaakBesluitInput.extend({ url, uuid: z.uuid() }).meta({ id: 'ZaakBesluit' });

/** What a resource nested under a zaak carries of it besides the part facts: its vertrouwelijkheidaanduiding. */
export type NestedFacts = ZaakPartFacts & { _vertrouwelijkheidaanduiding?: string };
export type ZaakEigenschapDoc = StoredFields<typeof ZaakEigenschap, 'uuid'> & NestedFacts;
/** A zaakbesluit names its zaak by the path it hangs under (`zaak` is kept for the notifications). */
export type ZaakBesluitDoc = StoredFields<typeof ZaakBesluit, 'uuid'> & NestedFacts & { zaak: string };

export { AuditTrail } from '../../common/platform/audittrail';

// ---------------------------------------------------------------- Zaken 1.7.0

/** The versions served: 1.5.1 (the default), and 1.7.0 on request (`Api-Version: 1.7`). */
export const V151 = '1.5.1';
export const V17 = '1.7.0';
export const VERSIONS = [V151, V17] as const;

/**
 * What 1.7's lists and details answer: each resource with its `_expand`, the expanded objects of its link fields as
 * the file names them (`ZaakExpanded`, `RolExpanded`, ...). A link into another component is that component's schema
 * of the version the file names, or a nested expansion of it (a free-form object: the expansion goes on to any depth,
 * zrc-026). Lent as Zaken 1.6.0's (the Besluiten 1.1 file embeds `ZaakExpanded` of 1.6.0, whose resources 1.7 kept).
 */
const FREE = z.object({}).catchall(z.unknown());
const v17 = (id: string) => ({ id: `${id}@${V17}` });
const expanded = (name: string) => borrowed(`${name}Expanded@1.6.0`);
const other = (name: string) => z.union([borrowed(name), FREE]);

const ORDERING_ALL = ORDERING.flatMap((f) => [f, `-${f}`]) as [string, ...string[]];
const ORDERING17 = choiceOf(ORDERING_ALL, { enum: ORDERING_ALL });

/** 1.7's `_zoek` body: also `fields` (zrc-029), which chooses the fields to answer and asks for their expansion. */
export const ZaakZoek17 = ZaakZoek.extend({ fields: fieldsParam.optional(), ordering: ORDERING17.optional() }).meta(v17('ZaakZoek'));
/** 1.7's list filters: its file names every ordering the server takes. */
export const ZaakQuery17 = ZaakQuery.extend({ ordering: ORDERING17.optional() });

/** 1.7's Zaak without `_expand` (only its list and detail answers have it: ZaakExpanded). */
export const Zaak17 = Zaak.omit({ _expand: true }).meta(v17('Zaak'));

const EMBEDDED = {
  Zaak: [
    Zaak17,
    {
      zaaktype: other('ZaakType@1.3.2'),
      communicatiekanaal: FREE,
      productenOfDiensten: z.array(FREE),
      selectielijstklasse: FREE,
      hoofdzaak: toOne(expanded('Zaak')),
      deelzaken: z.array(expanded('Zaak')),
      relevanteAndereZaken: z.array(expanded('Zaak')),
      eigenschappen: z.array(expanded('ZaakEigenschap')),
      rollen: z.array(expanded('Rol')),
      status: toOne(expanded('Status')),
      // (the file has the documents of the zaakinformatieobjecten here)
      zaakinformatieobjecten: z.array(other('EnkelvoudigInformatieObject@1.6.0')),
      zaakobjecten: z.array(expanded('ZaakObject')),
      resultaat: toOne(expanded('Resultaat')),
    },
  ],
  Status: [
    Status,
    {
      zaak: Zaak17,
      statustype: other('StatusType@1.3.2'),
      gezetdoor: expanded('Rol'),
      zaakinformatieobjecten: z.array(expanded('ZaakInformatieObject')),
    },
  ],
  Resultaat: [Resultaat, { zaak: expanded('Zaak'), resultaattype: other('ResultaatType@1.3.2') }],
  Rol: [RolDeclared.schema, { zaak: expanded('Zaak'), betrokkene: FREE, roltype: other('RolType@1.3.2'), statussen: z.array(expanded('Status')) }],
  ZaakObject: [ZaakObjectDeclared17.schema, { zaak: expanded('Zaak'), object: FREE, zaakobjecttype: other('ZaakObjectType@1.3.2') }],
  ZaakInformatieObject: [
    ZaakInformatieObject,
    { informatieobject: other('EnkelvoudigInformatieObject@1.6.0'), zaak: expanded('Zaak'), status: expanded('Status') },
  ],
  ZaakEigenschap: [ZaakEigenschap, { zaak: toOne(expanded('Zaak')), eigenschap: other('Eigenschap@1.3.2') }],
  ZaakBesluit: [ZaakBesluit, { besluit: other('Besluit@1.1.0') }],
} satisfies Record<string, [z.ZodObject, Record<string, z.ZodType>]>;

export type Expandable17 = keyof typeof EMBEDDED;

/** The link fields the first level of `expand` may name, per resource (its `...Embedded` in the 1.7 file). */
export const EXPANDABLE17 = Object.fromEntries(Object.entries(EMBEDDED).map(([name, [, embedded]]) => [name, Object.keys(embedded)])) as Record<
  Expandable17,
  string[]
>;

/** `ZaakExpanded`, ...: each resource as 1.7's lists and details answer it. */
export const Expanded17 = {} as Record<Expandable17, z.ZodType>;
for (const [name, [schema, embedded]] of Object.entries(EMBEDDED) as [Expandable17, [z.ZodObject, Record<string, z.ZodType>]][]) {
  Expanded17[name] = expandedOf(schema, name, embedded, `@${V17}`);
  lend(`${name}Expanded@1.6.0`, Expanded17[name]);
}

// ---------------------------------------------------------------- 1.7.0: ZaakNotitie, zaaknummer reserveren

/** A note on a zaak (experimental in the 1.7 file): `intern` is for employees only, `extern` also for the initiator. */
export const ZaakNotitieInput = z
  .object({
    onderwerp: z.string().min(1).max(255),
    tekst: z.string().min(1),
    aangemaaktDoor: text(255).optional(),
    notitieType: z.enum(['intern', 'extern']).meta({ id: 'NotitieTypeEnum' }).optional(),
    status: z.enum(['concept', 'definitief']).meta({ id: 'StatusEnum' }).optional(),
    gerelateerdAan: url,
  })
  .meta(v17('ZaakNotitieRequest'));
export const ZaakNotitie = ZaakNotitieInput.extend({ url, aanmaakdatum: z.string(), wijzigingsdatum: z.string() }).meta(v17('ZaakNotitie'));
export type ZaakNotitieDoc = PartOf<typeof ZaakNotitie> & { zaak: string };
const notitieDate = dateTime.optional();
export const ZaakNotitieQuery = z.object({
  aangemaaktDoor: z.string().optional(),
  aangemaaktDoor__icontains: z.string().optional(),
  aanmaakdatum: notitieDate,
  aanmaakdatum__gt: notitieDate,
  aanmaakdatum__gte: notitieDate,
  aanmaakdatum__lt: notitieDate,
  aanmaakdatum__lte: notitieDate,
  gerelateerdAan: urlFilter,
  notitieType: z.enum(['intern', 'extern']).optional(),
  onderwerp: z.string().optional(),
  onderwerp__icontains: z.string().optional(),
  status: z.enum(['concept', 'definitief']).optional(),
  tekst: z.string().optional(),
  tekst__icontains: z.string().optional(),
  wijzigingsdatum: notitieDate,
  wijzigingsdatum__gt: notitieDate,
  wijzigingsdatum__gte: notitieDate,
  wijzigingsdatum__lt: notitieDate,
  wijzigingsdatum__lte: notitieDate,
});

/** `POST /zaaknummer_reserveren`: numbers for zaken of one bronorganisatie, handed out now and never again automatically. */
export const ReserveZaakIdentificatieRequest = z
  .object({ bronorganisatie: rsin, aantal: z.number().int().min(1).max(100).optional() })
  .meta(v17('ReserveZaakIdentificatieRequest'));
export const ReserveZaakIdentificatie = z.object({ zaaknummer: z.string() }).meta(v17('ReserveZaakIdentificatie'));

/** A zaak's input as parsed (what the zaken resource's prepare receives). */
export type ZaakIn = z.output<typeof ZaakInput>;
