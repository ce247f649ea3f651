import { z } from 'zod';
import { borrowed, expandedOf, lend } from '../../common/resources/embedded';
import { fieldsParam } from '../../common/resources/fields';
import { VERTROUWELIJKHEID, date, dateTime, url, type StoredFields } from '../../common/resources/schema-parts';

/**
 * Documenten API 1.5.0 resources, and the 1.7.0 variants of those that differ (see VERSIONS). As in Zaken: an input schema per resource with only the writable fields and an
 * output schema for the OpenAPI document; read-only and derived fields are set by the resource's rules.
 */

/** The versions served: 1.5.0, and 1.7.0 (with the 1.6.0 additions) on request (`Api-Version: 1.7`). */
export const V15 = '1.5.0';
export const V17 = '1.7.0';
export const VERSIONS = [V15, V17] as const;
/** Document fields that 1.5.0 does not have: left out of its responses, left as they are by its writes. */
export const FIELDS_17 = ['isGereedVoorPublicatie', 'tonenAanInitiator'] as const;
/** Their values on a document that does not have them yet (created before 1.7, or by a 1.5 client). */
export const DEFAULTS_17 = { isGereedVoorPublicatie: false, tonenAanInitiator: false };
const v17 = (id: string) => ({ id: `${id}@${V17}` });

const text = (max: number) => z.string().max(max);
const required = (max: number) => z.string().min(1).max(max);
const rsin = z.string().regex(/^\d{9}$/, { message: 'Een RSIN bestaat uit 9 cijfers.' });
const blank = z.literal('');

/** The tag file's StatusEnum (a superset of the four values of VNG's 1.5.0 text). */
export const STATUS = z.enum(['in_bewerking', 'concept', 'definitief', 'ter_vaststelling', 'vastgesteld', 'gearchiveerd']);
/** Statuses a received document cannot have (drc-005: `invalid_for_received`). */
export const NOT_FOR_RECEIVED = ['in_bewerking', 'ter_vaststelling'];
const SOORT = z.enum(['analoog', 'digitaal', 'pki']);
const ALGORITME = z.enum([
  'crc_16',
  'crc_32',
  'crc_64',
  'fletcher_4',
  'fletcher_8',
  'fletcher_16',
  'fletcher_32',
  'hmac',
  'md5',
  'sha_1',
  'sha_256',
  'sha_512',
  'sha_3',
]);
export const OBJECT_TYPE = z.enum(['besluit', 'zaak', 'verzoek']);
export const AARD_RELATIE = z.enum(['afzender', 'geadresseerde']);

const Ondertekening = z.object({ soort: z.union([SOORT, blank]), datum: date.nullable() }).meta({ id: 'Ondertekening' });
const Integriteit = z.object({ algoritme: z.union([ALGORITME, blank]), waarde: text(128), datum: date.nullable() }).meta({ id: 'Integriteit' });

// ---------------------------------------------------------------- EnkelvoudigInformatieObject

const EIO_FIELDS = {
  identificatie: text(40).optional(),
  bronorganisatie: rsin,
  creatiedatum: date,
  titel: required(200),
  vertrouwelijkheidaanduiding: z.union([VERTROUWELIJKHEID, blank]).optional(),
  auteur: required(200),
  status: z.union([STATUS, blank]).optional(),
  formaat: text(255).optional(),
  taal: z.string().length(3),
  bestandsnaam: text(255).optional(),
  /** Base64 content; large files go by bestandsdelen (`bestandsomvang` with `inhoud` empty or null). */
  inhoud: z.string().nullable().optional(),
  bestandsomvang: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
  link: z.union([blank, url.max(200)]).optional(),
  beschrijving: text(1000).optional(),
  ontvangstdatum: date.nullable().optional(),
  verzenddatum: date.nullable().optional(),
  indicatieGebruiksrecht: z.boolean().nullable().optional(),
  verschijningsvorm: z.string().optional(),
  ondertekening: Ondertekening.nullable().optional(),
  integriteit: Integriteit.nullable().optional(),
  informatieobjecttype: url.max(200),
  trefwoorden: z.array(required(100)).nullable().optional(),
  inhoudIsVervallen: z.boolean().nullable().optional(),
};

