import { z } from 'zod';

/**
 * ZSDMS transfers (overdrachten): the words the API, the transfer worker and the admin screen share. The API owns
 * the overdracht resource; the worker runs one Temporal workflow per overdracht and reports its progress back to
 * the API (`voortgang`), which stores it and notifies on kanaal `overdrachten`.
 */
export const OVERDRACHT_STATUSSEN = ['ontvangen', 'bezig', 'afgerond', 'geweigerd', 'mislukt', 'geannuleerd'] as const;
export type OverdrachtStatus = (typeof OVERDRACHT_STATUSSEN)[number];
/** A transfer in one of these has ended; the others may still change. */
export const EINDSTATUSSEN: readonly OverdrachtStatus[] = ['afgerond', 'geweigerd', 'mislukt', 'geannuleerd'];

export const STAPPEN = [
  'ontvangen',
  'gevalideerd',
  'doelzaak_aangemaakt',
  'onderdelen_gekopieerd',
  'documenten_gekopieerd',
  'besluiten_gekopieerd',
  'geverifieerd',
  'bron_gekoppeld',
  'bron_afgesloten',
  'antwoord_verstuurd',
  'gecompenseerd',
] as const;
export type StapNaam = (typeof STAPPEN)[number];

export const WEIGERCODES = [
  'overdracht_loopt_al',
  'zaaktype_niet_gekoppeld',
  'doelzaaktype_ongeldig',
  'document_vergrendeld',
  'bron_onleesbaar',
  'niet_geaccepteerd',
] as const;
export type Weigercode = (typeof WEIGERCODES)[number];

/** Routes: `intern` (an organisation on this platform), `uit` (to another ZGW system), `in` (from one, by verzoek). */
export const RICHTINGEN = ['intern', 'uit', 'in'] as const;
export type Richting = (typeof RICHTINGEN)[number];

export const Stap = z.object({
  stap: z.enum(STAPPEN),
  start: z.string().datetime({ offset: true }),
  einde: z.string().datetime({ offset: true }).nullable(),
  toelichting: z.string(),
});
export type Stap = z.infer<typeof Stap>;

export const Weigering = z.object({ code: z.enum(WEIGERCODES), reden: z.string() });
export type Weigering = z.infer<typeof Weigering>;

/**
 * What the worker reports (`POST /overdrachten/api/v1/overdrachten/{uuid}/voortgang`, the transfer client only):
 * a step that starts or ends, and the status with its outcome. Each report is idempotent: a step started twice
 * keeps its first start, ended twice its first end.
 */
export const Voortgang = z
  .object({
    stap: z.enum(STAPPEN).optional(),
    fase: z.enum(['start', 'einde']).optional(),
    toelichting: z.string().max(2000).optional(),
    status: z.enum(OVERDRACHT_STATUSSEN).optional(),
    doelZaak: z.string().url().optional(),
    weigering: Weigering.optional(),
    fout: z.string().max(2000).optional(),
    zaakIdentificatie: z.string().max(1000).optional(),
  })
  .strict();
export type Voortgang = z.infer<typeof Voortgang>;

/** The input of workflow `overdracht-<uuid>`: references only (no secrets, no personal data in Temporal's history). */
export interface OverdrachtOpdracht {
  overdracht: string;
  /**
   * The tenant (RSIN) whose overdracht it is: the worker acts for it on this platform (TENANT_HEADER), and for the
   * doelregistratie's tenant on the other side of an internal route.
   */
  tenant?: string;
  /** The overdracht's URL on this platform (for progress reports). */
  url: string;
  zaak: string;
  zaakIdentificatie: string;
  /** The doelregistratie's naam (as the overdracht shows it). */
  doelregistratie: string;
  /**
   * The doelregistratie's id within the tenant (StoredDoelregistratie.uuid): every step finds it by this, never by its
   * naam (which can be deleted and made again, by another tenant too). A workflow started before ids were given has
   * only the naam: its first step finds it by naam within the tenant and the later steps get the id (Plan).
   */
  doelregistratieId?: string;
  richting: Richting;
  antwoordUrl?: string;
  /** Technical failures: the activities' retry policy (see docs/transfers.md). */
  pogingen: number;
  wachttijdSeconden: number;
  maxWachttijdSeconden: number;
  /** How long a step may go without a sign of life before Temporal gives it to another worker (a crashed one). */
  hartslagSeconden: number;
}

/** The transfer's workflow type (the worker's overdracht feature): what running workflows and their histories know. */
export const OVERDRACHT_WORKFLOW = 'overdracht';
export const workflowIdOf = (uuid: string): string => `overdracht-${uuid}`;

/**
 * The header with which the platform's own transfer worker (TRANSFER_CLIENT_ID, and only it) names the tenant it acts
 * for on a call: each call is one tenant's, never across tenants.
 */
export const TENANT_HEADER = 'zgw-tenant';
/** The Temporal search attribute that finds a transfer by its zaak (registered as Keyword). */
export const ZAAK_SEARCH_ATTRIBUTE = 'ZaakIdentificatie';

/**
 * The log fields of every line about one transfer, in the API and in the worker: `ZaakIdentificatie` (the source
 * zaak's identificatie, or its URL as given while it cannot be read) and the overdracht's uuid.
 */
export function traced(zaakIdentificatie: string, overdracht?: string): Record<string, string> {
  return { ZaakIdentificatie: zaakIdentificatie, ...(overdracht ? { overdracht } : {}) };
}
