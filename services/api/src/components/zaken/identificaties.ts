import { z } from 'zod';
import { OBJECTTYPEN } from '../../common/resources/schema-parts';

/**
 * Zaken API 1.5.1 identificaties: Rol.betrokkeneIdentificatie per betrokkeneType, ZaakObject.objectIdentificatie
 * per objectType, Rol.contactpersoonRol and the GeoJSON geometries. Field names, maxLengths, enums, nullability and
 * required-ness follow the tag file (zaken-1.5.1.yaml). None of these schemas has readOnly fields; unknown keys are
 * stripped. The spec sets no minLength here, so "" passes everywhere a string does (as in Open Zaak).
 */

/** A string of at most `max` characters; the spec's non-required strings are optional but never null. */
const str = (max: number) => z.string().max(max);
const opt = (max: number) => z.string().max(max).optional();
const huisnummer = z.number().int().min(0).max(99999);
/** An enum that also accepts "" (the spec's `oneOf: [XEnum, BlankEnum]`); one enum so a wrong value is `invalid_choice`. */
const orBlank = <const T extends readonly [string, ...string[]]>(values: T) => z.enum([...values, ''] as [...T, '']);

export const BETROKKENE_TYPEN = ['natuurlijk_persoon', 'niet_natuurlijk_persoon', 'vestiging', 'organisatorische_eenheid', 'medewerker'] as const;
export type BetrokkeneType = (typeof BETROKKENE_TYPEN)[number];
/** The same ObjectTypeEnum (31 values, same order) as Catalogi's ZaakObjectType/brondatumArchiefprocedure. */
export const OBJECT_TYPEN = OBJECTTYPEN;
export type ObjectType = (typeof OBJECT_TYPEN)[number];

// ---------------------------------------------------------------- addresses

export const VerblijfsAdres = z
  .object({
    aoaIdentificatie: str(100),
    wplWoonplaatsNaam: str(80),
    gorOpenbareRuimteNaam: str(80),
    aoaPostcode: opt(7),
    aoaHuisnummer: huisnummer,
    aoaHuisletter: opt(1),
    aoaHuisnummertoevoeging: opt(4),
    inpLocatiebeschrijving: opt(1000),
  })
  .meta({ id: 'VerblijfsAdres' });

export const SubVerblijfBuitenland = z
  .object({
    lndLandcode: str(4),
    lndLandnaam: str(40),
    subAdresBuitenland_1: opt(35),
    subAdresBuitenland_2: opt(35),
    subAdresBuitenland_3: opt(35),
  })
  .meta({ id: 'SubVerblijfBuitenland' });

/**
 * The address of a terrein or gebouwd object. 1.7 spells its identificatie `aoaIdentificatie`, keeping the misspelt
 * `oaoIdentificatie` (deprecated, required while `aoaIdentificatie` is not used): the server takes either, in every
 * version; each version's document declares its own spelling (1.5.1: `oaoIdentificatie` alone, required).
 */
const terreinGebouwdObjectAdres = (v17: boolean) =>
  z
    .object({
      numIdentificatie: opt(100),
      oaoIdentificatie: v17 ? opt(100) : str(100),
      ...(v17 ? { aoaIdentificatie: opt(100) } : {}),
      wplWoonplaatsNaam: str(80),
      gorOpenbareRuimteNaam: str(80),
      aoaPostcode: opt(7),
      aoaHuisnummer: huisnummer,
      aoaHuisletter: opt(1),
      aoaHuisnummertoevoeging: opt(4),
      ogoLocatieAanduiding: opt(100),
    })
    .meta({ id: v17 ? 'TerreinGebouwdObjectAdres@1.7.0' : 'TerreinGebouwdObjectAdres' });
export const TerreinGebouwdObjectAdres = terreinGebouwdObjectAdres(false);
/** What the server takes: either spelling of the identificatie, at least one. */
const TerreinGebouwdObjectAdresIn = terreinGebouwdObjectAdres(true).refine((a) => Boolean(a.oaoIdentificatie || a.aoaIdentificatie), {
  message: 'Geef aoaIdentificatie (of het verouderde oaoIdentificatie) op.',
  path: ['aoaIdentificatie'],
});

