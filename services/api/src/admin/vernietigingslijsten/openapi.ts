import { z } from 'zod';
import { ITEM_STATUSSEN, LIJST_STATUSSEN, WEIGERREDENEN } from '@zgw/shared';
import type { ComponentDocument } from '../../common/http/openapi';
import { InstellingenInput } from './instellingen';

/** What the endpoints answer (documented here; the answers are built in index.ts). */
const datumTijd = z.string().describe('ISO 8601');
const Beoordeling = z.object({
  stap: z.string(),
  door: z.string(),
  doorWeergave: z.string(),
  op: datumTijd,
  besluit: z.enum(['goedgekeurd', 'aangepast']),
  uitgezonderd: z.number().int(),
});
const Weigering = z.object({ zaak: z.string(), reden: z.enum(WEIGERREDENEN), toelichting: z.string() });
export const VernietigingslijstView = z
  .object({
    uuid: z.string().uuid(),
    url: z.string().url(),
    naam: z.string(),
    status: z.enum(LIJST_STATUSSEN),
    selectie: z.object({ datum: z.string(), zaaktype: z.string().optional(), bronorganisatie: z.string().optional() }).nullable(),
    stappen: z.array(z.string()),
    stap: z.string().nullable().describe('De stap waarvan de beoordeling wordt verwacht (status ter_beoordeling).'),
    beoordelingen: z.array(Beoordeling),
    maker: z.string(),
    makerWeergave: z.string(),
    aangemaakt: datumTijd,
    bijgewerkt: datumTijd,
    goedgekeurdOp: datumTijd.nullable(),
    uitvoering: z
      .object({
        workflowId: z.string(),
        gestart: datumTijd,
        door: z.string(),
        klaar: datumTijd.nullable(),
        fout: z.string().nullable(),
        temporalUrl: z.string().nullable(),
        voortgang: z
          .object({ totaal: z.number(), gedaan: z.number(), vernietigd: z.number(), overgeslagen: z.number(), gestopt: z.boolean() })
          .nullable(),
      })
      .nullable(),
    tellingen: z.record(z.enum(ITEM_STATUSSEN), z.number().int()),
    zaken: z.string().url(),
    verklaring: z
      .object({
        zaak: z.string().nullable(),
        pdf: z.string().nullable(),
        csv: z.string().nullable(),
        regels: z.number().int(),
        op: datumTijd,
        downloadPdf: z.string(),
        downloadCsv: z.string(),
      })
      .nullable(),
  })
  .meta({ id: 'Vernietigingslijst' });
export const VernietigingslijstZaakView = z
  .object({
    zaak: z.string().url(),
    identificatie: z.string(),
    omschrijving: z.string(),
    zaaktype: z.string(),
    zaaktypeOmschrijving: z.string(),
    bronorganisatie: z.string(),
    einddatum: z.string().nullable(),
    archiefnominatie: z.string().nullable(),
    archiefactiedatum: z.string().nullable(),
    resultaat: z.string().describe('De selectielijst-resultaat (URL) of de omschrijving van het resultaattype.'),
    procestermijn: z.string().nullable(),
    hoofdzaak: z.string().nullable(),
    deelzaken: z.array(z.string()),
    status: z.enum(ITEM_STATUSSEN),
    uitzondering: z
      .object({ reden: z.string(), stap: z.string(), door: z.string(), op: datumTijd, archiefactiedatum: z.string().optional() })
      .nullable(),
    reden: z.enum(WEIGERREDENEN).nullable(),
    toelichting: z.string().nullable(),
    vernietigdOp: datumTijd.nullable(),
    verslag: z
      .object({
        zaakobjecten: z.number().optional(),
        besluiten: z.number().optional(),
        besluitinformatieobjecten: z.number().optional(),
        zaakinformatieobjecten: z.number().optional(),
        documenten: z.number().optional(),
        deelzaken: z.number().optional(),
        documentenBehouden: z.array(z.object({ url: z.string(), reden: z.string() })),
      })
      .nullable(),
  })
  .meta({ id: 'VernietigingslijstZaak' });
const Instellingen = InstellingenInput.meta({ id: 'VernietigingInstellingen' });
const page = (item: z.ZodType) =>
  z.object({ count: z.number().int(), next: z.string().nullable(), previous: z.string().nullable(), results: z.array(item) });

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
const body = (schema: z.ZodType) => ({ body: { content: { 'application/json': { schema } } } });
const Lijst = { params: z.object({ uuid: z.string().uuid() }) };
const SCOPES = ['autorisaties.bijwerken'];

