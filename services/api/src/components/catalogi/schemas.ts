import { z } from 'zod';
import { borrowed, expandedOf, lend, toOne } from '../../common/resources/embedded';
import { OBJECTTYPEN, VERTROUWELIJKHEID, booleanParam, choiceOf, date, url, type StoredFields } from '../../common/resources/schema-parts';

/**
 * Catalogi API 1.3.1 resources. Each resource has an input schema (the writable fields, no defaults, so that its
 * partial is a correct PATCH body) and an output schema (the served shape, for the OpenAPI document).
 * Defaults are filled in by the resource's `prepare` hook.
 */

const ISO_DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;

export { OBJECTTYPEN, VERTROUWELIJKHEID, date, url };
export const duration = z.string().regex(ISO_DURATION, { message: 'Ongeldige duur: gebruik ISO 8601, bijvoorbeeld P10D.' });
/** Optional URL fields where clients send "" for "none". */
const optionalUrl = (max = 1000) => z.union([z.literal(''), z.url().max(max)]).optional();
const text = (max?: number) => (max ? z.string().max(max) : z.string());

export const STATUS_FILTER = choiceOf(['alles', 'concept', 'definitief']);
export const AFLEIDINGSWIJZEN = [
  'afgehandeld',
  'ander_datumkenmerk',
  'eigenschap',
  'gerelateerde_zaak',
  'hoofdzaak',
  'ingangsdatum_besluit',
  'termijn',
  'vervaldatum_besluit',
  'zaakobject',
] as const;
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
export const RICHTING = z.enum(['inkomend', 'intern', 'uitgaand']);

/** Geldigheid fields shared by every type (nullable dates). */
const geldigheid = {
  beginGeldigheid: date.nullable().optional(),
  eindeGeldigheid: date.nullable().optional(),
  beginObject: date.nullable().optional(),
  eindeObject: date.nullable().optional(),
};
const geldigheidOut = {
  beginGeldigheid: date.nullable(),
  eindeGeldigheid: date.nullable(),
  beginObject: date.nullable(),
  eindeObject: date.nullable(),
};

// ---------------------------------------------------------------- Catalogus

export const CatalogusInput = z
  .object({
    domein: z.string().min(1).max(5),
    rsin: z.string().regex(/^\d{9}$/, { message: 'Een RSIN bestaat uit 9 cijfers.' }),
    contactpersoonBeheerNaam: z.string().min(1).max(40),
    contactpersoonBeheerTelefoonnummer: text(20).optional(),
    contactpersoonBeheerEmailadres: z.union([z.literal(''), z.email().max(254)]).optional(),
    naam: text(200).nullable().optional(),
    versie: text(20).nullable().optional(),
    begindatumVersie: date.nullable().optional(),
  })
  .meta({ id: 'CatalogusRequest' });

export const Catalogus = CatalogusInput.extend({
  url,
  zaaktypen: z.array(url),
  besluittypen: z.array(url),
  informatieobjecttypen: z.array(url),
}).meta({ id: 'Catalogus' });

export const CatalogusQuery = z.object({
  domein: z.string().optional(),
  domein__in: z.string().optional(),
  rsin: z.string().optional(),
  rsin__in: z.string().optional(),
});

// ---------------------------------------------------------------- ZaakType

const ReferentieProces = z.object({ naam: z.string().min(1).max(80), link: optionalUrl(200) });
const BronCatalogus = z.object({ url: z.url().max(200), domein: z.string().max(5), rsin: z.string().max(9) });
const BronZaaktype = z.object({ url: z.url().max(200), identificatie: z.string().max(50), omschrijving: z.string().max(80) });
const AardRelatie = z.enum(['vervolg', 'bijdrage', 'onderwerp']);

/** `zaaktype` is a URL or (1.3 history model) the identificatie of a zaaktype in the same catalogus. */
export const ZaakTypenRelatieInput = z.preprocess(
  // Clients written against the reference implementation also send the snake_case `aard_relatie`.
  (v) =>
    v && typeof v === 'object' && !('aardRelatie' in v) && 'aard_relatie' in v
      ? { ...v, aardRelatie: (v as Record<string, unknown>).aard_relatie }
      : v,
  z.object({ zaaktype: z.string().min(1).max(1000), aardRelatie: AardRelatie, toelichting: text(255).optional() }),
);