export const WozObjectAdres = z
  .object({
    aoaIdentificatie: str(100),
    wplWoonplaatsNaam: str(80),
    gorOpenbareRuimteNaam: str(80),
    aoaPostcode: opt(7),
    aoaHuisnummer: huisnummer,
    aoaHuisletter: opt(1),
    aoaHuisnummertoevoeging: opt(4),
    locatieOmschrijving: opt(1000),
  })
  .meta({ id: 'WozObjectAdres' });

// ---------------------------------------------------------------- betrokkenen (Rol, and ZaakObject for the same types)

export const GESLACHTSAANDUIDINGEN = ['m', 'v', 'o'] as const;
export const INN_RECHTSVORMEN = [
  'besloten_vennootschap',
  'cooperatie_europees_economische_samenwerking',
  'europese_cooperatieve_venootschap',
  'europese_naamloze_vennootschap',
  'kerkelijke_organisatie',
  'naamloze_vennootschap',
  'onderlinge_waarborg_maatschappij',
  'overig_privaatrechtelijke_rechtspersoon',
  'stichting',
  'vereniging',
  'vereniging_van_eigenaars',
  'publiekrechtelijke_rechtspersoon',
  'vennootschap_onder_firma',
  'maatschap',
  'rederij',
  'commanditaire_vennootschap',
  'kapitaalvennootschap_binnen_eer',
  'overige_buitenlandse_rechtspersoon_vennootschap',
  'kapitaalvennootschap_buiten_eer',
] as const;

export const RolNatuurlijkPersoon = z
  .object({
    inpBsn: opt(9),
    anpIdentificatie: opt(17),
    // The spec's pattern; "" stays allowed like every other optional string (DRF skips validators for blanks).
    inpA_nummer: z
      .union([z.literal(''), str(10).regex(/^[1-9][0-9]{9}$/, { message: 'Een A-nummer bestaat uit 10 cijfers en begint niet met 0.' })])
      .optional(),
    geslachtsnaam: opt(200),
    voorvoegselGeslachtsnaam: opt(80),
    voorletters: opt(20),
    voornamen: opt(200),
    geslachtsaanduiding: orBlank(GESLACHTSAANDUIDINGEN).optional(),
    geboortedatum: opt(18),
    verblijfsadres: VerblijfsAdres.nullable().optional(),
    subVerblijfBuitenland: SubVerblijfBuitenland.nullable().optional(),
  })
  .meta({ id: 'RolNatuurlijkPersoon' });

export const RolNietNatuurlijkPersoon = z
  .object({
    innNnpId: opt(9),
    annIdentificatie: opt(17),
    statutaireNaam: opt(500),
    innRechtsvorm: orBlank(INN_RECHTSVORMEN).optional(),
    bezoekadres: opt(1000),
    subVerblijfBuitenland: SubVerblijfBuitenland.nullable().optional(),
  })
  .meta({ id: 'RolNietNatuurlijkPersoon' });

export const RolVestiging = z
  .object({
    vestigingsNummer: opt(24),
    handelsnaam: z.array(str(625)).optional(),
    verblijfsadres: VerblijfsAdres.nullable().optional(),
    subVerblijfBuitenland: SubVerblijfBuitenland.nullable().optional(),
    kvkNummer: opt(8),
  })
  .meta({ id: 'RolVestiging' });

export const RolOrganisatorischeEenheid = z
  .object({ identificatie: opt(24), naam: opt(50), isGehuisvestIn: opt(24) })
  .meta({ id: 'RolOrganisatorischeEenheid' });

export const RolMedewerker = z
  .object({ identificatie: opt(24), achternaam: opt(200), voorletters: opt(20), voorvoegselAchternaam: opt(10) })
  .meta({ id: 'RolMedewerker' });

/** Rol.betrokkeneIdentificatie by betrokkeneType (the spec's `betrokkene_identificatie_Rol*` wrap these). */
export const betrokkeneIdentificatie: Record<BetrokkeneType, z.ZodObject> = {
  natuurlijk_persoon: RolNatuurlijkPersoon,
  niet_natuurlijk_persoon: RolNietNatuurlijkPersoon,
  vestiging: RolVestiging,
  organisatorische_eenheid: RolOrganisatorischeEenheid,
  medewerker: RolMedewerker,
};

/** Rol.contactpersoonRol; the spec makes it nullable (use `.nullable().optional()` on the Rol). `naam` may be "". */
export const ContactPersoonRol = z
  .object({
    emailadres: z.union([z.literal(''), z.email().max(254)]).optional(),
    functie: opt(50),
    telefoonnummer: opt(20),
    naam: str(200),
  })
  .meta({ id: 'ContactPersoonRol' });