/** The destruction lists' operations in the admin API's OpenAPI document. */
export function documenteer(
  doc: ComponentDocument,
  input: { maak: z.ZodType; zaken: z.ZodType; beoordeling: z.ZodType; lijsten: z.ZodObject; items: z.ZodObject; verklaring: z.ZodObject },
): void {
  const tags = ['vernietigingslijsten'];
  const op = (method: 'get' | 'post' | 'put' | 'delete', path: string, operationId: string, summary: string, rest: object) =>
    doc.add({ method, path: `/vernietigingslijsten${path}`, operationId, summary, tags, scopes: SCOPES, ...(rest as { responses: never }) });
  op('get', '/instellingen', 'vernietiginginstellingen_retrieve', 'De beoordelingsstappen en de zaak van de verklaringen van de organisatie.', {
    responses: { 200: json(Instellingen, 'OK') },
  });
  op('put', '/instellingen', 'vernietiginginstellingen_update', 'Wijzig de beoordelingsstappen en de zaak van de verklaringen.', {
    request: body(Instellingen),
    responses: { 200: json(Instellingen, 'OK') },
  });
  op('get', '', 'vernietigingslijst_list', 'De vernietigingslijsten van de organisatie, nieuwste eerst.', {
    request: { query: input.lijsten },
    responses: { 200: json(page(VernietigingslijstView), 'OK') },
  });
  op('post', '', 'vernietigingslijst_create', 'Maak een lijst uit een selectie (nietOpgenomen: wat zij niet nam, met reden) of van genoemde zaken.', {
    request: body(input.maak),
    responses: { 201: json(VernietigingslijstView.extend({ nietOpgenomen: z.array(Weigering) }), 'Created') },
  });
  op('get', '/{uuid}', 'vernietigingslijst_retrieve', 'Een lijst met haar stand en, tijdens de uitvoering, de voortgang.', {
    request: Lijst,
    responses: { 200: json(VernietigingslijstView, 'OK') },
  });
  op('delete', '/{uuid}', 'vernietigingslijst_destroy', 'Verwijder een lijst die nooit is uitgevoerd.', {
    request: Lijst,
    responses: { 204: { description: 'No content' } },
  });
  op('get', '/{uuid}/zaken', 'vernietigingslijst_zaken_list', 'De zaken van een lijst, met hun stand.', {
    request: { ...Lijst, query: input.items },
    responses: { 200: json(page(VernietigingslijstZaakView), 'OK') },
  });
  op('post', '/{uuid}/zaken', 'vernietigingslijst_zaken_create', 'De maker voegt zaken toe (elke zaak die niet kan: 400 met reden).', {
    request: { ...Lijst, ...body(input.zaken) },
    responses: { 200: json(VernietigingslijstView, 'OK') },
  });
  op('delete', '/{uuid}/zaken/{zaak}', 'vernietigingslijst_zaken_destroy', 'De maker haalt een zaak van de lijst.', {
    request: { params: z.object({ uuid: z.string().uuid(), zaak: z.string().uuid() }) },
    responses: { 204: { description: 'No content' } },
  });
  op('post', '/{uuid}/indienen', 'vernietigingslijst_indienen', 'De maker dient de lijst in: de beoordeling begint bij de eerste stap.', {
    request: Lijst,
    responses: { 200: json(VernietigingslijstView, 'OK') },
  });
  op(
    'post',
    '/{uuid}/beoordelingen',
    'vernietigingslijst_beoordelen',
    'Beoordeel de huidige stap: zonder uitzonderingen goedgekeurd; met uitzonderingen terug naar de maker.',
    { request: { ...Lijst, ...body(input.beoordeling) }, responses: { 200: json(VernietigingslijstView, 'OK') } },
  );
  op('post', '/{uuid}/uitvoeren', 'vernietigingslijst_uitvoeren', 'Voer een goedgekeurde lijst uit (workflow vernietigen).', {
    request: Lijst,
    responses: { 202: json(VernietigingslijstView, 'Accepted') },
  });
  op('post', '/{uuid}/stoppen', 'vernietigingslijst_stoppen', 'Stop de uitvoering na de zaken die onderweg zijn.', {
    request: Lijst,
    responses: { 202: json(VernietigingslijstView, 'Accepted') },
  });
  op('get', '/{uuid}/verklaring', 'vernietigingslijst_verklaring', 'De verklaring van vernietiging (PDF of CSV).', {
    request: { ...Lijst, query: input.verklaring },
    responses: {
      200: {
        description: 'OK',
        content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) }, 'text/csv': { schema: z.string() } },
      },
    },
  });
}