export const EnkelvoudigInformatieObjectInput = z.object(EIO_FIELDS).meta({ id: 'EnkelvoudigInformatieObjectCreateLockRequest' });
const lock = z.string().min(1).max(100);
export const EnkelvoudigInformatieObjectUpdate = z.object({ ...EIO_FIELDS, lock }).meta({ id: 'EnkelvoudigInformatieObjectWithLockRequest' });
export const EnkelvoudigInformatieObjectPatch = EnkelvoudigInformatieObjectInput.partial()
  .extend({ lock: lock.optional() })
  .meta({ id: 'PatchedEnkelvoudigInformatieObjectWithLockRequest' });

export const BestandsDeel = z
  .object({ url, volgnummer: z.number().int(), omvang: z.number().int(), voltooid: z.boolean(), lock: z.string() })
  .meta({ id: 'BestandsDeel' });

/** What a document's responses add to its writable fields, in both versions. */
const EIO_READ_FIELDS = {
  url,
  identificatie: z.string(),
  versie: z.number().int(),
  beginRegistratie: z.string(),
  inhoud: url.nullable(),
  locked: z.boolean(),
  bestandsdelen: z.array(BestandsDeel),
  _expand: z.record(z.string(), z.unknown()).optional(),
};

export const EnkelvoudigInformatieObject = EnkelvoudigInformatieObjectInput.extend(EIO_READ_FIELDS).meta({ id: 'EnkelvoudigInformatieObject' });

/** The lock an update needs is returned once, by POST …/lock (and by a create with bestandsdelen). */
export const EnkelvoudigInformatieObjectWithLock = EnkelvoudigInformatieObject.extend({ lock: z.string().optional() }).meta({
  id: 'EnkelvoudigInformatieObjectWithLock',
});

export const EnkelvoudigInformatieObjectQuery = z.object({
  identificatie: z.string().optional(),
  bronorganisatie: z.string().optional(),
  trefwoorden: z.string().optional(),
  expand: z.string().optional(),
});

export const EnkelvoudigInformatieObjectReadQuery = z.object({
  versie: z.coerce.number().int().min(1).optional(),
  registratieOp: dateTime.optional(),
  expand: z.string().optional(),
});

export const DownloadQuery = EnkelvoudigInformatieObjectReadQuery.omit({ expand: true });

export const EnkelvoudigInformatieObjectZoek = z.object({
  uuid__in: z.array(z.uuid()).optional(),
  /** The tag file's spelling of uuid__in. */
  uuid_In: z.array(z.uuid()).optional(),
  identificatie: z.string().optional(),
  bronorganisatie: z.string().optional(),
  expand: z.string().optional(),
});
/** The `_zoek` body as the 1.5.0 file declares it: `uuid_In` (sic) required, and expand. */
export const EnkelvoudigInformatieObjectZoekDeclared = z
  .object({ uuid_In: z.array(z.uuid()), expand: z.string().min(1).optional() })
  .meta({ id: 'EIOZoekRequest' });

// ---------------------------------------------------------------- EnkelvoudigInformatieObject 1.7.0

/** 1.7's StatusEnum: the four values of the standard (1.5.0's tag file also had concept and vastgesteld). */
const STATUS_17 = z.enum(['in_bewerking', 'ter_vaststelling', 'definitief', 'gearchiveerd']);

const EIO_FIELDS_17 = {
  ...EIO_FIELDS,
  status: z.union([STATUS_17, blank]).optional(),
  /** 1.7: a list (not null); still PATCHable and a list filter. */
  trefwoorden: z.array(required(100)).optional(),
  /** 1.7: whether the document is ready for publication (null: not known yet); Autorisaties 1.1 reads only `true`. */
  isGereedVoorPublicatie: z.boolean().nullable().optional(),
  /** 1.6: whether the initiator of the zaak may see the document. */
  tonenAanInitiator: z.boolean().optional(),
};