// ---------------------------------------------------------------- objecten (ZaakObject)

const identificatie = str(100);
const naam = opt(500);

export const ObjectAdres = z
  .object({
    identificatie,
    wplWoonplaatsNaam: str(80),
    gorOpenbareRuimteNaam: str(80),
    huisnummer,
    huisletter: opt(1),
    huisnummertoevoeging: opt(4),
    postcode: opt(7),
  })
  .meta({ id: 'ObjectAdres' });

export const ObjectBuurt = z
  .object({ buurtCode: str(2), buurtNaam: str(40), gemGemeenteCode: str(4), wykWijkCode: str(2) })
  .meta({ id: 'ObjectBuurt' });

export const ObjectGemeente = z.object({ gemeenteNaam: str(80), gemeenteCode: str(4) }).meta({ id: 'ObjectGemeente' });

export const ObjectGemeentelijkeOpenbareRuimte = z
  .object({ identificatie, openbareRuimteNaam: str(80) })
  .meta({ id: 'ObjectGemeentelijkeOpenbareRuimte' });

/** A terrein or gebouwd object (and a huishouden in one) with an address as `adres` declares it. */
const terreinGebouwdObject = (adres: z.ZodType, tag = '') => {
  const object = z.object({ identificatie, adresAanduidingGrp: adres.nullable().optional() }).meta({ id: `ObjectTerreinGebouwdObject${tag}` });
  const huishouden = z.object({ nummer: str(12), isGehuisvestIn: object.nullable().optional() }).meta({ id: `ObjectHuishouden${tag}` });
  return { object, huishouden };
};
const declared151 = terreinGebouwdObject(TerreinGebouwdObjectAdres);
const declared17 = terreinGebouwdObject(terreinGebouwdObjectAdres(true), '@1.7.0');
const taken = terreinGebouwdObject(TerreinGebouwdObjectAdresIn, '@in');
export const ObjectTerreinGebouwdObject = declared151.object;
export const ObjectHuishouden = declared151.huishouden;

export const ObjectInrichtingselement = z
  .object({
    type: z
      .enum(['bak', 'bord', 'installatie', 'kast', 'mast', 'paal', 'sensor', 'straatmeubilair', 'waterinrichtingselement', 'weginrichtingselement'])
      .meta({ id: 'ObjectInrichtingselementTypeEnum' }),
    identificatie,
    naam,
  })
  .meta({ id: 'ObjectInrichtingselement' });

export const ObjectKadastraleOnroerendeZaak = z
  .object({ kadastraleIdentificatie: str(100), kadastraleAanduiding: str(1000) })
  .meta({ id: 'ObjectKadastraleOnroerendeZaak' });

export const ObjectKunstwerkdeel = z
  .object({
    type: z
      .enum([
        'keermuur',
        'overkluizing',
        'duiker',
        'faunavoorziening',
        'vispassage',
        'bodemval',
        'coupure',
        'ponton',
        'voorde',
        'hoogspanningsmast',
        'gemaal',
        'perron',
        'sluis',
        'strekdam',
        'steiger',
        'stuw',
      ])
      .meta({ id: 'ObjectKunstwerkdeelTypeEnum' }),
    identificatie,
    naam: str(80),
  })
  .meta({ id: 'ObjectKunstwerkdeel' });

export const ObjectMaatschappelijkeActiviteit = z
  .object({ kvkNummer: str(8), handelsnaam: str(200) })
  .meta({ id: 'ObjectMaatschappelijkeActiviteit' });

export const ObjectOpenbareRuimte = z
  .object({ identificatie, wplWoonplaatsNaam: str(80), gorOpenbareRuimteNaam: str(80) })
  .meta({ id: 'ObjectOpenbareRuimte' });

/** How deep free JSON may nest: MongoDB stores at most 100 levels in a whole document. */
export const MAX_JSON_DEPTH = 64;

/** Whether free JSON nests at most `max` levels and has no NUL in a key (which BSON cannot hold); iterative, so any depth is safe to ask about. */
function storable(value: unknown, max = MAX_JSON_DEPTH): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; level.length; depth++) {
    const next: unknown[] = [];
    for (const v of level) {
      if (v === null || typeof v !== 'object') continue;
      if (depth >= max) return false;
      if (!Array.isArray(v) && Object.keys(v).some((k) => k.includes('\0'))) return false;
      for (const child of Object.values(v)) next.push(child);
    }
    level = next;
  }
  return true;
}

