import { z as zod } from 'zod';
import { AANMAKEN, type Zaken } from './context';
import { ReserveZaakIdentificatie, ReserveZaakIdentificatieRequest, V17 } from './schemas';

/**
 * `POST /zaaknummer_reserveren` (1.7): zaaknummers of one bronorganisatie taken from the same counter that numbers new
 * zaken, so they are never handed out automatically after; a zaak created with one of them (in that bronorganisatie)
 * takes it, under the uniqueness rule of every identificatie. The answer is a list, also of one number: the file's
 * schema says so (its description and one example show a single number as an object; a client generated from the
 * file reads the list).
 */
export function registerNummers(z: Zaken): void {
  z.api.route({
    method: 'POST',
    path: '/zaaknummer_reserveren',
    operationId: 'zaaknummer_reserveren',
    since: V17,
    summary: 'Reserveer zaaknummers binnen een bronorganisatie, zonder een zaak aan te maken.',
    scopes: [AANMAKEN],
    body: ReserveZaakIdentificatieRequest,
    response: zod.array(ReserveZaakIdentificatie),
    handler: async ({ req, body }) => {
      const today = new Date().toISOString().slice(0, 10);
      const nummers = [];
      for (let i = 0; i < (body.aantal ?? 1); i++) nummers.push({ zaaknummer: await z.identificaties.next(body.bronorganisatie, today) });
      req.log.info({ bronorganisatie: body.bronorganisatie, aantal: nummers.length }, 'zaaknummers gereserveerd');
      return nummers;
    },
  });
}
