import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ITEM_STATUSSEN,
  LIJST_STATUSSEN,
  verklaringCsv,
  verklaringPdf,
  verklaringVan,
  vernietigingWorkflowId,
  type VernietigingslijstDoc,
  type VernietigingslijstZaakDoc,
} from '@zgw/shared';
import type { Deps } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { PAGE_SIZE, PageQuery, envelope, parsePage } from '../../common/http/pagination';
import { jsonObject, parseOrThrow } from '../../common/http/validation';
import type { Zaken } from '../../components/zaken/context';
import { adminDocument } from '../openapi';
import { adminCaller } from '../rights';
import { bewaarInstellingen } from './instellingen';
import { Lijsten, MAX_ZAKEN } from './lijsten';
import { documenteer } from './openapi';
import { Uitvoering } from './uitvoering';

export const VERNIETIGINGSLIJSTEN_PATH = '/admin/api/v1/vernietigingslijsten';
export const VERNIETIGING_INSTELLINGEN_PATH = `${VERNIETIGINGSLIJSTEN_PATH}/instellingen`;

const zaakRef = z.string().trim().min(1).max(1000);

/** A new list: from a selection, or of zaken named by hand (URLs or uuids). */
export const MaakInput = z
  .object({
    naam: z.string().trim().min(1).max(200),
    selectie: z
      .object({
        datum: z.iso.date().describe('Zaken met een archiefactiedatum op of voor deze datum (en vandaag).'),
        zaaktype: z.string().url().max(1000).optional(),
        bronorganisatie: z
          .string()
          .regex(/^\d{9}$/, 'een RSIN: negen cijfers')
          .optional(),
      })
      .strict()
      .optional(),
    zaken: z.array(zaakRef).min(1).max(MAX_ZAKEN).optional(),
  })
  .strict()
  .refine((b) => !!b.selectie !== !!b.zaken, {
    message: 'Geef een selectie of zaken, niet beide.',
    path: ['selectie'],
    params: { code: 'selectie-of-zaken' },
  });

export const ZakenInput = z.object({ zaken: z.array(zaakRef).min(1).max(MAX_ZAKEN) }).strict();

/** A review of the current step: no exclusions approves it; exclusions send the list back to the maker. */
export const BeoordelingInput = z
  .object({
    stap: z.string().trim().min(1).max(100).optional(),
    uitzonderingen: z
      .array(
        z
          .object({
            zaak: zaakRef,
            reden: z.string().trim().min(1).max(1000),
            archiefactiedatum: z.iso.date().optional().describe('Een nieuwe archiefactiedatum voor de uitgezonderde zaak.'),
          })
          .strict(),
      )
      .max(MAX_ZAKEN)
      .default([]),
  })
  .strict();

const ListQuery = z
  .object({ status: z.enum(LIJST_STATUSSEN).optional() })
  .strict()
  .extend(PageQuery.shape);
const ItemQuery = z
  .object({ status: z.enum(ITEM_STATUSSEN).optional() })
  .strict()
  .extend(PageQuery.shape);
const VerklaringQuery = z.object({ formaat: z.enum(['pdf', 'csv']).default('pdf') }).strict();

/**
 * Destruction lists of the caller's organisation (docs/admin.md "Vernietigingslijsten", and the admin API's OpenAPI
 * document: openapi.ts); every endpoint for its
 * administrators (`autorisaties.bijwerken`), a platform administrator naming the organisation with `Zgw-Tenant`:
 * - `GET|PUT /admin/api/v1/vernietigingslijsten/instellingen`: the review steps (`stappen`: naam, beoordelaars) and
 *   where the verklaring goes (`verklaringZaak`, `verklaringInformatieobjecttype`).
 * - `GET|POST /admin/api/v1/vernietigingslijsten`: the lists (newest first), a new one (`naam` and `selectie`
 *   {datum, zaaktype?, bronorganisatie?} or `zaken`).
 * - `GET|DELETE /{uuid}`; `GET /{uuid}/zaken` (items, `?status=`); `POST /{uuid}/zaken` and
 *   `DELETE /{uuid}/zaken/{zaakUuid}` (the maker); `POST /{uuid}/indienen`; `POST /{uuid}/beoordelingen`;
 *   `POST /{uuid}/uitvoeren`; `POST /{uuid}/stoppen`; `GET /{uuid}/verklaring?formaat=pdf|csv`.
 */