export const ZaakTypeInput = z
  .object({
    // Clients written against the reference implementation send numbers too (`"identificatie": 20`), stored as text.
    identificatie: z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1).max(50)),
    omschrijving: z.string().min(1).max(80),
    omschrijvingGeneriek: text(80).optional(),
    vertrouwelijkheidaanduiding: VERTROUWELIJKHEID,
    doel: z.string().min(1),
    aanleiding: z.string().min(1),
    toelichting: z.string().optional(),
    indicatieInternOfExtern: z.enum(['intern', 'extern']),
    handelingInitiator: z.string().min(1).max(20),
    onderwerp: z.string().min(1).max(80),
    handelingBehandelaar: z.string().min(1).max(20),
    doorlooptijd: duration,
    servicenorm: duration.nullable().optional(),
    opschortingEnAanhoudingMogelijk: z.boolean(),
    verlengingMogelijk: z.boolean(),
    verlengingstermijn: duration.nullable().optional(),
    trefwoorden: z.array(z.string().max(30)).optional(),
    publicatieIndicatie: z.boolean(),
    publicatietekst: z.string().optional(),
    verantwoordingsrelatie: z.array(z.string().max(40)).optional(),
    productenOfDiensten: z.array(z.url().max(1000)),
    selectielijstProcestype: optionalUrl(200),
    referentieproces: ReferentieProces,
    verantwoordelijke: z.string().min(1).max(50),
    broncatalogus: BronCatalogus.nullable().optional(),
    bronzaaktype: BronZaaktype.nullable().optional(),
    catalogus: url,
    /** Omschrijvingen (or URLs) of besluittypen in the same catalogus. */
    besluittypen: z.array(z.string().min(1).max(1000)),
    /** Identificaties (or URLs) of zaaktypen in the same catalogus. */
    deelzaaktypen: z.array(z.string().min(1).max(1000)).optional(),
    gerelateerdeZaaktypen: z.array(ZaakTypenRelatieInput),
    beginGeldigheid: date,
    eindeGeldigheid: date.nullable().optional(),
    beginObject: date.nullable().optional(),
    eindeObject: date.nullable().optional(),
    versiedatum: date,
  })
  .meta({ id: 'ZaakTypeRequest' });

export const ZaakType = z
  .object({
    url,
    ...ZaakTypeInput.shape,
    besluittypen: z.array(url),
    deelzaaktypen: z.array(url),
    gerelateerdeZaaktypen: z.array(z.object({ zaaktype: z.string(), aardRelatie: AardRelatie, toelichting: z.string() })),
    concept: z.boolean(),
    statustypen: z.array(url),
    resultaattypen: z.array(url),
    eigenschappen: z.array(url),
    informatieobjecttypen: z.array(url),
    roltypen: z.array(url),
    zaakobjecttypen: z.array(url),
  })
  .meta({ id: 'ZaakType' });

export const ZaakTypeQuery = z.object({
  catalogus: url.optional(),
  identificatie: z.string().optional(),
  trefwoorden: z.string().optional(),
  status: STATUS_FILTER.optional(),
  datumGeldigheid: date.optional(),
});

// ---------------------------------------------------------------- BesluitType

export const BesluitTypeInput = z
  .object({
    catalogus: url,
    omschrijving: text(80).optional(),
    omschrijvingGeneriek: text(80).optional(),
    besluitcategorie: text(40).optional(),
    reactietermijn: duration.nullable().optional(),
    publicatieIndicatie: z.boolean(),
    publicatietekst: z.string().optional(),
    publicatietermijn: duration.nullable().optional(),
    toelichting: z.string().optional(),
    /** Omschrijvingen (or URLs) of informatieobjecttypen in the same catalogus. */
    informatieobjecttypen: z.array(z.string().min(1).max(1000)),
    /** Read-only in 1.3.1 and never stored, but clients send it: URLs into another catalogus are refused. */
    zaaktypen: z.array(z.string().max(1000)).optional(),
    beginGeldigheid: date,
    eindeGeldigheid: date.nullable().optional(),
    beginObject: date.nullable().optional(),
    eindeObject: date.nullable().optional(),
  })
  .meta({ id: 'BesluitTypeRequest' });

