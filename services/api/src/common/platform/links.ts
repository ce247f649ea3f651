// What the ZGW components of this platform offer each other in-process. A component never imports another
// component's files: it registers what it offers (`deps.components.<name> = ...`, typed by these interfaces) and the
// others read it from `deps.components` (the Catalogi API, which they cannot do without, through `catalogiOf`). The
// order in which components are mounted (components/index.ts) puts each after those it needs.
import type { InhoudControle } from '@zgw/shared';
import type { Caller } from '../auth/auth';
import type { ComponentApi } from './component';
import type { Answer, Resource } from './resource';

/**
 * What the other components read of a stored object of another component: the fields they use, typed as its own
 * component keeps them (each component's stored document type has them; the compiler checks that where the
 * component registers what it offers).
 */
export type CatalogusLink = { naam?: string | null; domein: string; rsin: string };
export type ZaakTypeLink = {
  catalogus: string;
  concept?: boolean;
  vertrouwelijkheidaanduiding: string;
  besluittypen?: string[];
  productenOfDiensten?: string[];
};
export type BesluitTypeLink = { catalogus: string; concept?: boolean; omschrijving?: string; informatieobjecttypen?: string[] };
export type InformatieObjectTypeLink = { catalogus: string; concept?: boolean; omschrijving: string; vertrouwelijkheidaanduiding: string };
/** A part of a zaaktype (statustype, roltype, ...): the zaaktype it belongs to. */
export type ZaakTypeOnderdeelLink = { zaaktype: string };
export type StatusTypeLink = ZaakTypeOnderdeelLink & { volgnummer: number };
export type ResultaatTypeLink = ZaakTypeOnderdeelLink & {
  archiefnominatie?: string | null;
  archiefactietermijn?: string | null;
  /** (as stored: every field present, empty ones '') */
  brondatumArchiefprocedure?: { afleidingswijze: string; datumkenmerk: string; objecttype: string; procestermijn: string | null };
};
export type RolTypeLink = ZaakTypeOnderdeelLink & { omschrijving: string; omschrijvingGeneriek: string };
export type EigenschapLink = ZaakTypeOnderdeelLink & { naam: string };
export type ZaakLink = {
  zaaktype: string;
  identificatie: string;
  bronorganisatie: string;
  vertrouwelijkheidaanduiding?: string;
  archiefnominatie?: string | null;
  /** On legal hold since (zaken/bewaring.ts): nothing of it is destroyed. */
  _bewaardSinds?: Date;
};
/** A part of a zaak (status, rol, ...): the zaak it belongs to, and the copies of its zaak's facts the rights are decided by. */
export type ZaakOnderdeelLink = { zaak: string; _zaaktype: string; _vertrouwelijkheid: number };
export type BesluitLink = { besluittype: string };
export type BesluitInformatieObjectLink = { besluit: string; informatieobject: string };

/** What the other components read of each kind of Catalogi type, by its collection. */
export interface CatalogiDocs {
  zaaktypen: ZaakTypeLink;
  statustypen: StatusTypeLink;
  resultaattypen: ResultaatTypeLink;
  roltypen: RolTypeLink;
  eigenschappen: EigenschapLink;
  zaakobjecttypen: ZaakTypeOnderdeelLink;
  informatieobjecttypen: InformatieObjectTypeLink;
  besluittypen: BesluitTypeLink;
}

/** The Catalogi types' resources, by collection. */
export type CatalogiResources = { [K in keyof CatalogiDocs]: Resource<CatalogiDocs[K]> };