/** Free JSON, kept exactly as sent: arrays stay arrays, duplicates included. */
export const ObjectOverige = z
  .object({
    overigeData: z.record(z.string(), z.unknown()).refine((v) => storable(v), {
      message: `overigeData mag hoogstens ${MAX_JSON_DEPTH} niveaus diep zijn en geen NUL-teken in een sleutel hebben.`,
    }),
  })
  .meta({ id: 'ObjectOverige' });

export const ObjectPand = z.object({ identificatie }).meta({ id: 'ObjectPand' });

export const ObjectSpoorbaandeel = z
  .object({
    type: z.enum(['breedspoor', 'normaalspoor', 'smalspoor', 'spoorbaan']).meta({ id: 'ObjectSpoorbaandeelTypeEnum' }),
    identificatie,
    naam,
  })
  .meta({ id: 'ObjectSpoorbaandeel' });

export const ObjectTerreindeel = z.object({ type: str(40), identificatie, naam }).meta({ id: 'ObjectTerreindeel' });

export const ObjectWaterdeel = z
  .object({
    typeWaterdeel: z.enum(['zee', 'waterloop', 'watervlakte', 'greppel_droge_sloot']).meta({ id: 'TypeWaterdeelEnum' }),
    identificatie,
    naam,
  })
  .meta({ id: 'ObjectWaterdeel' });

export const ObjectWegdeel = z.object({ type: str(100), identificatie, naam }).meta({ id: 'ObjectWegdeel' });

export const ObjectWijk = z.object({ wijkCode: str(2), wijkNaam: str(40), gemGemeenteCode: str(4) }).meta({ id: 'ObjectWijk' });

export const ObjectWoonplaats = z.object({ identificatie, woonplaatsNaam: str(80) }).meta({ id: 'ObjectWoonplaats' });

export const ObjectWozObject = z
  .object({ wozObjectNummer: str(100), aanduidingWozObject: WozObjectAdres.nullable().optional() })
  .meta({ id: 'ObjectWozObject' });

// isOnderdeelVan / isVoor are optional but, unlike the addresses above, not nullable in the spec.
export const ObjectWozDeelobject = z
  .object({ nummerWozDeelObject: str(6), isOnderdeelVan: ObjectWozObject.optional() })
  .meta({ id: 'ObjectWozDeelobject' });

export const ObjectWozWaarde = z.object({ waardepeildatum: str(9), isVoor: ObjectWozObject.optional() }).meta({ id: 'ObjectWozWaarde' });

export const ZakelijkRechtHeeftAlsGerechtigde = z
  .object({ natuurlijkPersoon: RolNatuurlijkPersoon.optional(), nietNatuurlijkPersoon: RolNietNatuurlijkPersoon.optional() })
  .meta({ id: 'ZakelijkRechtHeeftAlsGerechtigde' });

export const ObjectZakelijkRecht = z
  .object({
    identificatie,
    avgAard: str(1000),
    heeftBetrekkingOp: ObjectKadastraleOnroerendeZaak.optional(),
    heeftAlsGerechtigde: ZakelijkRechtHeeftAlsGerechtigde.optional(),
  })
  .meta({ id: 'ObjectZakelijkRecht' });

/**
 * ZaakObject.objectIdentificatie by objectType as the 1.5.1 document declares it; besluit, enkelvoudig_document and
 * status have none in the spec.
 */
export const objectIdentificatie: Partial<Record<ObjectType, z.ZodType>> = {
  adres: ObjectAdres,
  buurt: ObjectBuurt,
  gemeente: ObjectGemeente,
  gemeentelijke_openbare_ruimte: ObjectGemeentelijkeOpenbareRuimte,
  huishouden: ObjectHuishouden,
  inrichtingselement: ObjectInrichtingselement,
  kadastrale_onroerende_zaak: ObjectKadastraleOnroerendeZaak,
  kunstwerkdeel: ObjectKunstwerkdeel,
  maatschappelijke_activiteit: ObjectMaatschappelijkeActiviteit,
  medewerker: RolMedewerker,
  natuurlijk_persoon: RolNatuurlijkPersoon,
  niet_natuurlijk_persoon: RolNietNatuurlijkPersoon,
  openbare_ruimte: ObjectOpenbareRuimte,
  organisatorische_eenheid: RolOrganisatorischeEenheid,
  pand: ObjectPand,
  spoorbaandeel: ObjectSpoorbaandeel,
  terreindeel: ObjectTerreindeel,
  terrein_gebouwd_object: ObjectTerreinGebouwdObject,
  vestiging: RolVestiging,
  waterdeel: ObjectWaterdeel,
  wegdeel: ObjectWegdeel,
  wijk: ObjectWijk,
  woonplaats: ObjectWoonplaats,
  woz_deelobject: ObjectWozDeelobject,
  woz_object: ObjectWozObject,
  woz_waarde: ObjectWozWaarde,
  zakelijk_recht: ObjectZakelijkRecht,
  overige: ObjectOverige,
};