export const EnkelvoudigInformatieObjectInput17 = z.object(EIO_FIELDS_17).meta(v17('EnkelvoudigInformatieObjectCreateLockRequest'));
export const EnkelvoudigInformatieObjectUpdate17 = z.object({ ...EIO_FIELDS_17, lock }).meta(v17('EnkelvoudigInformatieObjectWithLockRequest'));
export const EnkelvoudigInformatieObjectPatch17 = EnkelvoudigInformatieObjectInput17.partial()
  .extend({ lock: lock.optional() })
  .meta(v17('PatchedEnkelvoudigInformatieObjectWithLockRequest'));
/** (`_expand` only in the answers of lists, details and `_zoek`: EnkelvoudigInformatieObjectExpanded17.) */
export const EnkelvoudigInformatieObject17 = EnkelvoudigInformatieObjectInput17.extend({
  ...EIO_READ_FIELDS,
  trefwoorden: z.array(z.string()),
  isGereedVoorPublicatie: z.boolean().nullable(),
  tonenAanInitiator: z.boolean(),
})
  .omit({ _expand: true })
  .meta(v17('EnkelvoudigInformatieObject'));
export const EnkelvoudigInformatieObjectWithLock17 = EnkelvoudigInformatieObject17.extend({ lock: z.string().optional() }).meta(
  v17('EnkelvoudigInformatieObjectWithLock'),
);

/** 1.7 list filters: also the objects the document is linked to (its objectinformatieobjecten). */
export const EnkelvoudigInformatieObjectQuery17 = EnkelvoudigInformatieObjectQuery.extend({
  objectinformatieobjecten_object: url.optional(),
  objectinformatieobjecten_objectType: OBJECT_TYPE.optional(),
});

export const EnkelvoudigInformatieObjectZoek17 = EnkelvoudigInformatieObjectZoek.extend({
  fields: fieldsParam.optional(),
}).meta(v17('EIOZoekRequest'));

export const LockResponse = z.object({ lock: z.string() }).meta({ id: 'LockEnkelvoudigInformatieObject' });
export const UnlockRequest = z.object({ lock: z.string().max(100).optional() }).meta({ id: 'UnlockEnkelvoudigInformatieObjectRequest' });

/**
 * A document as stored (its current version; its earlier ones in the versions, see versies.ts): 1.5.0's fields
 * (whose status enum is the wider one), 1.7.0's own where a write set them, and what the API keeps for itself.
 * `inhoud`, `locked` and `bestandsdelen` are made at read time from `_inhoud`, `_lock` and the parts.
 */
export type EioDoc = StoredFields<typeof EnkelvoudigInformatieObject, 'inhoud' | 'locked' | 'bestandsdelen'> &
  Partial<Pick<z.output<typeof EnkelvoudigInformatieObject17>, (typeof FIELDS_17)[number]>> & {
    /** The file of the content, or the files of its bestandsdelen in order; null without content. */
    _inhoud: string | string[] | null;
    /** The rank of its vertrouwelijkheidaanduiding (see EIO_AUTH_FIELDS). */
    _vertrouwelijkheid: number;
    /** Present (true) when ready for publication (see READY). */
    _gereed?: true;
    /** The lock, while locked; the number of its bestandsdelen, while they are uploaded. */
    _lock?: string;
    _delen?: number;
    /** The URLs and objectTypes of the objects it is linked to (see OBJECTEN). */
    _objecten?: string[];
  };

/** What a write of a document may send, in any version served (the 1.7 fields included); the lock of an update. */
export type EioInput = z.output<typeof EnkelvoudigInformatieObjectInput> &
  Partial<Pick<z.output<typeof EnkelvoudigInformatieObjectUpdate17>, (typeof FIELDS_17)[number]>> & { lock?: string };

