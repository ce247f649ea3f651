import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { OVERDRACHT_STATUSSEN } from '@zgw/shared';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import { PAGE_SIZE, PageQuery, envelope, parsePage } from '../common/http/pagination';
import { UUID } from '../common/http/urls';
import { parseOrThrow } from '../common/http/validation';
import type { Overdrachten } from '../components/overdrachten/context';
import { filtersOf } from '../components/overdrachten/overdrachten';
import { adminCaller } from './rights';

const Query = z
  .object({ status: z.enum(OVERDRACHT_STATUSSEN).optional(), zaak: z.string().url().optional(), doelregistratie: z.string().max(100).optional() })
  .strict()
  .extend(PageQuery.shape);

const BASE = '/admin/api/v1/overdrachten';

/**
 * An operator's hold on transfers (contract: docs/transfers.md): every transfer (paginated, newest first, filters as
 * in the Overdrachten API) and one, with its workflow's place in the Temporal web UI; cancel a running one (its
 * workflow compensates and ends `geannuleerd`) and retry a `mislukt` one.
 */
export function registerOverdrachtenAdmin(app: FastifyInstance, deps: Deps): void {
  const component = () => deps.components.overdrachten!;
  const temporalUi = (workflowId: unknown) =>
    deps.config.TEMPORAL_UI_URL
      ? `${deps.config.TEMPORAL_UI_URL.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(deps.config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(String(workflowId))}`
      : null;
  const view = async (o: Overdrachten, doc: Parameters<Overdrachten['overdrachten']['toApi']>[0]) => {
    const body = await o.overdrachten.toApi(doc);
    return { ...body, temporalUrl: temporalUi(body.workflowId) };
  };

  app.get(BASE, async (req) => {
    await adminCaller(deps, req, 'overdrachten inzien en beheren');
    const q = parseOrThrow(Query, req.query ?? {});
    const o = component();
    // every transfer (an administrator's view, not limited by zaken autorisaties), filtered as the Overdrachten API does
    const filter = filtersOf(q);
    const page = parsePage(q.page);
    const { count, items, ...cont } = await o.overdrachten.store.page(filter, {
      page,
      size: PAGE_SIZE,
      sort: { _created: -1, _id: -1 },
      cursor: q.cursor,
    });
    return envelope(`${deps.urls.base}${req.url}`, page, count, await Promise.all(items.map((d) => view(o, d))), cont);
  });

  app.get(`${BASE}/:uuid`, async (req) => {
    await adminCaller(deps, req, 'overdrachten inzien en beheren');
    const { uuid } = req.params as { uuid: string };
    const o = component();
    const doc = UUID.test(uuid) ? await o.overdrachten.store.get(uuid) : null;
    if (!doc) throw ZgwError.notFound(`overdracht ${uuid} bestaat niet.`);
    return view(o, doc);
  });

  const act = (name: string, what: (o: Overdrachten, uuid: string) => Promise<boolean>, refusal: string) =>
    app.post(`${BASE}/:uuid/${name}`, async (req, reply) => {
      await adminCaller(deps, req, 'overdrachten inzien en beheren');
      const { uuid } = req.params as { uuid: string };
      if (!UUID.test(uuid)) throw ZgwError.notFound(`Ongeldige uuid "${uuid}".`);
      const o = component();
      if (!(await o.overdrachten.store.get(uuid))) throw ZgwError.notFound(`overdracht ${uuid} bestaat niet.`);
      if (!(await what(o, uuid))) throw new ZgwError(409, 'conflict', refusal);
      const stored = await o.overdrachten.store.get(uuid);
      return reply.code(202).send(await view(o, stored!));
    });
  act(
    'annuleren',
    (o, uuid) => o.annuleer(uuid),
    'Deze overdracht loopt niet (meer); annuleren kan alleen bij status ontvangen of bezig met een lopende workflow.',
  );
  act('opnieuw', (o, uuid) => o.opnieuw(uuid), 'Alleen een mislukte overdracht kan opnieuw worden gestart.');
}
