import type { VerklaringKop, VerklaringRegel } from './verklaring';

/**
 * Destruction lists (vernietigingslijsten): made, reviewed and approved through the admin API
 * (`/admin/api/v1/vernietigingslijsten`), carried out by workflow `vernietigen` (id `vernietiging-<lijst>`) of the
 * transfer worker. What the API and the worker share: the collections (each an organisation's), the states, the
 * workflow's input and output. The list's record and its items are never destroyed: they are what was destroyed.
 */

/** The lists, one record each (`VernietigingslijstDoc`). */
export const VERNIETIGINGSLIJSTEN_COLLECTION = 'vernietigingslijsten';
/** The items of the lists, one per zaak per list (`VernietigingslijstZaakDoc`). */
export const VERNIETIGINGSLIJST_ZAKEN_COLLECTION = 'vernietigingslijst_zaken';
/** The organisation's settings of destruction lists (`VernietigingInstellingenDoc`, one document). */
export const VERNIETIGING_INSTELLINGEN_COLLECTION = 'vernietiging_instellingen';
/**
 * The main objects (zaken, besluiten, documents: their URLs) a list destroyed or is destroying, registered before
 * their deletes: the audit worker drops entries of these that reach it later (a read spooled, a write's own entry
 * delivered again), so their trail goes with them and stays gone.
 */
export const VERNIETIGD_COLLECTION = 'vernietigde_objecten';

export const VERNIETIGING_WORKFLOW = 'vernietigen';
export const vernietigingWorkflowId = (lijst: string): string => `vernietiging-${lijst}`;
/** The workflow's query of its progress (VernietigingVoortgang) and its signal to stop after the zaken under way. */
export const VERNIETIGING_VOORTGANG_QUERY = 'voortgang';
export const VERNIETIGING_STOP_SIGNAL = 'stop';

/**
 * A list's life: made (`nieuw`), submitted for review (`ter_beoordeling`, step by step), sent back to the maker by a
 * reviewer's change (`teruggestuurd`), approved by every step (`goedgekeurd`), carried out (`bezig`), done
 * (`uitgevoerd`, every zaak destroyed or reported), or stopped before the end (`gestopt`, `mislukt`).
 */
export const LIJST_STATUSSEN = ['nieuw', 'ter_beoordeling', 'teruggestuurd', 'goedgekeurd', 'bezig', 'uitgevoerd', 'gestopt', 'mislukt'] as const;
export type LijstStatus = (typeof LIJST_STATUSSEN)[number];

/**
 * An item's state: on the list (`voorgesteld`), taken off by a reviewer (`uitgezonderd`), being destroyed (`bezig`:
 * the workflow has begun its deletes), `vernietigd`, or `overgeslagen` at execution (changed since approval: its date,
 * nominatie or hold; a deelzaak skipped) with why.
 */
export const ITEM_STATUSSEN = ['voorgesteld', 'uitgezonderd', 'bezig', 'vernietigd', 'overgeslagen'] as const;
export type ItemStatus = (typeof ITEM_STATUSSEN)[number];

/** Why a zaak cannot be on a list (a 400 per item; `overgeslagen` at execution). */
export const WEIGERREDENEN = [
  'bestaat-niet',
  'niet-afgesloten',
  'blijvend-bewaren',
  'geen-vernietigen',
  'datum-in-toekomst',
  'juridische-bewaring',
  'deelzaak-niet-op-lijst',
  'al-vernietigd',
  'op-andere-lijst',
  'gewijzigd-sinds-goedkeuring',
  'deelzaak-overgeslagen',
] as const;
export type Weigerreden = (typeof WEIGERREDENEN)[number];

/** One review: the step, who, when, and whether it approved or changed the list (items excluded). */
export interface Beoordeling {
  stap: string;
  door: string;
  doorWeergave: string;
  op: Date;
  besluit: 'goedgekeurd' | 'aangepast';
  uitgezonderd: number;
}

export interface VernietigingslijstDoc {
  _id: string;
  naam: string;
  status: LijstStatus;
  /** How the list was made: the selection (or `zaken` named by hand). */
  selectie: { datum: string; zaaktype?: string; bronorganisatie?: string } | null;
  /** The organisation's review steps when the list was made (VernietigingInstellingen.stappen). */
  stappen: string[];
  /** The step whose review is awaited (index into stappen) while `ter_beoordeling`. */
  stap: number;
  beoordelingen: Beoordeling[];
  maker: string;
  makerWeergave: string;
  aangemaakt: Date;
  bijgewerkt: Date;
  goedgekeurdOp?: Date;
  uitvoering?: { workflowId: string; gestart: Date; door: string; klaar?: Date; fout?: string };
  /**
   * The verklaring van vernietiging: when it was made (its `uitgevoerdOp`), its rows, and its documents (PDF, CSV) in
   * the designated zaak (null where the organisation designates none: the list's record alone keeps it then).
   */
  verklaring?: { zaak: string | null; pdf: string | null; csv: string | null; regels: number; op: Date };
}