export const BesluitType = z
  .object({
    url,
    ...BesluitTypeInput.shape,
    informatieobjecttypen: z.array(url),
    zaaktypen: z.array(url),
    concept: z.boolean(),
    resultaattypen: z.array(url),
    resultaattypenOmschrijving: z.array(z.string()),
    vastgelegdIn: z.array(z.string()),
  })
  .meta({ id: 'BesluitType' });

export const BesluitTypeQuery = z.object({
  catalogus: url.optional(),
  zaaktypen: z.string().optional(),
  informatieobjecttypen: z.string().optional(),
  status: STATUS_FILTER.optional(),
  omschrijving: z.string().optional(),
  datumGeldigheid: date.optional(),
});

// ---------------------------------------------------------------- InformatieObjectType

const OmschrijvingGeneriek = z.object({
  informatieobjecttypeOmschrijvingGeneriek: z.string().max(80),
  definitieInformatieobjecttypeOmschrijvingGeneriek: z.string().max(255),
  herkomstInformatieobjecttypeOmschrijvingGeneriek: z.string().max(12),
  hierarchieInformatieobjecttypeOmschrijvingGeneriek: z.string().max(80),
  opmerkingInformatieobjecttypeOmschrijvingGeneriek: z.string().max(255).nullable().optional(),
});

export const InformatieObjectTypeInput = z
  .object({
    catalogus: url,
    omschrijving: z.string().min(1).max(80),
    vertrouwelijkheidaanduiding: VERTROUWELIJKHEID,
    beginGeldigheid: date,
    eindeGeldigheid: date.nullable().optional(),
    beginObject: date.nullable().optional(),
    eindeObject: date.nullable().optional(),
    informatieobjectcategorie: z.string().min(1).max(80),
    trefwoord: z.array(z.string().max(30)).optional(),
    omschrijvingGeneriek: OmschrijvingGeneriek.nullable().optional(),
  })
  .meta({ id: 'InformatieObjectTypeRequest' });

export const InformatieObjectType = z
  .object({ url, ...InformatieObjectTypeInput.shape, concept: z.boolean(), zaaktypen: z.array(url), besluittypen: z.array(url) })
  .meta({ id: 'InformatieObjectType' });

export const InformatieObjectTypeQuery = z.object({
  catalogus: url.optional(),
  status: STATUS_FILTER.optional(),
  datumGeldigheid: date.optional(),
  omschrijving: z.string().optional(),
});

// ---------------------------------------------------------------- types that belong to one zaaktype

export const ChildQuery = z.object({
  zaaktype: url.optional(),
  zaaktypeIdentificatie: z.string().optional(),
  status: STATUS_FILTER.optional(),
  datumGeldigheid: date.optional(),
});

const CheckListItem = z.object({
  itemnaam: z.string().min(1).max(30),
  toelichting: z.string().max(1000).nullable().optional(),
  vraagstelling: z.string().min(1).max(255),
  verplicht: z.boolean().optional(),
});

export const StatusTypeInput = z
  .object({
    omschrijving: z.string().min(1).max(80),
    omschrijvingGeneriek: text(80).optional(),
    statustekst: text(1000).optional(),
    zaaktype: url,
    volgnummer: z.number().int().min(1).max(9999),
    informeren: z.boolean().optional(),
    doorlooptijd: duration.nullable().optional(),
    toelichting: text(1000).nullable().optional(),
    checklistitemStatustype: z.array(CheckListItem).optional(),
    eigenschappen: z.array(url).optional(),
    ...geldigheid,
  })
  .meta({ id: 'StatusTypeRequest' });

export const StatusType = z
  .object({
    url,
    ...StatusTypeInput.shape,
    ...geldigheidOut,
    catalogus: url,
    zaaktypeIdentificatie: z.string(),
    isEindstatus: z.boolean(),
    /** The zaakobjecttype that names this statustype among its statustypen ('' when none does). */
    zaakobjecttype: z.union([z.literal(''), url]),
  })
  .meta({ id: 'StatusType' });

export const RolTypeInput = z
  .object({
    zaaktype: url,
    omschrijving: z.string().min(1).max(100),
    omschrijvingGeneriek: ROL_OMSCHRIJVING_GENERIEK,
    catalogus: url.nullable().optional(),
    ...geldigheid,
  })
  .meta({ id: 'RolTypeRequest' });

export const RolType = z
  .object({ url, ...RolTypeInput.shape, ...geldigheidOut, catalogus: url, zaaktypeIdentificatie: z.string() })
  .meta({ id: 'RolType' });