/**
 * What the objects of a document (gebruiksrechten, objectinformatieobjecten, verzendingen) carry of it: its
 * informatieobjecttype, the rank of its vertrouwelijkheidaanduiding, its readiness (see PART_AUTH_FIELDS, READY)
 * and its bronorganisatie (for their notifications).
 */
export type PartFacts = { _informatieobjecttype: string; _vertrouwelijkheid: number; _gereed?: true; _bronorganisatie?: string };
/** What every object of a document has. */
export type PartDoc = { informatieobject: string } & PartFacts;

// ---------------------------------------------------------------- Gebruiksrechten

export const GebruiksrechtenInput = z
  .object({ informatieobject: url, startdatum: dateTime, einddatum: dateTime.nullable().optional(), omschrijvingVoorwaarden: z.string().min(1) })
  .meta({ id: 'GebruiksrechtenRequest' });
export const Gebruiksrechten = GebruiksrechtenInput.extend({
  url,
  einddatum: dateTime.nullable(),
  _expand: z.record(z.string(), z.unknown()).optional(),
}).meta({
  id: 'Gebruiksrechten',
});
const dateTimeFilter = dateTime.optional();
export type GebruiksrechtenDoc = StoredFields<typeof Gebruiksrechten> & PartFacts;

export const GebruiksrechtenQuery = z.object({
  informatieobject: url.optional(),
  startdatum__lt: dateTimeFilter,
  startdatum__lte: dateTimeFilter,
  startdatum__gt: dateTimeFilter,
  startdatum__gte: dateTimeFilter,
  einddatum__lt: dateTimeFilter,
  einddatum__lte: dateTimeFilter,
  einddatum__gt: dateTimeFilter,
  einddatum__gte: dateTimeFilter,
  expand: z.string().optional(),
});

// ---------------------------------------------------------------- ObjectInformatieObject

export const ObjectInformatieObjectInput = z
  .object({ informatieobject: url, object: url.max(1000), objectType: OBJECT_TYPE })
  .meta({ id: 'ObjectInformatieObjectRequest' });
export const ObjectInformatieObject = ObjectInformatieObjectInput.extend({ url, _expand: z.record(z.string(), z.unknown()).optional() }).meta({
  id: 'ObjectInformatieObject',
});
export type ObjectInformatieObjectDoc = StoredFields<typeof ObjectInformatieObject> & PartFacts;

export const ObjectInformatieObjectQuery = z.object({ object: url.optional(), informatieobject: url.optional(), expand: z.string().optional() });

// ---------------------------------------------------------------- Verzending

const BinnenlandsAdres = z
  .object({
    huisletter: text(1).optional(),
    huisnummer: z.number().int().min(1).max(99999),
    huisnummerToevoeging: text(4).optional(),
    naamOpenbareRuimte: required(80),
    postcode: text(6).optional(),
    woonplaatsnaam: required(80),
  })
  .meta({ id: 'BinnenlandsCorrespondentieadresVerzending' });
const BuitenlandsAdres = z
  .object({
    adresBuitenland1: required(35),
    adresBuitenland2: text(35).optional(),
    adresBuitenland3: text(35).optional(),
    landPostadres: url.max(200),
  })
  .meta({ id: 'BuitenlandsCorrespondentieadresVerzending' });
const Postadres = z
  .object({
    postBusOfAntwoordnummer: z.number().int().min(1).max(9999),
    postadresPostcode: required(6),
    postadresType: z.enum(['antwoordnummer', 'postbusnummer']),
    woonplaatsnaam: required(80),
  })
  .meta({ id: 'BuitenlandsCorrespondentiepostadresVerzending' });

