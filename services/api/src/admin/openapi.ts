import type { FastifyInstance } from 'fastify';
import { releaseLabel } from '@zgw/shared';
import { ComponentDocument } from '../common/http/openapi';
import type { Deps } from '../common/platform/component';

/** Where the admin API's OpenAPI document is served (`.json` and `.yaml`), as each ZGW API serves its own. */
export const ADMIN_SCHEMA_PATH = '/admin/api/v1/schema/openapi';

const documents = new WeakMap<Deps, ComponentDocument>();

/**
 * The OpenAPI document of the admin API (`/admin/api/v1`), one per app: each admin module adds its operations, built
 * from the same zod schemas that validate its requests. Every operation is for administrators (a ZGW JWT with scope
 * `autorisaties.bijwerken`, or an admin session).
 */
export function adminDocument(deps: Deps): ComponentDocument {
  let doc = documents.get(deps);
  if (!doc) {
    doc = new ComponentDocument(
      'Beheer API',
      releaseLabel(),
      `${deps.urls.base}/admin/api/v1`,
      'De beheer-endpoints van het platform, voor beheerders van een organisatie (scope autorisaties.bijwerken); een beheerder van het platform noemt de organisatie met de header Zgw-Tenant.',
    );
    documents.set(deps, doc);
  }
  return doc;
}

/** Serves the admin API's OpenAPI document (it holds no organisation's data: read without a token). */
export function registerAdminOpenApi(app: FastifyInstance, deps: Deps): void {
  app.get(`${ADMIN_SCHEMA_PATH}.json`, async (_req, reply) => reply.type('application/json').send(adminDocument(deps).json()));
  app.get(`${ADMIN_SCHEMA_PATH}.yaml`, async (_req, reply) => reply.type('application/yaml').send(adminDocument(deps).yaml()));
}