export const RolTypeQuery = ChildQuery.extend({ omschrijvingGeneriek: ROL_OMSCHRIJVING_GENERIEK.optional() });

export const Specificatie = z.object({
  groep: text(32).optional(),
  formaat: z.enum(['tekst', 'getal', 'datum', 'datum_tijd']),
  lengte: z.string().min(1).max(14),
  kardinaliteit: z.string().min(1).max(3),
  waardenverzameling: z.array(z.string().max(100)).optional(),
});

export const EigenschapInput = z
  .object({
    naam: z.string().min(1).max(20),
    definitie: z.string().min(1).max(255),
    specificatie: Specificatie,
    toelichting: text(1000).optional(),
    zaaktype: url,
    statustype: url.nullable().optional(),
    ...geldigheid,
  })
  .meta({ id: 'EigenschapRequest' });

export const Eigenschap = z
  .object({ url, ...EigenschapInput.shape, ...geldigheidOut, catalogus: url, zaaktypeIdentificatie: z.string() })
  .meta({ id: 'Eigenschap' });

export const BrondatumArchiefprocedure = z.object({
  afleidingswijze: z.enum(AFLEIDINGSWIJZEN),
  datumkenmerk: text(80).optional(),
  einddatumBekend: z.boolean().optional(),
  objecttype: z.union([z.literal(''), z.enum(OBJECTTYPEN)]).optional(),
  registratie: text(80).optional(),
  procestermijn: duration.nullable().optional(),
});

export const ResultaatTypeInput = z
  .object({
    zaaktype: url,
    omschrijving: z.string().min(1).max(30),
    resultaattypeomschrijving: url,
    selectielijstklasse: url,
    toelichting: z.string().optional(),
    archiefnominatie: z.union([z.literal(''), z.enum(['blijvend_bewaren', 'vernietigen'])]).optional(),
    archiefactietermijn: duration.nullable().optional(),
    brondatumArchiefprocedure: BrondatumArchiefprocedure.optional(),
    procesobjectaard: text(200).nullable().optional(),
    catalogus: url.nullable().optional(),
    indicatieSpecifiek: z.boolean().nullable().optional(),
    procestermijn: duration.nullable().optional(),
    /** Omschrijvingen (or URLs) of besluittypen in the same catalogus. */
    besluittypen: z.array(z.string().min(1).max(1000)).optional(),
    informatieobjecttypen: z.array(url).optional(),
    ...geldigheid,
  })
  .meta({ id: 'ResultaatTypeRequest' });

export const ResultaatType = z
  .object({
    url,
    ...ResultaatTypeInput.shape,
    ...geldigheidOut,
    zaaktypeIdentificatie: z.string(),
    omschrijvingGeneriek: z.string(),
    besluittypen: z.array(url),
    besluittypeOmschrijving: z.array(z.string()),
    informatieobjecttypeOmschrijving: z.array(z.string()),
    zaakobjecttypen: z.array(url),
  })
  .meta({ id: 'ResultaatType' });

/** 1.3.1 spells two resultaattypen filters in snake_case; the camelCase spellings of 1.3.3 are accepted too. */
export const ResultaatTypeQuery = z.object({
  zaaktype: url.optional(),
  zaaktype_identificatie: z.string().optional(),
  zaaktypeIdentificatie: z.string().optional(),
  status: STATUS_FILTER.optional(),
  datum_geldigheid: date.optional(),
  datumGeldigheid: date.optional(),
});

export const ZaakObjectTypeInput = z
  .object({
    anderObjecttype: z.boolean(),
    beginGeldigheid: date,
    eindeGeldigheid: date.nullable().optional(),
    beginObject: date.nullable().optional(),
    eindeObject: date.nullable().optional(),
    objecttype: z.url().max(200),
    relatieOmschrijving: z.string().min(1).max(80),
    zaaktype: url,
    catalogus: url,
    resultaattypen: z.array(url).optional(),
    statustypen: z.array(url).optional(),
  })
  .meta({ id: 'ZaakObjectTypeRequest' });

export const ZaakObjectType = z.object({ url, ...ZaakObjectTypeInput.shape, zaaktypeIdentificatie: z.string() }).meta({ id: 'ZaakObjectType' });