/** As 1.7's document declares them (see terreinGebouwdObjectAdres). */
export const objectIdentificatie17: Partial<Record<ObjectType, z.ZodType>> = {
  ...objectIdentificatie,
  huishouden: declared17.huishouden,
  terrein_gebouwd_object: declared17.object,
};

/** What the server takes, in every version (either spelling of an address's identificatie). */
export const objectIdentificatieIn: Partial<Record<ObjectType, z.ZodType>> = {
  ...objectIdentificatie,
  huishouden: taken.huishouden,
  terrein_gebouwd_object: taken.object,
};

/** ZaakObject.objectTypeOverigeDefinitie: where an `overige` object's JSON schema and data live (jq paths). */
export const ObjectTypeOverigeDefinitie = z
  .object({ url: z.url().max(1000), schema: str(100), objectData: str(100) })
  .meta({ id: 'ObjectTypeOverigeDefinitie' });

// ---------------------------------------------------------------- GeoJSON

/**
 * The spec's Point2D: exactly two numbers (no altitude), longitude then latitude within their ranges: what a
 * 2dsphere index can hold (MongoDB refuses the whole document otherwise).
 */
const Point2D = z
  .array(z.number())
  .min(2)
  .max(2)
  .refine(([x, y]) => Math.abs(x!) <= 180 && Math.abs(y!) <= 90, {
    message: 'Een positie is [lengtegraad, breedtegraad] binnen [-180, 180] en [-90, 90].',
  })
  .meta({ id: 'Point2D' });
/** A linear ring (RFC 7946 3.1.6): at least four positions, the last equal to the first. */
const LinearRing = z
  .array(Point2D)
  .min(4)
  .refine((ring) => ring[0]![0] === ring.at(-1)![0] && ring[0]![1] === ring.at(-1)![1], {
    message: 'Een ring moet gesloten zijn: de laatste positie is de eerste.',
  });
const geometry = <const T extends string, C extends z.ZodType>(type: T, coordinates: C) =>
  z.object({ type: z.literal(type), coordinates }).meta({ id: type });

const simple = [
  geometry('Point', Point2D),
  geometry('MultiPoint', z.array(Point2D)),
  geometry('LineString', z.array(Point2D).min(2)),
  geometry('MultiLineString', z.array(z.array(Point2D))),
  geometry('Polygon', z.array(LinearRing).min(1)),
  geometry('MultiPolygon', z.array(z.array(LinearRing).min(1))),
] as const;

const Simple = z.discriminatedUnion('type', [...simple]);
/**
 * A member of a collection as the standard's file declares it (`Geometry`: its type; a client reads the rest as the
 * type says). Members are the six coordinate geometries, each checked as the one it names: RFC 7946 advises against
 * nested collections.
 */
const Member = z
  .looseObject({ type: z.enum(simple.map((g) => g.shape.type.value) as [string, ...string[]]) })
  .transform((member, ctx) => {
    const parsed = Simple.safeParse(member);
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.addIssue(issue as never);
    return z.NEVER;
  })
  .meta({ id: 'Geometry' });
const GeometryCollection = z.object({ type: z.literal('GeometryCollection'), geometries: z.array(Member) }).meta({ id: 'GeometryCollection' });

/** The spec's GeoJSONGeometry: Zaak.zaakgeometrie (nullable there) and GeoWithin.within. */
export const Geometry = z.discriminatedUnion('type', [...simple, GeometryCollection]).meta({ id: 'GeoJSONGeometry' });
export type Geometry = z.infer<typeof Geometry>;

/** ZaakZoek.zaakgeometrie; `within` is not required in the spec. */
export const GeoWithin = z.object({ within: Geometry.optional() }).meta({ id: 'GeoWithin' });
