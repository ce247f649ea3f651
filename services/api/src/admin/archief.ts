import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AUDITTRAIL_COLLECTION } from '@zgw/shared';
import type { Caller } from '../common/auth/auth';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import { PAGE_SIZE, PageQuery, envelope, parsePage } from '../common/http/pagination';
import { LIVE, type Stored } from '../common/storage/store';
import { UUID } from '../common/http/urls';
import { jsonObject, parseOrThrow } from '../common/http/validation';
import { OP_BEWARING, WERKLIJST, WERKLIJST_SORT, opBewaring, werklijstReden, type WerklijstReden } from '../components/zaken/bewaring';
import type { Zaken } from '../components/zaken/context';
import type { Bewaring, ZaakDoc } from '../components/zaken/schemas';
import { adminCaller } from './rights';

/** The longest reason a hold takes. */
export const MAX_REDEN = 1000;

const BewaringInput = z.object({
  reden: z
    .string({ error: 'Geef de reden van de juridische bewaring.' })
    .trim()
    .max(MAX_REDEN, { error: `De reden is ten hoogste ${MAX_REDEN} tekens.` })
    .refine((s) => s.length > 0, { message: 'Dit veld mag niet leeg zijn.', params: { code: 'blank' } }),
});

const ListQuery = z.object({}).extend(PageQuery.shape);

export const BEWARING_PATH = '/admin/api/v1/archief/bewaring';
export const WERKLIJST_PATH = '/admin/api/v1/archief/werklijst';
const zaakBewaring = (uuid: string) => `/admin/api/v1/zaken/${uuid}/juridische-bewaring`;

const TOELICHTING: Record<WerklijstReden, string> = {
  geen_archiefactiedatum:
    'Archiefnominatie vernietigen, maar de archiefactiedatum is niet af te leiden (afleidingswijze ander_datumkenmerk, of een bron zonder datum). Zet de archiefactiedatum met PATCH op de zaak.',
  geen_resultaat:
    'De zaak is afgesloten zonder resultaat: er is geen archiefnominatie af te leiden. Zet archiefnominatie en archiefactiedatum met PATCH op de zaak.',
  geen_archiefnominatie: 'Het resultaattype geeft geen archiefnominatie. Zet archiefnominatie en archiefactiedatum met PATCH op de zaak.',
};

/**
 * The archivist's admin endpoints (docs/admin.md "Archief"), within the caller's organisation:
 * - `PUT /admin/api/v1/zaken/{uuid}/juridische-bewaring` with `{"reden": "..."}`: puts a zaak on legal hold (or
 *   changes the reason of its hold); `DELETE` lifts it. Each is an entry in the zaak's audit trail (actie
 *   `juridische_bewaring` / `juridische_bewaring_opgeheven`, the reason in `toelichting`). The hold is not part of
 *   the zaak's ZGW representation; a destruction list checks it with `opBewaring` (components/zaken/bewaring.ts).
 * - `GET /admin/api/v1/archief/bewaring`: the zaken on hold, newest hold first, paginated.
 * - `GET /admin/api/v1/archief/werklijst`: closed zaken whose archiving is incomplete (archiefnominatie `vernietigen`
 *   without an archiefactiedatum, or no archiefnominatie), oldest einddatum first, paginated, each with why; the
 *   archivist sets the dates with the Zaken API's PATCH on the zaak's `url`.
 */
