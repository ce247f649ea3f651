import { z } from 'zod';

/**
 * The registration import (docs/moving-in.md): another ZGW registration read over its standard APIs and stored here
 * with its UUIDs, dates and history. A run is started by a platform administrator (`POST /admin/api/v1/importen`,
 * `npm run admin -- importeren`), kept in `importen` (its source's secret sealed) and carried out by workflow
 * `import-<id>` of the transfer worker, which writes through the API's `/admin/api/v1/importen/objecten`.
 */
export const IMPORTEN_COLLECTION = 'importen';

const url = z.string().url().max(1000);

/** Where the source serves each API, where that is not `<bron>/<component>/api/v1`. */
export const ImportApis = z.object({
  zaken: url.optional(),
  documenten: url.optional(),
  besluiten: url.optional(),
  catalogi: url.optional(),
});
export type ImportApis = z.infer<typeof ImportApis>;

/** Requests to the source under way at once in a run, unless it says otherwise (`--gelijktijdig`): a small source's. */
export const IMPORT_GELIJKTIJDIG = 4;

/** What an administrator asks for. */
export const ImportAanvraag = z.object({
  bron: url.describe('De basis-URL waaronder de bron /zaken/api/v1, /documenten/api/v1 ... dient.'),
  apis: ImportApis.default({}),
  clientId: z.string().min(1).max(200),
  secret: z.string().min(1).max(500),
  dryRun: z.boolean().default(false),
  /**
   * Only the zaken of these zaaktypen (by identificatie, every version), started within this range, of this
   * bronorganisatie, and what is theirs.
   */
  zaaktypen: z.array(z.string().trim().min(1).max(50)).max(100).default([]),
  vanaf: z.iso.date().optional().describe('Zaken met een startdatum op of na deze datum.'),
  tot: z.iso.date().optional().describe('Zaken met een startdatum op of voor deze datum.'),
  bronorganisatie: z
    .string()
    .regex(/^\d{9}$/, 'een RSIN: negen cijfers')
    .optional()
    .describe('Alleen de zaken van deze bronorganisatie.'),
  /** The source's pace: requests to it under way at once, and how long one may take (else from its latencies). */
  gelijktijdig: z.number().int().min(1).max(64).default(IMPORT_GELIJKTIJDIG).describe('Verzoeken aan de bron tegelijk.'),
  timeout: z.number().int().min(1).max(3600).optional().describe('Seconden die een verzoek aan de bron mag duren.'),
  /**
   * The cut-over: what an earlier completed run of the same source brought and the source no longer has is removed
   * here at the end (true, the default), or only reported (false). A dry run only reports.
   */
  verwijderen: z.boolean().default(true).describe('Verwijder hier wat de bron sinds de vorige run verwijderde (anders alleen melden).'),
});
export type ImportAanvraag = z.infer<typeof ImportAanvraag>;

/**
 * The collections of the source in the order they are brought: every object after those it names (documents before
 * the zaken that link them, rollen before the statussen they set, besluiten after their zaken). Each is read page by
 * page as one collection; a zaak's zaakeigenschappen come with its page of zaken.
 */
export const IMPORT_SOORTEN = [
  { component: 'documenten', collection: 'enkelvoudiginformatieobjecten' },
  { component: 'zaken', collection: 'zaken' },
  { component: 'zaken', collection: 'rollen' },
  { component: 'zaken', collection: 'statussen' },
  { component: 'zaken', collection: 'resultaten' },
  { component: 'zaken', collection: 'zaakobjecten' },
  { component: 'zaken', collection: 'klantcontacten' },
  { component: 'zaken', collection: 'zaakcontactmomenten' },
  { component: 'zaken', collection: 'zaakverzoeken' },
  { component: 'zaken', collection: 'zaakinformatieobjecten' },
  { component: 'besluiten', collection: 'besluiten' },
  { component: 'besluiten', collection: 'besluitinformatieobjecten' },
  { component: 'documenten', collection: 'gebruiksrechten' },
  { component: 'documenten', collection: 'verzendingen' },
] as const;
export type ImportSoort = (typeof IMPORT_SOORTEN)[number];

const fase = (...collections: ImportSoort['collection'][]): number[] => collections.map((c) => IMPORT_SOORTEN.findIndex((s) => s.collection === c));

/**
 * The collections (their places in IMPORT_SOORTEN) in stages: those of a stage are brought side by side, each stage
 * after the ones before it, so what an object names is here before it: the documents and the zaken; the parts of a
 * zaak that name nothing else of the import, and the besluiten; the statussen (a status names the rol that set it)
 * and the besluiten's documents; the zaken's documents (a zaakinformatieobject names its status); the documents'
 * gebruiksrechten and verzendingen (in a limited run its documents come with the links before them).
 */
