import { z } from 'zod';
import { OVERDRACHT_STATUSSEN, RICHTINGEN, Stap, Weigering } from '@zgw/shared';
import type { StoredFields } from '../../common/resources/schema-parts';

/**
 * ZSDMS overdrachten: a request to hand a zaak over to a doelregistratie, and the transfer's state as the worker
 * reports it. The input schemas hold what a client sends; `Overdracht` is what every read answers.
 */
const url = z.url().max(1000);
const naam = z.string().min(1).max(100);

export const OverdrachtInput = z
  .object({
    zaak: url.describe('URL van de zaak die wordt overgedragen.'),
    doelregistratie: naam.describe('Naam van de doelregistratie (zie /admin/api/v1/doelregistraties).'),
    toelichting: z.string().max(1000).optional(),
    antwoordUrl: url.optional().describe('Waar het antwoord heen gaat (POST JSON, met herhalingen) als de overdracht eindigt.'),
  })
  .strict();

export const VerzoekInput = z
  .object({
    bronZaak: url.describe('URL van de zaak in het verzoekende systeem.'),
    bronSysteem: naam.describe('Naam van de doelregistratie (route extern) die dat systeem beschrijft.'),
    toelichting: z.string().max(1000).optional(),
    antwoordUrl: url.optional(),
  })
  .strict();

export const Overdracht = z.object({
  url: url,
  uuid: z.uuid(),
  zaak: url.describe('De bronzaak (bij een inkomend verzoek: in het verzoekende systeem).'),
  zaakIdentificatie: z.string().describe('Identificatie van de bronzaak (of de zaak-URL zolang die niet gelezen is).'),
  doelregistratie: naam,
  richting: z.enum(RICHTINGEN).describe('intern, uit (naar een ander systeem) of in (van een ander systeem).'),
  toelichting: z.string(),
  antwoordUrl: url.nullable(),
  status: z.enum(OVERDRACHT_STATUSSEN),
  stappen: z.array(Stap),
  doelZaak: url.nullable(),
  weigering: Weigering.nullable(),
  fout: z.string(),
  workflowId: z.string(),
  aanmaakdatum: z.string().datetime({ offset: true }),
});

/** Where an overdracht keeps the authorisation facts of its zaak (reading needs zaken.lezen for that zaak). */
export type OverdrachtAuth = {
  _zaaktype: string;
  _vertrouwelijkheid: number;
  _bronorganisatie?: string;
};

/**
 * An overdracht as stored: its `uuid` is the `_id`; `_gestart` is false until Temporal has its workflow;
 * `_doelregistratie` the id of its doelregistratie within the tenant (absent in those stored before ids were given).
 */
export type OverdrachtDoc = StoredFields<typeof Overdracht, 'uuid'> & OverdrachtAuth & { _gestart: boolean; _doelregistratie?: string };

export const OverdrachtQuery = z.object({
  status: z.enum(OVERDRACHT_STATUSSEN).optional(),
  zaak: url.optional(),
  doelregistratie: naam.optional(),
});