export function registerArchiefAdmin(app: FastifyInstance, deps: Deps): void {
  const component = (): Zaken => {
    const z = deps.components.zaken as unknown as Zaken | undefined;
    if (!z) throw new ZgwError(503, 'unavailable', 'De Zaken API is niet geladen.');
    return z;
  };
  const admin = (req: FastifyRequest) => adminCaller(deps, req, 'het archief beheren (juridische bewaring, werklijst)');

  const zaakOf = async (z: Zaken, uuid: string): Promise<Stored<ZaakDoc>> => {
    const zaak = UUID.test(uuid) ? await z.zaken.store.get(uuid) : null;
    if (!zaak) throw ZgwError.notFound(`Zaak ${uuid} bestaat niet.`);
    return zaak;
  };

  const holdView = (z: Zaken, zaak: Stored<ZaakDoc>) => {
    const b = zaak._bewaring;
    const sinds = b?.sinds ?? zaak._bewaardSinds;
    return {
      zaak: z.zaken.url(zaak._id),
      identificatie: zaak.identificatie,
      zaaktype: zaak.zaaktype,
      einddatum: zaak.einddatum ?? null,
      reden: b?.reden ?? '',
      gezetDoor: b?.door ?? '',
      gezetDoorWeergave: b?.doorWeergave ?? '',
      gezetOp: sinds ? new Date(sinds).toISOString() : null,
      opheffen: `${deps.urls.base}${zaakBewaring(zaak._id)}`,
    };
  };

  /** The zaak's audit trail entry of setting or lifting its hold: the zaak unchanged, the reason in toelichting. */
  const audit = async (z: Zaken, zaak: Stored<ZaakDoc>, caller: Caller, req: FastifyRequest, gezet: boolean, reden: string) => {
    const entry = z.zaken.auditEntry(z.zaken.ctx(caller, zaak._id, req), 'partial_update', zaak._id, zaak, zaak);
    if (!entry) return;
    Object.assign(entry, {
      uuid: randomUUID(),
      actie: gezet ? 'juridische_bewaring' : 'juridische_bewaring_opgeheven',
      actieWeergave: gezet ? 'Juridische bewaring ingesteld' : 'Juridische bewaring opgeheven',
      resultaat: gezet ? 200 : 204,
      toelichting: gezet ? `Juridische bewaring: ${reden}` : `Juridische bewaring opgeheven (reden was: ${reden})`,
    });
    await deps.db.collection<{ _id: string }>(AUDITTRAIL_COLLECTION).updateOne({ _id: entry.uuid }, { $setOnInsert: entry }, { upsert: true });
  };

  app.put<{ Params: { uuid: string } }>('/admin/api/v1/zaken/:uuid/juridische-bewaring', async (req) => {
    const caller = await admin(req);
    const { reden } = parseOrThrow(BewaringInput, jsonObject(req.body));
    const z = component();
    const zaak = await zaakOf(z, req.params.uuid);
    const sinds = new Date();
    const bewaring: Bewaring = { reden, door: caller.clientId, doorWeergave: caller.userRepresentation || caller.clientId, sinds };
    const r = await z.zaken.store.raw.updateOne({ _id: zaak._id, ...LIVE }, { $set: { _bewaring: bewaring, _bewaardSinds: sinds } });
    if (!r.matchedCount) throw ZgwError.notFound(`Zaak ${req.params.uuid} bestaat niet.`);
    await audit(z, zaak, caller, req, true, reden);
    req.log.info({ zaak: zaak._id, by: caller.clientId, eerder: opBewaring(zaak) }, 'legal hold set');
    return holdView(z, { ...zaak, _bewaring: bewaring, _bewaardSinds: sinds });
  });

  app.delete<{ Params: { uuid: string } }>('/admin/api/v1/zaken/:uuid/juridische-bewaring', async (req, reply) => {
    const caller = await admin(req);
    const z = component();
    const zaak = await zaakOf(z, req.params.uuid);
    const r = opBewaring(zaak)
      ? await z.zaken.store.raw.updateOne(
          { _id: zaak._id, _bewaardSinds: { $exists: true }, ...LIVE },
          { $unset: { _bewaring: '', _bewaardSinds: '' } },
        )
      : { modifiedCount: 0 };
    if (!r.modifiedCount) throw ZgwError.notFound(`Zaak ${req.params.uuid} staat niet onder juridische bewaring.`);
    await audit(z, zaak, caller, req, false, zaak._bewaring?.reden ?? '');
    req.log.info({ zaak: zaak._id, by: caller.clientId }, 'legal hold lifted');
    return reply.code(204).send();
  });

  app.get(BEWARING_PATH, async (req) => {
    await admin(req);
    const q = parseOrThrow(ListQuery, req.query ?? {});
    const z = component();
    const page = parsePage(q.page);
    const { count, items, ...cont } = await z.zaken.store.page(OP_BEWARING, {
      page,
      size: PAGE_SIZE,
      sort: { _bewaardSinds: -1, _id: -1 },
      cursor: q.cursor,
    });
    return envelope(
      `${deps.urls.base}${req.url}`,
      page,
      count,
      items.map((zaak) => holdView(z, zaak)),
      cont,
    );
  });

  app.get(WERKLIJST_PATH, async (req) => {
    await admin(req);
    const q = parseOrThrow(ListQuery, req.query ?? {});
    const z = component();
    const page = parsePage(q.page);
    const { count, items, ...cont } = await z.zaken.store.page(WERKLIJST, { page, size: PAGE_SIZE, sort: WERKLIJST_SORT, cursor: q.cursor });
    const resultaatIds = items.map((zaak) => zaak._resultaat).filter((id): id is string => !!id);
    const resultaten = new Map((resultaatIds.length ? await z.resultaten.store.getMany(resultaatIds) : []).map((r) => [r._id, r]));
    const results = items.map((zaak) => {
      const resultaat = zaak._resultaat ? resultaten.get(zaak._resultaat) : undefined;
      const reden = werklijstReden(zaak);
      return {
        url: z.zaken.url(zaak._id),
        identificatie: zaak.identificatie,
        zaaktype: zaak.zaaktype,
        einddatum: zaak.einddatum ?? null,
        archiefnominatie: zaak.archiefnominatie ?? null,
        archiefactiedatum: zaak.archiefactiedatum ?? null,
        archiefstatus: zaak.archiefstatus ?? 'nog_te_archiveren',
        resultaat: resultaat ? z.resultaten.url(resultaat._id) : null,
        resultaattype: resultaat?.resultaattype ?? null,
        reden,
        toelichting: TOELICHTING[reden],
        opBewaring: opBewaring(zaak),
      };
    });
    return envelope(`${deps.urls.base}${req.url}`, page, count, results, cont);
  });
}