export const IMPORT_FASEN: readonly (readonly number[])[] = [
  fase('enkelvoudiginformatieobjecten', 'zaken'),
  fase('rollen', 'resultaten', 'zaakobjecten', 'klantcontacten', 'zaakcontactmomenten', 'zaakverzoeken', 'besluiten'),
  fase('statussen', 'besluitinformatieobjecten'),
  fase('zaakinformatieobjecten'),
  fase('gebruiksrechten', 'verzendingen'),
];
export type ImportComponent = ImportSoort['component'];

/** What became of the objects of one collection so far. */
export interface ImportTelling {
  gelezen: number;
  nieuw: number;
  bijgewerkt: number;
  bezet: number;
  mislukt: number;
  /** Outside a limited run's selection (a part of a zaak it does not bring), or a catalogus here already: not written. */
  overgeslagen: number;
  /** Content bytes brought (documents). */
  bytes: number;
}

/**
 * A type of the source's catalogus that is here under another UUID (its catalogus here with the same rsin and domein,
 * the type found by identificatie and version date): objects that name it are stored naming ours (the registration
 * import's worker). One document per type and run, in the platform collection IMPORT_TYPEN.
 */
export interface ImportType {
  _id: string;
  run: string;
  bron: string;
  hier: string;
}

/** An object of another registration with each string in it (at any depth) replaced by `fn`'s answer: its URLs made ours. */
export function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, fn)]));
  return value;
}

/** A count with nothing counted yet (`gelezen` objects read). */
export const legeTelling = (gelezen = 0): ImportTelling => ({ gelezen, nieuw: 0, bijgewerkt: 0, bezet: 0, mislukt: 0, overgeslagen: 0, bytes: 0 });

export type ImportStatus = 'bezig' | 'gepauzeerd' | 'afgerond' | 'mislukt' | 'geannuleerd';

/** A run as kept: the request (secret sealed), its tenant, its progress per collection and the objects that failed. */
export interface StoredImport {
  _id: string;
  tenant: string;
  bron: string;
  apis: ImportApis;
  clientId: string;
  /** Sealed (SECRET_FIELDS.importBron). */
  secret: string;
  dryRun: boolean;
  /** A limited run: the zaken it brings (see ImportAanvraag), with their parts, documents and besluiten only. */
  selectie?: { zaaktypen: string[]; vanaf?: string; tot?: string; bronorganisatie?: string };
  /** Requests to the source at once (IMPORT_GELIJKTIJDIG when not set), and a fixed timeout of one (seconds). */
  gelijktijdig?: number;
  timeoutSeconden?: number;
  /** How the source answers, as the worker last saw it (the progress shows it). */
  tempo?: BronTempo;
  /** Whether what the source deleted since the previous run is removed here (undefined: yes), or only reported. */
  verwijderen?: boolean;
  /** What the source deleted since the previous run of the same source, and what became of it here (the cut-over). */
  opruiming?: ImportOpruiming;
  status: ImportStatus;
  aangemaakt: Date;
  bijgewerkt: Date;
  door: string;
  /** The verification at the end: per collection the source's count and ours. */
  verificatie?: Record<string, { bron: number; hier: number }>;
  /** And every document version's content, read from both sides: size and SHA-256. */
  inhoudVerificatie?: InhoudVerificatie;
  fout?: string;
}

/**
 * The pace of the source in a run: the requests sent, those answered per second (the last ten seconds), the 95th
 * percentile of their latencies (the last 500), the timeout of a request that follows from it (min(120 s, max(10 s, 5
 * x p95)), or the run's own), the requests allowed at once and those waiting for their turn.
 */
export interface BronTempo {
  verzoeken: number;
  verzoekenPerSeconde: number;
  p95Ms: number | null;
  timeoutMs: number;
  gelijktijdig: number;
  wachtend: number;
  bijgewerkt: Date;
}

export const IMPORT_MAX_FOUTEN = 200;

/**
 * What a run found gone at the source of what the previous completed run of the same source (and tenant) brought:
 * the previous run, whether it was removed here (or only reported), per collection how many were removed and kept,
 * and each object with its source URL and ours (the first IMPORT_MAX_OPRUIMING).
 */