/** What an item keeps of its zaak: its facts when made and approved (compared at execution), and the verklaring's row. */
export interface VernietigingslijstZaakDoc {
  _id: string;
  lijst: string;
  /** The zaak's uuid and URL. */
  zaak: string;
  url: string;
  /** Present while the item holds its zaak on an open list (unique: one open list per zaak). */
  _openZaak?: string;
  status: ItemStatus;
  identificatie: string;
  omschrijving: string;
  zaaktype: string;
  zaaktypeOmschrijving: string;
  bronorganisatie: string;
  einddatum: string | null;
  archiefnominatie: string | null;
  archiefactiedatum: string | null;
  resultaat: string;
  procestermijn: string | null;
  /** The hoofdzaak (uuid) when it is on the same list: it destroys this deelzaak first. */
  hoofdzaak?: string;
  /** The deelzaken (uuids). */
  deelzaken: string[];
  /** While the workflow destroys it: the documents and besluiten (URLs) it found, kept before their links go. */
  _documenten?: string[];
  _besluiten?: string[];
  uitzondering?: { reden: string; stap: string; door: string; op: Date; archiefactiedatum?: string };
  reden?: Weigerreden;
  toelichting?: string;
  vernietigdOp?: string;
  /** What went with the zaak, and the documents kept because another zaak or besluit still uses them. */
  verslag?: VernietigingVerslag;
}

export interface VernietigingVerslag {
  zaakobjecten: number;
  besluiten: number;
  besluitinformatieobjecten: number;
  zaakinformatieobjecten: number;
  documenten: number;
  deelzaken: number;
  /** Documents (URLs) kept: still used by another zaak or besluit. */
  documentenBehouden: { url: string; reden: string }[];
}

/** The settings of an organisation. */
export interface VernietigingInstellingenDoc {
  _id: string;
  soort: 'vernietiging';
  /** The review steps in order, each with who may review it (client ids or users; none named: any administrator). */
  stappen: { naam: string; beoordelaars: string[] }[];
  /** Where the verklaring van vernietiging is kept: a zaak of a blijvend_bewaren zaaktype, and its document type. */
  verklaringZaak: string | null;
  verklaringInformatieobjecttype: string | null;
  _updated: Date;
}

/** One step when none are configured. */
export const STANDAARD_STAPPEN = [{ naam: 'archivaris', beoordelaars: [] as string[] }];

/** The input of workflow `vernietigen`. */
export interface VernietigingOpdracht {
  lijst: string;
  tenant: string;
  hartslagSeconden: number;
  /** Zaken (roots: none of the list's deelzaken) carried out at once. */
  gelijktijdig: number;
}

/** Its progress (query `voortgang`) and its result. */
export interface VernietigingVoortgang {
  totaal: number;
  gedaan: number;
  vernietigd: number;
  overgeslagen: number;
  gestopt: boolean;
}

/** What one root zaak's execution did: the zaak and the deelzaken it carried out. */
export interface ZaakUitkomst {
  vernietigd: number;
  overgeslagen: number;
}

/** The facts of a zaak a list checks (as the Zaken API stores them). */
export interface ZaakArchiefFeiten {
  einddatum?: string | null;
  archiefnominatie?: string | null;
  archiefstatus?: string | null;
  archiefactiedatum?: string | null;
}

/** Today as YYYY-MM-DD (UTC, as archiefactiedatum is compared everywhere on this platform). */
export const vandaag = (): string => new Date().toISOString().slice(0, 10);

/**
 * Why this zaak may not be destroyed on `dag` by its own facts (null: it may): closed, archiefnominatie vernietigen,
 * still nog_te_archiveren, archiefactiedatum on or before that day, not on legal hold (`opBewaring`, see the Zaken
 * component's bewaring.ts). The list adds its own checks (deelzaken on the list, another open list). The API checks it
 * when a list is made, added to and approved; the workflow again before each zaak is destroyed.
 */
