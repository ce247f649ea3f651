import type { FastifyInstance } from 'fastify';
import type { Deps } from '../common/component';
import { ZgwError } from '../common/errors';
import { UUID } from '../common/urls';
import type { Overdrachten } from '../components/overdrachten/context';
import { adminCaller } from './notificaties';

const BASE = '/admin/api/v1/overdrachten';

/**
 * An operator's hold on transfers (contract: README, Transfers): cancel a running one (its workflow compensates and
 * ends `geannuleerd`) and retry a `mislukt` one. Reading them is the Overdrachten API's list and detail.
 */
export function registerOverdrachtenAdmin(app: FastifyInstance, deps: Deps): void {
  const component = () => deps.components.get('overdrachten') as Overdrachten;
  const act = (name: string, what: (o: Overdrachten, uuid: string) => Promise<boolean>, refusal: string) =>
    app.post(`${BASE}/:uuid/${name}`, async (req, reply) => {
      await adminCaller(deps, req);
      const { uuid } = req.params as { uuid: string };
      if (!UUID.test(uuid)) throw ZgwError.notFound(`Ongeldige uuid "${uuid}".`);
      const o = component();
      if (!(await o.overdrachten.store.get(uuid))) throw ZgwError.notFound(`overdracht ${uuid} bestaat niet.`);
      if (!(await what(o, uuid))) throw new ZgwError(409, 'conflict', refusal);
      const stored = await o.overdrachten.store.get(uuid);
      return reply.code(202).send(await o.overdrachten.toApi(stored!));
    });
  act('annuleren', (o, uuid) => o.annuleer(uuid), 'Deze overdracht loopt niet (meer); annuleren kan alleen bij status ontvangen of bezig met een lopende workflow.');
  act('opnieuw', (o, uuid) => o.opnieuw(uuid), 'Alleen een mislukte overdracht kan opnieuw worden gestart.');
}