export interface ImportOpruiming {
  vorigeRun: string | null;
  verwijderen: boolean;
  aantallen: Record<string, { verwijderd: number; behouden: number; teVerwijderen: number }>;
  objecten: ImportOpgeruimd[];
}
export interface ImportOpgeruimd {
  soort: string;
  bron: string;
  hier: string;
  /** Removed here; kept here (with why: still used here, refused, the source not sure); or to be removed (only reported). */
  uitkomst: 'verwijderd' | 'behouden' | 'te-verwijderen';
  reden?: string;
}
export const IMPORT_MAX_OPRUIMING = 10_000;

/**
 * What a run read of the source and brought, per object (`_id`: the run and the object's source URL without a
 * trailing slash): the register the next run of the same source compares with (the cut-over), and the run's URL map.
 * `hier` is our URL of an object the run brought (made or replaced here); one it read but did not bring (held
 * otherwise, refused, outside the selection, or a dry run) has none. What names the object's zaak, besluit or
 * document, and a zaak's selection fields, tell a later limited run what lies within its selection. An object an
 * earlier run brought and this run neither read nor removed is carried over (`overgenomen`), so the latest run's
 * register is all the import brought from the source.
 */
export const IMPORT_OBJECTEN = 'importen_objecten';
export interface ImportObject {
  _id: string;
  run: string;
  soort: string;
  bron: string;
  hier?: string;
  overgenomen?: boolean;
  zaak?: string;
  besluit?: string;
  informatieobject?: string;
  zaaktype?: string;
  startdatum?: string;
  bronorganisatie?: string;
}

/** A source URL as the register keys it: without a trailing slash. */
export const bronSleutel = (url: string): string => url.replace(/\/+$/, '');

/** What the content check found: the versions compared, and those that differ (the first IMPORT_MAX_FOUTEN, with why). */
export interface InhoudVerificatie {
  versies: number;
  aantalAfwijkend: number;
  afwijkend: { url: string; reden: string }[];
}

/**
 * The content check's view of our side (`POST /admin/api/v1/importen/inhoud-controle`): for each document (by our
 * URL; at most INHOUD_CONTROLE_MAX at once) every version here with the size and SHA-256 of its content (null without
 * content). The hash is the one taken as the import stored the bytes, else taken now from the stored content.
 */
export const INHOUD_CONTROLE_MAX = 500;
export const InhoudControleVraag = z.object({ documenten: z.array(z.string()).max(INHOUD_CONTROLE_MAX) });
export const InhoudControle = z.object({
  documenten: z.array(
    z.object({
      url: z.string(),
      versies: z.array(z.object({ versie: z.number().int(), omvang: z.number().int().nullable(), sha256: z.string().nullable() })),
    }),
  ),
});
export type InhoudControle = z.infer<typeof InhoudControle>;

/** The pages of a run already stored, each with what became of its objects (a page retried replaces its own). */
export const IMPORT_PAGINAS = 'importen_paginas';

/** A page of a run as stored (`_id`: the run and the page's URL at the source). */
export interface ImportPagina {
  _id: string;
  run: string;
  soort: string;
  telling: ImportTelling;
  fouten: { url: string; reden: string }[];
  /** A limited run's links to documents: the documents (source URLs) they name, for the verification. */
  documenten?: string[];
}

/**
 * What a dry run would have stored, kept aside so the rules of later objects meet what it names (`<run> <collection>
 * <uuid>`, removed when the run ends).
 */
export const IMPORT_PROEF = 'importen_proef';

/** The source's types a run found here under other UUIDs (ImportType), removed when the run ends. */
export const IMPORT_TYPEN = 'importen_typen';

/** What the workflow is given: the run's id and tenant (the rest, its secret too, is read from the store). */
export interface ImportOpdracht {
  run: string;
  tenant: string;
  /** A step without a sign of life this long (its worker died) is taken over by another worker (TRANSFER_HEARTBEAT_SECONDS). */
  hartslagSeconden?: number;
}

/** The import's workflow type (the worker's importen feature) and its signals to pause after the page under way and to resume. */
export const IMPORT_WORKFLOW = 'importeren';
export const IMPORT_PAUZEER_SIGNAL = 'pauzeer';
export const IMPORT_HERVAT_SIGNAL = 'hervat';
export const importWorkflowId = (run: string): string => `import-${run}`;

export const soortKey = (s: Pick<ImportSoort, 'component' | 'collection'>): string => `${s.component}/${s.collection}`;

/** The base URL of a component's API at the source. */
export function bronApi(run: Pick<StoredImport, 'bron' | 'apis'>, component: ImportComponent | 'catalogi'): string {
  return (run.apis[component] ?? `${run.bron.replace(/\/+$/, '')}/${component}/api/v1`).replace(/\/+$/, '');
}