/** What the Zaken, Documenten and Besluiten APIs use of the Catalogi API: its types, read through its read cache. */
export interface CatalogiLinks {
  api: ComponentApi;
  catalogussen: Resource<CatalogusLink>;
  zaaktypen: Resource<ZaakTypeLink>;
  besluittypen: Resource<BesluitTypeLink>;
  informatieobjecttypen: Resource<InformatieObjectTypeLink>;
  statustypen: Resource<StatusTypeLink>;
  roltypen: Resource<RolTypeLink>;
  eigenschappen: Resource<EigenschapLink>;
  resultaattypen: Resource<ResultaatTypeLink>;
  zaakobjecttypen: Resource<ZaakTypeOnderdeelLink>;
  ziot: Resource<ZaakTypeOnderdeelLink>;
  /**
   * The API views of those of `urls` that are this platform's Catalogi objects, as its newest version shows them
   * (what an `expand` embeds): each a copy its reader may add `_expand` to.
   */
  views(urls: readonly string[]): Promise<Map<string, Answer<object>>>;
  /** The informatieobjecttypen (URLs) a zaaktype allows on `datum` (YYYY-MM-DD). */
  informatieobjecttypenOn(zaaktypeUrl: string, datum: string): Promise<string[]>;
  /** A catalogus exported and imported as one ZIP (the admin endpoints and commands). */
  uitwisseling: CatalogusExchange;
}

/** How a catalogus ZIP is imported. */
export interface CatalogusImport {
  /** New UUIDs for every object (else the ZIP's, refused when one is taken on this platform). */
  nieuweUuids?: boolean;
  /** Only read and check: what would be made, nothing written. */
  dryRun?: boolean;
  /**
   * The dry run of a registration import: each object through the rules and kept aside for that run (see
   * Store.proefBewaar), so its zaken meet their zaaktypen; nothing written.
   */
  proef?: string;
}

/** What an import made (or, in a dry run, would make). */
export interface CatalogusImportReport {
  catalogus: string;
  /** The catalogus's URL where it was exported. */
  bron: string;
  nieuweUuids: boolean;
  /** Objects per kind (the ZIP's file names: ZaakType, StatusType, ...). */
  aantallen: Record<string, number>;
  /** Types published as they were in the export. */
  gepubliceerd: number;
  geimporteerd: boolean;
}

export interface CatalogusExchange {
  /** The ZIP of a catalogus of the current tenant (404 when it has none by that UUID). */
  export(uuid: string): Promise<Uint8Array>;
  /**
   * Imports a ZIP (or its files, by name: `ZaakType.json` ...) into the current tenant: all of it, or nothing with
   * every refusal named (400).
   */
  import(zip: Uint8Array | ReadonlyMap<string, string>, opts: CatalogusImport, caller: Caller): Promise<CatalogusImportReport>;
}

/**
 * What the Besluiten API uses to keep a zaak's besluiten in step with the `zaak` of its besluiten, and what a closed
 * zaak derives from them (its archiving) with their dates.
 */
export interface ZaakBesluitLinks {
  /**
   * Records the besluit under the zaak, when the zaak is there (once; doing it again changes nothing), after every
   * write of the besluit: a closed zaak's archiving follows its besluiten.
   */
  link(zaakUrl: string, besluit: string, caller: Caller): Promise<void>;
  /** Removes the besluit from the zaak, if it is there (the zaak's archiving follows). */
  unlink(zaakUrl: string, besluit: string, caller: Caller): Promise<void>;
  /**
   * Before a besluit is changed or deleted: the closed zaken whose archiving may follow it (the zaken it names or
   * named, those whose zaakobjecten point at it) are marked, so that they are recomputed should the process stop
   * before link, unlink or gewijzigd.
   */
  voorWijziging(besluit: string, zaken: string[]): Promise<void>;
  /** After a besluit is changed or deleted: the zaken whose zaakobjecten point at it follow (afleidingswijze zaakobject). */
  gewijzigd(besluit: string, caller: Caller): Promise<void>;
}

/** What the Besluiten, Documenten and Overdrachten APIs and the reference checks use of the Zaken API. */
export interface ZakenLinks {
  zaken: Resource<ZaakLink>;
  statussen: Resource<ZaakOnderdeelLink>;
  resultaten: Resource<ZaakOnderdeelLink>;
  rollen: Resource<ZaakOnderdeelLink>;
  zaakobjecten: Resource<ZaakOnderdeelLink>;
  zaakinformatieobjecten: Resource<ZaakOnderdeelLink>;
  besluitLinks: ZaakBesluitLinks;
}