export const ZaakObjectTypeQuery = z.object({
  anderObjecttype: booleanParam.optional(),
  catalogus: url.optional(),
  datumBeginGeldigheid: date.optional(),
  datumEindeGeldigheid: date.optional(),
  datumGeldigheid: date.optional(),
  objecttype: url.optional(),
  relatieOmschrijving: z.string().optional(),
  zaaktype: url.optional(),
  zaaktypeIdentificatie: z.string().optional(),
});

export const ZaakTypeInformatieObjectTypeInput = z
  .object({
    zaaktype: url,
    /** URL or (1.3 history model) omschrijving of an informatieobjecttype in the zaaktype's catalogus. */
    informatieobjecttype: z.string().min(1).max(1000),
    volgnummer: z.number().int().min(1).max(999),
    richting: RICHTING,
    statustype: url.nullable().optional(),
  })
  .meta({ id: 'ZaakTypeInformatieObjectTypeRequest' });

export const ZaakTypeInformatieObjectType = z
  .object({ url, ...ZaakTypeInformatieObjectTypeInput.shape, catalogus: url, zaaktypeIdentificatie: z.string() })
  .meta({ id: 'ZaakTypeInformatieObjectType' });

export const ZiotQuery = z.object({
  zaaktype: url.optional(),
  informatieobjecttype: z.string().optional(),
  richting: RICHTING.optional(),
  status: STATUS_FILTER.optional(),
});

// ---------------------------------------------------------------- stored documents

/**
 * Stored shapes: the API fields minus `url` and the fields computed at read time. Relations by name (besluittypen,
 * deelzaaktypen and informatieobjecttypen of a type) are stored as the omschrijvingen/identificaties they are served
 * as URLs of (see relations.ts).
 */
export type CatalogusDoc = StoredFields<typeof Catalogus, 'zaaktypen' | 'besluittypen' | 'informatieobjecttypen'>;
export type ZaakTypeDoc = StoredFields<
  typeof ZaakType,
  'statustypen' | 'resultaattypen' | 'eigenschappen' | 'informatieobjecttypen' | 'roltypen' | 'zaakobjecttypen'
>;
export type BesluitTypeDoc = StoredFields<typeof BesluitType, 'zaaktypen' | 'resultaattypen' | 'resultaattypenOmschrijving' | 'vastgelegdIn'>;
export type InformatieObjectTypeDoc = StoredFields<typeof InformatieObjectType, 'zaaktypen' | 'besluittypen'>;

/** The types that belong to one zaaktype carry its catalogus, identificatie and concept state (`_concept`). */
type Onderdeel = { catalogus: string; zaaktypeIdentificatie: string; _concept: boolean };
export type StatusTypeDoc = StoredFields<typeof StatusType, 'isEindstatus'> & Onderdeel;
export type RolTypeDoc = StoredFields<typeof RolType> & Onderdeel;
export type EigenschapDoc = StoredFields<typeof Eigenschap> & Onderdeel;
/** The brondatumArchiefprocedure as stored: every field present, empty ones '' (the afleidingswijze too, when none was given). */
export type StoredBrondatum = Omit<Required<z.output<typeof BrondatumArchiefprocedure>>, 'afleidingswijze' | 'objecttype'> & {
  afleidingswijze: string;
  objecttype: string;
};
export type ResultaatTypeDoc = Omit<
  StoredFields<typeof ResultaatType, 'besluittypeOmschrijving' | 'informatieobjecttypeOmschrijving' | 'zaakobjecttypen'>,
  'brondatumArchiefprocedure'
> &
  Onderdeel & { brondatumArchiefprocedure?: StoredBrondatum };
export type ZaakObjectTypeDoc = StoredFields<typeof ZaakObjectType> & Onderdeel;
/** A zaaktype-informatieobjecttype also carries its informatieobjecttype's omschrijving and concept state. */
export type ZiotDoc = StoredFields<typeof ZaakTypeInformatieObjectType> & Onderdeel & { _iotOmschrijving: string; _iotConcept: boolean };
/** What every stored Catalogi type has: its catalogus (where versions are found by name) and its period of validity. */
export type CatalogiDoc = { catalogus?: string | null; concept?: boolean; beginGeldigheid?: string | null; eindeGeldigheid?: string | null };
/** What every type that belongs to one zaaktype has. */
export type OnderdeelDoc = Onderdeel & { zaaktype: string };