export async function registerVernietigingslijstenAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  const lijsten = new Lijsten(deps);
  await lijsten.ensureIndexes();
  documenteer(adminDocument(deps), {
    maak: MaakInput,
    zaken: ZakenInput,
    beoordeling: BeoordelingInput,
    lijsten: ListQuery,
    items: ItemQuery,
    verklaring: VerklaringQuery,
  });
  const uitvoering = new Uitvoering(deps);
  const admin = (req: FastifyRequest) => adminCaller(deps, req, 'vernietigingslijsten maken, beoordelen en uitvoeren');
  const base = () => `${deps.urls.base}${VERNIETIGINGSLIJSTEN_PATH}`;
  const zaken = () => deps.components.zaken as unknown as Zaken;
  const temporalUi = (workflowId: string) =>
    deps.config.TEMPORAL_UI_URL
      ? `${deps.config.TEMPORAL_UI_URL.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(deps.config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`
      : null;

  const view = async (l: VernietigingslijstDoc, metVoortgang = false) => ({
    uuid: l._id,
    url: `${base()}/${l._id}`,
    naam: l.naam,
    status: l.status,
    selectie: l.selectie,
    stappen: l.stappen,
    stap: l.status === 'ter_beoordeling' ? (l.stappen[l.stap] ?? null) : null,
    beoordelingen: l.beoordelingen.map((b) => ({ ...b, op: new Date(b.op).toISOString() })),
    maker: l.maker,
    makerWeergave: l.makerWeergave,
    aangemaakt: l.aangemaakt.toISOString(),
    bijgewerkt: l.bijgewerkt.toISOString(),
    goedgekeurdOp: l.goedgekeurdOp?.toISOString() ?? null,
    uitvoering: l.uitvoering
      ? {
          workflowId: l.uitvoering.workflowId,
          gestart: l.uitvoering.gestart.toISOString(),
          door: l.uitvoering.door,
          klaar: l.uitvoering.klaar?.toISOString() ?? null,
          fout: l.uitvoering.fout ?? null,
          temporalUrl: temporalUi(l.uitvoering.workflowId),
          voortgang: metVoortgang && l.status === 'bezig' ? await uitvoering.voortgang(l._id) : null,
        }
      : null,
    tellingen: await lijsten.tellingen(l._id),
    zaken: `${base()}/${l._id}/zaken`,
    verklaring: l.verklaring
      ? {
          zaak: l.verklaring.zaak,
          pdf: l.verklaring.pdf,
          csv: l.verklaring.csv,
          regels: l.verklaring.regels,
          op: l.verklaring.op.toISOString(),
          downloadPdf: `${base()}/${l._id}/verklaring?formaat=pdf`,
          downloadCsv: `${base()}/${l._id}/verklaring?formaat=csv`,
        }
      : null,
  });
  const itemView = (i: VernietigingslijstZaakDoc) => {
    const url = (uuid: string) => zaken().zaken.url(uuid);
    return {
      zaak: i.url,
      identificatie: i.identificatie,
      omschrijving: i.omschrijving,
      zaaktype: i.zaaktype,
      zaaktypeOmschrijving: i.zaaktypeOmschrijving,
      bronorganisatie: i.bronorganisatie,
      einddatum: i.einddatum,
      archiefnominatie: i.archiefnominatie,
      archiefactiedatum: i.archiefactiedatum,
      resultaat: i.resultaat,
      procestermijn: i.procestermijn,
      hoofdzaak: i.hoofdzaak ? url(i.hoofdzaak) : null,
      deelzaken: i.deelzaken.map(url),
      status: i.status,
      uitzondering: i.uitzondering ? { ...i.uitzondering, op: new Date(i.uitzondering.op).toISOString() } : null,
      reden: i.reden ?? null,
      toelichting: i.toelichting ?? null,
      vernietigdOp: i.vernietigdOp ?? null,
      verslag: i.verslag ?? null,
    };
  };

  app.get(VERNIETIGING_INSTELLINGEN_PATH, async (req) => {
    await admin(req);
    return lijsten.instellingen();
  });
  app.put(VERNIETIGING_INSTELLINGEN_PATH, async (req) => {
    const caller = await admin(req);
    await bewaarInstellingen(deps, lijsten.instellingenColl, jsonObject(req.body));
    req.log.info({ by: caller.clientId }, 'destruction list settings changed');
    return lijsten.instellingen();
  });

  app.get(VERNIETIGINGSLIJSTEN_PATH, async (req) => {
    await admin(req);
    const q = parseOrThrow(ListQuery, req.query ?? {});
    const page = parsePage(q.page);
    const filter = q.status ? { status: q.status } : {};
    const [count, items] = await Promise.all([
      lijsten.lijsten.countDocuments(filter),
      lijsten.lijsten
        .find(filter)
        .sort({ aangemaakt: -1, _id: -1 })
        .skip((page - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE)
        .toArray(),
    ]);
    return envelope(`${deps.urls.base}${req.url}`, page, count, await Promise.all(items.map((l) => view(l))));
  });

  app.post(VERNIETIGINGSLIJSTEN_PATH, async (req, reply) => {
    const caller = await admin(req);
    const input = parseOrThrow(MaakInput, jsonObject(req.body));
    const { lijst, nietOpgenomen } = await lijsten.maak(input, caller);
    return reply.code(201).send({ ...(await view(lijst)), nietOpgenomen });
  });

  type P = { Params: { uuid: string } };
  app.get<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid`, async (req) => {
    await admin(req);
    return view(await lijsten.get(req.params.uuid), true);
  });

  app.delete<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid`, async (req, reply) => {
    const caller = await admin(req);
    await lijsten.verwijder(req.params.uuid);
    req.log.info({ lijst: req.params.uuid, by: caller.clientId }, 'destruction list removed');
    return reply.code(204).send();
  });

  app.get<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/zaken`, async (req) => {
    await admin(req);
    const q = parseOrThrow(ItemQuery, req.query ?? {});
    const lijst = await lijsten.get(req.params.uuid);
    const page = parsePage(q.page);
    const filter = { lijst: lijst._id, ...(q.status ? { status: q.status } : {}) };
    const [count, items] = await Promise.all([
      lijsten.items.countDocuments(filter),
      lijsten.items
        .find(filter)
        .sort({ _id: 1 })
        .skip((page - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE)
        .toArray(),
    ]);
    return envelope(`${deps.urls.base}${req.url}`, page, count, items.map(itemView));
  });

  app.post<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/zaken`, async (req) => {
    await admin(req);
    const { zaken: refs } = parseOrThrow(ZakenInput, jsonObject(req.body));
    await lijsten.voegZakenToe(req.params.uuid, refs);
    return view(await lijsten.get(req.params.uuid));
  });

  app.delete<{ Params: { uuid: string; zaak: string } }>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/zaken/:zaak`, async (req, reply) => {
    await admin(req);
    await lijsten.haalZaakWeg(req.params.uuid, req.params.zaak);
    return reply.code(204).send();
  });

  app.post<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/indienen`, async (req) => {
    await admin(req);
    await lijsten.dienIn(req.params.uuid);
    return view(await lijsten.get(req.params.uuid));
  });

  app.post<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/beoordelingen`, async (req) => {
    const caller = await admin(req);
    const input = parseOrThrow(BeoordelingInput, jsonObject(req.body));
    await lijsten.beoordeel(req.params.uuid, input, caller);
    return view(await lijsten.get(req.params.uuid));
  });

  // Started once the list is taken (so two starts at once start one workflow); a list already `bezig` is started again
  // (an API stopped between taking it and the start left it without a workflow; one that runs is not started twice).
  app.post<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/uitvoeren`, async (req, reply) => {
    const caller = await admin(req);
    const lijst = await lijsten.get(req.params.uuid);
    if (!['goedgekeurd', 'mislukt', 'gestopt', 'bezig'].includes(lijst.status))
      throw new ZgwError(409, 'lijst-niet-goedgekeurd', `Alleen een goedgekeurde lijst wordt uitgevoerd (status ${lijst.status}).`);
    if (lijst.status !== 'bezig') {
      const workflowId = vernietigingWorkflowId(lijst._id);
      const r = await lijsten.lijsten.updateOne(
        { _id: lijst._id, status: lijst.status },
        { $set: { status: 'bezig', bijgewerkt: new Date(), uitvoering: { workflowId, gestart: new Date(), door: caller.clientId } } },
      );
      if (!r.matchedCount) throw new ZgwError(409, 'lijst-gewijzigd', 'De lijst is intussen gewijzigd; lees haar opnieuw.');
    }
    try {
      await uitvoering.start(lijst._id, caller.tenant);
    } catch (err) {
      if (lijst.status !== 'bezig')
        await lijsten.lijsten.updateOne({ _id: lijst._id, status: 'bezig' }, { $set: { status: lijst.status, bijgewerkt: new Date() } });
      throw err;
    }
    req.log.info({ lijst: lijst._id, by: caller.clientId }, 'destruction list carried out');
    return reply.code(202).send(await view(await lijsten.get(lijst._id)));
  });

  app.post<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/stoppen`, async (req, reply) => {
    const caller = await admin(req);
    const lijst = await lijsten.get(req.params.uuid);
    if (lijst.status !== 'bezig' || !(await uitvoering.stop(lijst._id)))
      throw new ZgwError(409, 'lijst-loopt-niet', 'De uitvoering van deze lijst loopt niet.');
    req.log.info({ lijst: lijst._id, by: caller.clientId }, 'destruction list asked to stop');
    return reply.code(202).send(await view(lijst));
  });

  // the verklaring as the stored documents hold it: written again from the list's record (its rows and reviews)
  app.get<P>(`${VERNIETIGINGSLIJSTEN_PATH}/:uuid/verklaring`, async (req, reply) => {
    const caller = await admin(req);
    const { formaat } = parseOrThrow(VerklaringQuery, req.query ?? {});
    const lijst = await lijsten.get(req.params.uuid);
    if (!lijst.verklaring) throw ZgwError.notFound('Deze lijst heeft (nog) geen verklaring van vernietiging.');
    const items = await lijsten.items.find({ lijst: lijst._id, status: 'vernietigd' }).sort({ _id: 1 }).toArray();
    const { kop, regels } = verklaringVan(
      caller.tenant,
      { ...lijst, uitvoering: { gestart: lijst.verklaring.op, klaar: lijst.verklaring.op } },
      items,
    );
    const naam = `verklaring-van-vernietiging-${lijst._id}.${formaat}`;
    reply.header('content-disposition', `attachment; filename="${naam}"`);
    if (formaat === 'csv') return reply.header('content-type', 'text/csv; charset=utf-8').send(verklaringCsv(kop, regels));
    return reply.header('content-type', 'application/pdf').send(await verklaringPdf(kop, regels));
  });
}
