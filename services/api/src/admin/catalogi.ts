import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import type { CatalogiLinks } from '../common/platform/links';
import { UUID } from '../common/http/urls';
import { parseOrThrow } from '../common/http/validation';
import { adminCaller } from './rights';

/** The largest catalogus ZIP taken over HTTP (packed; unpacked the import takes at most 50 MB). */
const MAX_ZIP_BYTES = 20 * 1024 * 1024;

/** The platform's Catalogi API, which the catalogus endpoints and screens work through (503 when it is not mounted). */
export function catalogiOfAdmin(deps: Deps): CatalogiLinks {
  const c = deps.components.catalogi;
  if (!c) throw new ZgwError(503, 'unavailable', 'De Catalogi API is niet geladen.');
  return c;
}

const ImportQuery = z.object({
  nieuweUuids: z.enum(['true', 'false']).optional(),
  dryRun: z.enum(['true', 'false']).optional(),
});

/**
 * A catalogus out and in as one ZIP (Open Zaak's layout, docs/moving-in.md), within the caller's tenant (a platform
 * administrator names another with `Zgw-Tenant`): `GET /admin/api/v1/catalogussen/{uuid}/export` and
 * `POST /admin/api/v1/catalogussen/import` with the ZIP as body (`application/zip`), `?nieuweUuids=true` for new
 * UUIDs, `?dryRun=true` to see what would be made.
 */
export async function registerCatalogiAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  const exchange = () => catalogiOfAdmin(deps).uitwisseling;
  app.get<{ Params: { uuid: string } }>('/admin/api/v1/catalogussen/:uuid/export', async (req, reply) => {
    const caller = await adminCaller(deps, req, 'catalogi exporteren');
    if (!UUID.test(req.params.uuid)) throw ZgwError.notFound(`Catalogus ${req.params.uuid} bestaat niet.`);
    const zip = await exchange().export(req.params.uuid);
    req.log.info({ catalogus: req.params.uuid, by: caller.clientId }, 'catalogus exported');
    return reply
      .type('application/zip')
      .header('Content-Disposition', `attachment; filename="catalogus-${req.params.uuid}.zip"`)
      .header('Cache-Control', 'no-store')
      .send(Buffer.from(zip));
  });
  await app.register(async (scope) => {
    scope.addContentTypeParser(['application/zip', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: MAX_ZIP_BYTES }, (_req, body, done) =>
      done(null, body),
    );
    scope.post('/admin/api/v1/catalogussen/import', async (req, reply) => {
      const caller = await adminCaller(deps, req, 'catalogi importeren');
      const q = parseOrThrow(ImportQuery, req.query ?? {});
      if (!Buffer.isBuffer(req.body) || !req.body.length)
        throw ZgwError.field('bestand', 'required', 'Stuur de ZIP als body met Content-Type application/zip.');
      const dryRun = q.dryRun === 'true';
      const report = await exchange().import(new Uint8Array(req.body), { nieuweUuids: q.nieuweUuids === 'true', dryRun }, caller);
      req.log.info(
        { catalogus: report.catalogus, bron: report.bron, aantallen: report.aantallen, dryRun, by: caller.clientId },
        'catalogus imported',
      );
      return reply.code(dryRun ? 200 : 201).send(report);
    });
  });
}