// ---------------------------------------------------------------- Catalogi 1.3.3

/** The versions served: 1.3.1 (the default), and 1.3.3 on request (`Api-Version: 1.3`). */
export const V131 = '1.3.1';
export const V133 = '1.3.3';
export const VERSIONS = [V131, V133] as const;

const names = z.array(z.string());

/** 1.3.2 added the names of the related types beside their URLs; 1.3.3 dropped a statustype's and resultaattype's zaakobjecttypen. */
export const Catalogus133 = Catalogus.extend({ besluittypeOmschrijving: names, informatieobjecttypeOmschrijving: names }).meta({
  id: `Catalogus@${V133}`,
});
export const ZaakType133 = ZaakType.extend({
  gerelateerdeZaaktypen: z.array(
    z.object({ zaaktype: z.string(), zaaktypeIdentificatie: z.string(), aardRelatie: AardRelatie, toelichting: z.string() }),
  ),
  besluittypeOmschrijving: names,
  informatieobjecttypeOmschrijving: names,
  deelzaaktypeIdentificaties: names,
}).meta({ id: `ZaakType@${V133}` });
export const BesluitType133 = BesluitType.extend({ informatieobjecttypeOmschrijvingen: names, zaaktypeIdentificaties: names }).meta({
  id: `BesluitType@${V133}`,
});
export const InformatieObjectType133 = InformatieObjectType.extend({ besluittypeOmschrijving: names, zaaktypeIdentificaties: names }).meta({
  id: `InformatieObjectType@${V133}`,
});
export const StatusType133 = StatusType.omit({ zaakobjecttype: true }).meta({ id: `StatusType@${V133}` });
export const ResultaatType133 = ResultaatType.omit({ zaakobjecttypen: true }).meta({ id: `ResultaatType@${V133}` });
export const ZaakObjectType133 = ZaakObjectType.extend({ resultaattypeOmschrijving: names }).meta({ id: `ZaakObjectType@${V133}` });

/** 1.3.3 creates a zaaktype without a versiedatum (then its beginGeldigheid). */
export const ZaakTypeInput133 = ZaakTypeInput.partial({ versiedatum: true }).meta({ id: `ZaakTypeRequest@${V133}` });

/**
 * The 1.3.3 answers of list and detail GETs: each type with its `_expand`, the expanded objects of its link fields
 * (`ZaakTypeExpanded`, ...), as the file names them. Lent to the other components, whose newer files embed them: the
 * Zaken 1.7, Documenten 1.7 and Besluiten 1.1 files embed those of Catalogi 1.3.2, which has 1.3.3's types without
 * the identificaties 1.3.3 added (the objects embedded are shown as the newest version shows them).
 */
const ZaakType132 = ZaakType133.omit({ deelzaaktypeIdentificaties: true })
  .extend({ gerelateerdeZaaktypen: ZaakType.shape.gerelateerdeZaaktypen })
  .meta({ id: 'ZaakType@1.3.2' });
const InformatieObjectType132 = InformatieObjectType133.omit({ zaaktypeIdentificaties: true }).meta({ id: 'InformatieObjectType@1.3.2' });

