import fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Registry, checkPiiKeys, inTenant, releaseLabel, scrubUrl, type KafkaProbe, type Logger } from '@zgw/shared';
import { mountComponent, type ComponentApi, type ComponentDef, type Deps } from './common/platform/component';
import { registerAuditAdmin } from './admin/audit';
import { registerCredentialAdmin } from './admin/credentials';
import { registerTenantsAdmin } from './admin/tenants';
import { actingWithin } from './admin/rights';
import { registerDoelregistratiesAdmin } from './admin/doelregistraties';
import { registerOverdrachtInstellingenAdmin } from './admin/overdracht-instellingen';
import { registerCatalogiAdmin } from './admin/catalogi';
import { registerNotificatiesAdmin } from './admin/notificaties';
import { registerImportenAdmin } from './admin/importen';
import { registerOverdrachtenAdmin } from './admin/overdrachten';
import { registerTemporalCodec } from './admin/temporal-codec';
import { registerArchiefAdmin } from './admin/archief';
import { registerVernietigingslijstenAdmin } from './admin/vernietigingslijsten';
import { registerAdminOpenApi } from './admin/openapi';
import { registerAdminUi } from './admin/ui';
import { sealEarlierValues } from './common/resources/pii-fields';
import { upgradeToTenants } from './common/auth/tenants';
import { registerErrorHandling, registerMethodRegistry } from './common/http/errors';
import { registerMetrics } from './common/platform/metrics';
import { COMPONENTS } from './components';
import { REFERENCE_PATH, registerApiReference } from './reference';

export interface AppOptions {
  deps: Deps;
  components?: ComponentDef[];
  health?: () => Promise<Record<string, unknown>>;
  /** Where the metrics go (main gives the process's registry, with the default process metrics); Kafka for /ready. */
  metrics?: Registry;
  kafka?: KafkaProbe;
}

export async function buildApp({ deps, components = COMPONENTS, health, metrics = new Registry(), kafka }: AppOptions): Promise<FastifyInstance> {
  const log: Logger = deps.log.child(
    {},
    {
      serializers: {
        // URLs can carry BSNs in filters: they are scrubbed before any log line is written.
        req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: scrubUrl(req.url), remoteAddress: req.ip }),
      },
    },
  );
  await checkPiiKeys(deps.db, deps.pii);
  // Before the components create their indexes: those from before tenants go, and their data becomes the default tenant's.
  await upgradeToTenants(deps.db, deps.tenants, deps.log);
  const app = fastify({
    loggerInstance: log as unknown as FastifyBaseLogger,
    bodyLimit: deps.config.BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    // A component's start checks its indexes and repairs its maintained counts: on a large database that takes longer
    // than Fastify's default 10 s, and a start must not fail for it (each component logs how long it took).
    pluginTimeout: 0,
    // A path parameter of any length reaches the routes, which refuse a bad one with a ZGW 404 (the router's own
    // limit of 100 characters would answer 414 in Fastify's format); the request line is bounded by Node's header limit.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 16 * 1024 },
  });
  registerErrorHandling(app);
  registerMethodRegistry(app);
  tolerateEmptyJsonBodies(app);

  // Each component's version without an Api-Version header, and every version of those that serve several.
  const versions = Object.fromEntries(components.map((c) => [c.name, c.defaultVersion?.(deps.config) ?? c.version]));
  const served = Object.fromEntries(components.filter((c) => c.versions).map((c) => [c.name, c.versions]));
  const links = { apiReferentie: `${deps.urls.base}${REFERENCE_PATH}`, beheer: `${deps.urls.base}/admin/` };
  app.get('/', async () => ({ release: releaseLabel(), components: versions, versions: served, links }));
  app.get('/health', async (_req, reply) => {
    try {
      await deps.db.command({ ping: 1 });
    } catch (err) {
      return reply.code(503).send({ status: 'unavailable', mongodb: (err as Error).message });
    }
    return { status: 'ok', mongodb: 'ok', ...(health ? await health() : {}) };
  });
  registerMetrics(app, deps, metrics, kafka);

  // The admin screens and JSON endpoints act within their caller's tenant (actingWithin): an organisation's
  // administrators on its own data, a platform administrator on the tenant named or chosen. (A callback hook: the rest
  // of the request runs inside it.) The caller is kept for the endpoint. A request that is not authenticated (a login
  // page; a missing token) runs in the default tenant, and the screen or endpoint itself refuses one that may not.
  app.addHook('preHandler', (req, _reply, done) => {
    if (!req.url.startsWith('/admin/')) return done();
    deps.auth.authenticate(req).then(
      (caller) =>
        actingWithin(deps, req, caller).then((acting) => {
          req.adminCaller = acting;
          inTenant(acting.tenant, () => done());
        }, done),
      () => inTenant(deps.tenants.defaultTenant, () => done()),
    );
  });
  // The admin screens first: their session hook opens the admin JSON endpoints registered after them.
  const apis: ComponentApi[] = [];
  await registerAdminUi(app, deps, apis);
  registerApiReference(app, deps, apis);
  await registerCredentialAdmin(app, deps);
  await registerTenantsAdmin(app, deps);
  await registerDoelregistratiesAdmin(app, deps);
  await registerOverdrachtInstellingenAdmin(app, deps);
  await registerCatalogiAdmin(app, deps);
  await registerAuditAdmin(app, deps);
  await registerNotificatiesAdmin(app, deps);
  registerOverdrachtenAdmin(app, deps);
  registerArchiefAdmin(app, deps);
  await registerVernietigingslijstenAdmin(app, deps);
  registerAdminOpenApi(app, deps);
  await registerImportenAdmin(app, deps, apis);
  registerTemporalCodec(app, deps);
  app.addHook('onClose', async () => deps.temporal.close());
  // The audit trail of reads: its publisher runs while the app does; what it could not send stays in the spool.
  const reads = deps.reads;
  if (reads) {
    app.addHook('onReady', async () => reads.start());
    app.addHook('onClose', async () => reads.stop());
  }
  for (const def of components) apis.push(await mountComponent(app, def, deps));
  // Once the components' indexes exist: what an earlier version stored in the clear is sealed.
  app.addHook('onReady', async () => void (await sealEarlierValues(deps.db, deps.pii, log)));
  return app;
}

/**
 * DELETE and publish requests often carry `Content-Type: application/json` without a body (the VNG tests do);
 * Fastify's JSON parser rejects that, so an empty JSON body counts as no body. Operations that need a body
 * still answer 400 when it is missing.
 */
function tolerateEmptyJsonBodies(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (String(body).trim() === '') return done(null, undefined);
    return parse(req, String(body), done);
  });
}