export function eigenReden(zaak: ZaakArchiefFeiten, opBewaring: boolean, dag = vandaag()): Weigerreden | null {
  if (!zaak.einddatum) return 'niet-afgesloten';
  if (zaak.archiefnominatie === 'blijvend_bewaren') return 'blijvend-bewaren';
  if (zaak.archiefnominatie !== 'vernietigen' || (zaak.archiefstatus ?? 'nog_te_archiveren') !== 'nog_te_archiveren') return 'geen-vernietigen';
  if (!zaak.archiefactiedatum || zaak.archiefactiedatum > dag) return 'datum-in-toekomst';
  if (opBewaring) return 'juridische-bewaring';
  return null;
}

/** What each refusal says (the `reason` of its invalidParams entry, the `toelichting` of a skipped item). */
export const TOELICHTING: Record<Weigerreden, string> = {
  'bestaat-niet': 'De zaak bestaat niet.',
  'niet-afgesloten': 'De zaak is niet afgesloten (geen einddatum).',
  'blijvend-bewaren': 'De zaak heeft archiefnominatie blijvend_bewaren.',
  'geen-vernietigen': 'De zaak heeft geen archiefnominatie vernietigen, of is niet meer nog_te_archiveren.',
  'datum-in-toekomst': 'De archiefactiedatum van de zaak ontbreekt of ligt in de toekomst.',
  'juridische-bewaring': 'De zaak staat onder juridische bewaring.',
  'deelzaak-niet-op-lijst': 'Een deelzaak van de zaak staat niet op deze lijst: de zaak ging anders met haar deelzaken mee.',
  'al-vernietigd': 'De zaak is al vernietigd.',
  'op-andere-lijst': 'De zaak staat al op een andere open vernietigingslijst.',
  'gewijzigd-sinds-goedkeuring': 'Archiefactiedatum, archiefnominatie of juridische bewaring van de zaak is gewijzigd sinds de goedkeuring.',
  'deelzaak-overgeslagen': 'Een deelzaak van de zaak is overgeslagen: de zaak blijft met haar deelzaak.',
};

/**
 * The verklaring van vernietiging of a list (shared/src/verklaring.ts writes it as CSV and PDF): its head (the
 * organisation, the list, its reviews, when it was carried out) and a row per destroyed zaak, from the list's record
 * and items alone (no personal identifier is kept there).
 */
export function verklaringVan(
  tenant: string,
  lijst: Pick<VernietigingslijstDoc, '_id' | 'naam' | 'beoordelingen'> & { uitvoering?: { klaar?: Date; gestart: Date } },
  items: VernietigingslijstZaakDoc[],
): { kop: VerklaringKop; regels: VerklaringRegel[] } {
  const iso = (d: Date | string) => new Date(d).toISOString();
  return {
    kop: {
      organisatie: tenant,
      lijst: lijst.naam,
      lijstUuid: lijst._id,
      beoordelingen: lijst.beoordelingen.map((b) => ({ stap: b.stap, door: b.doorWeergave || b.door, op: iso(b.op) })),
      uitgevoerdOp: iso(lijst.uitvoering?.klaar ?? lijst.uitvoering?.gestart ?? new Date()),
    },
    regels: items
      .filter((i) => i.status === 'vernietigd')
      .sort((a, b) => a.identificatie.localeCompare(b.identificatie))
      .map((i) => ({
        identificatie: i.identificatie,
        omschrijving: i.omschrijving,
        zaaktype: i.zaaktype,
        zaaktypeOmschrijving: i.zaaktypeOmschrijving,
        resultaat: i.resultaat,
        procestermijn: i.procestermijn,
        archiefactiedatum: i.archiefactiedatum ?? '',
        vernietigdOp: i.vernietigdOp ?? '',
      })),
  };
}

/**
 * A stored read entry without the main objects in `weg` (destroyed): null when it showed nothing else (it goes);
 * else the entry with only the others in `hoofdObjecten`, and in `getoond` only what belongs to them, renumbered.
 */
export function leesZonder<E extends { hoofdObjecten?: string[]; getoond?: [string, string, number][] }>(
  entry: E,
  weg: ReadonlySet<string>,
): E | null {
  const mains = entry.hoofdObjecten ?? [];
  const blijft = mains.filter((m) => !weg.has(m));
  if (!blijft.length) return null;
  const nieuw = new Map(blijft.map((m, i) => [m, i]));
  const getoond = (entry.getoond ?? []).flatMap(([resource, url, i]): [string, string, number][] => {
    const j = nieuw.get(mains[i] ?? '');
    return j === undefined ? [] : [[resource, url, j]];
  });
  return { ...entry, hoofdObjecten: blijft, ...(entry.getoond ? { getoond } : {}) };
}