/** The types with `_expand`, and the link fields each may expand (its `...Embedded` in the file). */
function expandedTypes(version: string, types: { ZaakType: z.ZodObject; BesluitType: z.ZodObject; InformatieObjectType: z.ZodObject }) {
  const tag = version === V133 ? '' : `@${version}`;
  const one = (name: string) => toOne(borrowed(`${name}Expanded${tag}`));
  const many = (name: string) => z.array(borrowed(`${name}Expanded${tag}`));
  return {
    Catalogus: [
      Catalogus133,
      { zaaktypen: many('ZaakType'), besluittypen: many('BesluitType'), informatieobjecttypen: many('InformatieObjectType') },
    ],
    ZaakType: [
      types.ZaakType,
      {
        zaakobjecttypen: many('ZaakObjectType'),
        catalogus: one('Catalogus'),
        statustypen: many('StatusType'),
        resultaattypen: many('ResultaatType'),
        eigenschappen: many('Eigenschap'),
        informatieobjecttypen: many('InformatieObjectType'),
        roltypen: many('RolType'),
        besluittypen: many('BesluitType'),
        deelzaaktypen: many('ZaakType'),
        gerelateerdeZaaktypen: many('ZaakType'),
      },
    ],
    BesluitType: [
      types.BesluitType,
      {
        catalogus: one('Catalogus'),
        zaaktypen: many('ZaakType'),
        informatieobjecttypen: many('InformatieObjectType'),
        resultaattypen: many('ResultaatType'),
      },
    ],
    InformatieObjectType: [
      types.InformatieObjectType,
      { catalogus: one('Catalogus'), zaaktypen: many('ZaakType'), besluittypen: many('BesluitType') },
    ],
    StatusType: [StatusType133, { catalogus: one('Catalogus'), zaaktype: one('ZaakType'), eigenschappen: many('Eigenschap') }],
    RolType: [RolType, { catalogus: one('Catalogus'), zaaktype: one('ZaakType') }],
    Eigenschap: [Eigenschap, { catalogus: one('Catalogus'), zaaktype: one('ZaakType'), statustype: one('StatusType') }],
    ResultaatType: [
      ResultaatType133,
      {
        catalogus: one('Catalogus'),
        zaaktype: one('ZaakType'),
        besluittypen: many('BesluitType'),
        informatieobjecttypen: many('InformatieObjectType'),
      },
    ],
    ZaakObjectType: [
      ZaakObjectType133,
      { zaaktype: one('ZaakType'), resultaattypen: many('ResultaatType'), statustypen: many('StatusType'), catalogus: one('Catalogus') },
    ],
    ZaakTypeInformatieObjectType: [
      ZaakTypeInformatieObjectType,
      { zaaktype: one('ZaakType'), catalogus: one('Catalogus'), informatieobjecttype: one('InformatieObjectType'), statustype: one('StatusType') },
    ],
  } satisfies Record<string, [z.ZodObject, Record<string, z.ZodType>]>;
}

type Expandable = keyof ReturnType<typeof expandedTypes>;

/** `ZaakTypeExpanded`, ...: each type as a list or detail of `version` answers it; lent under that name (and version). */
function expanded(version: string, types: Parameters<typeof expandedTypes>[1]): Record<Expandable, z.ZodType> {
  const tag = version === V133 ? '' : `@${version}`;
  const out = {} as Record<Expandable, z.ZodType>;
  for (const [name, [schema, embedded]] of Object.entries(expandedTypes(version, types)) as [
    Expandable,
    [z.ZodObject, Record<string, z.ZodType>],
  ][]) {
    out[name] = expandedOf(schema, name, embedded, tag);
    lend(`${name}Expanded${tag}`, out[name]);
  }
  return out;
}

export const Expanded = expanded(V133, { ZaakType: ZaakType133, BesluitType: BesluitType133, InformatieObjectType: InformatieObjectType133 });
expanded('1.3.2', { ZaakType: ZaakType132, BesluitType, InformatieObjectType: InformatieObjectType132 });

/** The link fields the first level of `expand` may name, per type. */
export const EXPANDABLE = Object.fromEntries(
  Object.entries(expandedTypes(V133, { ZaakType: ZaakType133, BesluitType: BesluitType133, InformatieObjectType: InformatieObjectType133 })).map(
    ([name, [, embedded]]) => [name, Object.keys(embedded)],
  ),
) as Record<Expandable, string[]>;

/** The types as Catalogi 1.3.2 has them, which the Zaken 1.7 file embeds (expanded or not). */
for (const [name, schema] of Object.entries({
  ZaakType: ZaakType132,
  InformatieObjectType: InformatieObjectType132,
  BesluitType,
  StatusType: StatusType133,
  ResultaatType: ResultaatType133,
  RolType,
  Eigenschap,
  ZaakObjectType: ZaakObjectType133,
}))
  lend(`${name}@1.3.2`, schema);

/** The inputs as parsed (what the resources' prepare receives). */
export type CatalogusIn = z.output<typeof CatalogusInput>;
export type BesluitTypeIn = z.output<typeof BesluitTypeInput>;
export type ZaakTypeInformatieObjectTypeIn = z.output<typeof ZaakTypeInformatieObjectTypeInput>;
export type InformatieObjectTypeIn = z.output<typeof InformatieObjectTypeInput>;
/** A zaaktype's input as parsed in 1.3.1 or in 1.3.3 (which no longer asks for a versiedatum). */
export type ZaakTypeIn = z.output<typeof ZaakTypeInput> | z.output<typeof ZaakTypeInput133>;