/**
 * What the Zaken and Besluiten APIs use of the Documenten API: they read its informatieobjecten in-process and keep
 * the objectinformatieobjecten in step with their links.
 */
export interface DocumentLinks {
  /** The API view of one of this platform's documents: undefined when the URL is not ours, null when nothing is there. */
  document(url: string): Promise<Answer<object> | null | undefined>;
  /** Records that `object` links the document: its objectinformatieobject (once; doing it again changes nothing). */
  link(informatieobject: string, object: string, objectType: 'zaak' | 'besluit', caller: Caller): Promise<void>;
  /** Removes the objectinformatieobject of that link, if there is one. */
  unlink(informatieobject: string, object: string, caller: Caller): Promise<void>;
  /** Whether a URL names a document of this platform. */
  owns(url: string): boolean;
  /**
   * Stores content for a document the registration import brings (a version's `_bestand`): streamed into the content
   * store, with its size and SHA-256. A file no document comes to point at is removed by the content sweep.
   */
  bewaarInhoud(bytes: AsyncIterable<Buffer>): Promise<{ id: string; size: number; sha256: string }>;
  /**
   * For the import's content check: every version of those documents (of these URLs, those here) with the size and
   * SHA-256 of its content, the hash kept as the import stored it or else taken now from the stored bytes.
   */
  inhoudControle(urls: string[]): Promise<InhoudControle['documenten']>;
  /**
   * The documents (of those URLs that are ours) that `caller` may read, as the Documenten API's default version shows
   * them: by their informatieobjecttype and vertrouwelijkheid, and ready for publication when the caller's applicatie
   * reads only those (Autorisaties 1.1). What the Zaken and Besluiten APIs `expand` of documents shows.
   */
  readable(urls: string[], caller: Caller): Promise<Map<string, Answer<object>>>;
}

/**
 * What the Zaken and Documenten APIs use of the Besluiten API: the Zaken API reads besluiten in-process (the
 * archiving dates of a zaak, its zaakbesluiten), the Documenten API checks besluit links.
 */
export interface BesluitLinks {
  /** Whether a URL names a besluit of this platform. */
  owns(url: string): boolean;
  /** The API view of one of this platform's besluiten: undefined when the URL is not ours, null when nothing is there. */
  besluit(url: string): Promise<Answer<BesluitLink & { zaak: string }> | null | undefined>;
  /** Whether a besluit of this platform names this zaak. */
  anyOfZaak(zaakUrl: string): Promise<boolean>;
  besluiten: Resource<BesluitLink>;
  besluitinformatieobjecten: Resource<BesluitInformatieObjectLink>;
}

/**
 * What the platform reads of the Referentielijsten API it serves itself: the answer to a detail URL of its own base or
 * of an alias (https://selectielijst.openzaak.nl/api/v1, REFERENTIELIJSTEN_ALIASSEN), given in process, so a
 * selectielijst URL checks without a network and without a request to itself.
 */
export interface ReferentielijstenLinks {
  /**
   * The answer as the API would give it (200 with the object, 404 for an unknown one of the platform's own base);
   * undefined for a URL that is none of these, or an alias's object the platform does not know (fetched).
   */
  answer(url: string): { status: number; body: unknown } | undefined;
}

declare module './deps' {
  interface Components {
    referentielijsten: ReferentielijstenLinks;
    catalogi: CatalogiLinks;
    zaken: ZakenLinks;
    documenten: DocumentLinks;
    besluiten: BesluitLinks;
  }
}

/** The Catalogi API of this platform, which a component that builds on it needs (it is mounted before them). */
export function catalogiOf(api: ComponentApi): CatalogiLinks {
  const c = api.deps.components.catalogi;
  if (!c) throw new Error(`De ${api.def.title} heeft de Catalogi API nodig; mount die eerst.`);
  return c;
}