export const VerzendingInput = z
  .object({
    betrokkene: url.max(200),
    informatieobject: url,
    aardRelatie: AARD_RELATIE,
    toelichting: text(200).optional(),
    ontvangstdatum: date.nullable().optional(),
    verzenddatum: date.nullable().optional(),
    contactPersoon: url.max(1000),
    contactpersoonnaam: text(40).optional(),
    binnenlandsCorrespondentieadres: BinnenlandsAdres.nullable().optional(),
    buitenlandsCorrespondentieadres: BuitenlandsAdres.nullable().optional(),
    correspondentiePostadres: Postadres.nullable().optional(),
    faxnummer: text(15).nullable().optional(),
    emailadres: text(100).nullable().optional(),
    mijnOverheid: z.boolean().optional(),
    telefoonnummer: text(15).nullable().optional(),
  })
  .meta({ id: 'VerzendingRequest' });
export const Verzending = VerzendingInput.extend({ url, _expand: z.record(z.string(), z.unknown()).optional() }).meta({ id: 'Verzending' });
export type VerzendingDoc = StoredFields<typeof Verzending> & PartFacts;

export const VerzendingQuery = z.object({
  aardRelatie: AARD_RELATIE.optional(),
  informatieobject: url.optional(),
  betrokkene: url.optional(),
  expand: z.string().optional(),
});

// ---------------------------------------------------------------- 1.7.0: what list and detail answers show

/** A 1.7 document with its `_expand`: the informatieobjecttype as Catalogi 1.3.3 shows it, with its own `_expand`. */
export const EnkelvoudigInformatieObjectExpanded17 = expandedOf(EnkelvoudigInformatieObject17, 'EnkelvoudigInformatieObject', {
  informatieobjecttype: borrowed('InformatieObjectTypeExpanded@1.3.2'),
});

/** An object of a document as a 1.7 list or detail answers it: its `informatieobject` expanded as `document` shows. */
const partExpanded = (name: string, schema: z.ZodObject, document: z.ZodType) => expandedOf(schema, name, { informatieobject: document });
export const GebruiksrechtenExpanded17 = partExpanded('Gebruiksrechten', Gebruiksrechten, EnkelvoudigInformatieObject17);
export const ObjectInformatieObjectExpanded17 = partExpanded('ObjectInformatieObject', ObjectInformatieObject, EnkelvoudigInformatieObjectExpanded17);
export const VerzendingExpanded17 = partExpanded('Verzending', Verzending, EnkelvoudigInformatieObjectExpanded17);

/** The 1.7 file's `_zoek` body: `uuid__in` required, no `fields` (which the server takes, as Zaken 1.6 does). */
export const EnkelvoudigInformatieObjectZoekDeclared17 = EnkelvoudigInformatieObjectZoek.omit({ uuid_In: true })
  .required({ uuid__in: true })
  .meta(v17('EIOZoekRequest'));
/** The 1.7 file's PATCH body has no tonenAanInitiator (its PUT has; the server takes it on both). */
export const EnkelvoudigInformatieObjectPatchDeclared17 = EnkelvoudigInformatieObjectPatch17.omit({ tonenAanInitiator: true }).meta(
  v17('PatchedEnkelvoudigInformatieObjectWithLockRequest'),
);

/** A document as Documenten 1.6.0 has it (1.7.0 added isGereedVoorPublicatie), which the Zaken 1.7 file embeds. */
const EnkelvoudigInformatieObject16 = EnkelvoudigInformatieObject17.omit({ isGereedVoorPublicatie: true }).meta({
  id: 'EnkelvoudigInformatieObject@1.6.0',
});
lend('EnkelvoudigInformatieObject@1.6.0', EnkelvoudigInformatieObject16);
lend(
  'EnkelvoudigInformatieObjectExpanded@1.6.0',
  EnkelvoudigInformatieObject16.extend({ _expand: EnkelvoudigInformatieObjectExpanded17.shape._expand }).meta({
    id: 'EnkelvoudigInformatieObjectExpanded@1.6.0',
  }),
);
