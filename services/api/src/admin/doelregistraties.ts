import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Collection, Db } from 'mongodb';
import {
  DOELREGISTRATIES_COLLECTION,
  Doelregistratie,
  NIET_GEACCEPTEERD,
  accepteertOverdrachten,
  doelregistratieView,
  inTenant,
  requireTenant,
  parseDoelregistratiesEnv,
  sealSecret,
  type Logger,
  type Pii,
  type StoredDoelregistratie,
} from '@zgw/shared';
import type { Deps } from '../common/platform/component';
import { ZgwError } from '../common/http/errors';
import { adminCaller } from './rights';
import { PAGE_SIZE, PageQuery, envelope, parsePage } from '../common/http/pagination';
import { jsonObject, parseOrThrow } from '../common/http/validation';

const PATH = '/admin/api/v1/doelregistraties';

function collection(db: Db): Collection<StoredDoelregistratie> {
  return db.collection<StoredDoelregistratie>(DOELREGISTRATIES_COLLECTION);
}

/** A name taken, here or in another tenant: one answer, which does not say where. */
const nameTaken = (naam: string) => ZgwError.field('naam', 'unique', `De naam "${naam}" is al in gebruik; kies een andere.`);

/**
 * Stores a doelregistratie by its naam, its secret sealed; a secret left out keeps the stored one. A new one gets its
 * id (uuid), a changed one keeps it.
 */
async function save(
  coll: Collection<StoredDoelregistratie>,
  pii: Pii,
  d: Doelregistratie,
  existing: StoredDoelregistratie | null,
): Promise<StoredDoelregistratie> {
  const { naam, ...fields } = d;
  const now = new Date();
  const secret = fields.secret ? sealSecret(pii, 'doelregistratie', fields.secret) : fields.route === 'extern' ? existing?.secret : undefined;
  const doc: StoredDoelregistratie = {
    ...fields,
    ...(secret ? { secret } : {}),
    _id: naam,
    uuid: existing?.uuid ?? randomUUID(),
    _created: existing?._created ?? now,
    _updated: now,
  };
  if (!doc.secret) delete doc.secret;
  try {
    await coll.replaceOne({ _id: naam }, doc, { upsert: true });
  } catch (err) {
    // the name is another tenant's (names are unique across the installation): answered as one of this tenant's
    if ((err as { code?: number }).code === 11000) throw nameTaken(naam);
    throw err;
  }
  return doc;
}

/**
 * An internal route to another tenant only with its consent: that tenant must exist and take transfers from this one
 * (its setting `accepteertVan`). Refused with one answer either way: it does not tell whether the organisation exists.
 */
async function withConsentingTenant(deps: Deps, d: Doelregistratie): Promise<Doelregistratie> {
  if (!d.tenant) return d;
  const bron = requireTenant();
  if (!(await deps.tenants.get(d.tenant)) || !(await accepteertOverdrachten(deps.db, d.tenant, bron)))
    throw ZgwError.field('tenant', 'not_accepted', NIET_GEACCEPTEERD);
  return d;
}

/**
 * The doelregistraties of ZSDMS transfers (callers with `autorisaties.bijwerken`, like the other admin endpoints):
 * `POST` (201), `GET` list (paginated), `GET`, `PUT` and `DELETE` by naam. A secret is stored and never returned.
 */
export async function registerDoelregistratiesAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  const coll = collection(deps.db);
  // The external systems (route extern) are read by route, for their credentials (common/platform/external-systems.ts).
  await coll.createIndex({ route: 1 });
  // the list, by naam within the tenant
  await coll.createIndex({ _id: 1 });
  // a transfer's doelregistratie, by its id within the tenant (those stored before ids were given have none yet)
  await coll.createIndex({ uuid: 1 }, { unique: true, sparse: true });
  const admin = (req: FastifyRequest) => adminCaller(deps, req, 'doelregistraties beheren');
  const body = (req: FastifyRequest) => jsonObject(req.body);
  const needsSecret = (d: Doelregistratie, existing: StoredDoelregistratie | null) => {
    if (d.route === 'extern' && !d.secret && !existing?.secret) throw ZgwError.field('secret', 'required', 'Verplicht bij route extern.');
  };
  const found = async (naam: string) => {
    const d = await coll.findOne({ _id: naam });
    if (!d) throw ZgwError.notFound(`Geen doelregistratie "${naam}".`);
    return d;
  };

  app.post(PATH, async (req, reply) => {
    const caller = await admin(req);
    const d = await withConsentingTenant(deps, parseOrThrow(Doelregistratie, body(req)));
    if (await coll.findOne({ _id: d.naam })) throw nameTaken(d.naam);
    needsSecret(d, null);
    const saved = await save(coll, deps.pii, d, null);
    req.log.info({ doelregistratie: d.naam, route: d.route, by: caller.clientId }, 'doelregistratie created');
    return reply
      .code(201)
      .header('location', `${deps.urls.base}${PATH}/${encodeURIComponent(d.naam)}`)
      .send(doelregistratieView(saved));
  });

  app.get(PATH, async (req) => {
    await admin(req);
    const q = parseOrThrow(PageQuery.strict(), req.query ?? {});
    const page = parsePage(q.page);
    const [count, docs] = await Promise.all([
      coll.estimatedDocumentCount(),
      coll
        .find({})
        .sort({ _id: 1 })
        .skip((page - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE)
        .toArray(),
    ]);
    return envelope(`${deps.urls.base}${req.url}`, page, count, docs.map(doelregistratieView));
  });

  app.get<{ Params: { naam: string } }>(`${PATH}/:naam`, async (req) => {
    await admin(req);
    return doelregistratieView(await found(req.params.naam));
  });

  app.put<{ Params: { naam: string } }>(`${PATH}/:naam`, async (req) => {
    const caller = await admin(req);
    const existing = await found(req.params.naam);
    const d = await withConsentingTenant(deps, parseOrThrow(Doelregistratie, body(req)));
    if (d.naam !== req.params.naam) throw ZgwError.field('naam', 'invalid', 'De naam van een doelregistratie verandert niet (maak een nieuwe).');
    needsSecret(d, existing);
    const saved = await save(coll, deps.pii, d, existing);
    req.log.info({ doelregistratie: d.naam, route: d.route, by: caller.clientId }, 'doelregistratie changed');
    return doelregistratieView(saved);
  });

  app.delete<{ Params: { naam: string } }>(`${PATH}/:naam`, async (req, reply) => {
    const caller = await admin(req);
    const r = await coll.deleteOne({ _id: req.params.naam });
    if (!r.deletedCount) throw ZgwError.notFound(`Geen doelregistratie "${req.params.naam}".`);
    req.log.info({ doelregistratie: req.params.naam, by: caller.clientId }, 'doelregistratie removed');
    return reply.code(204).send();
  });
}

/** Registers (or replaces) the doelregistraties of `ZGW_DOELREGISTRATIES` at start, as `ZGW_CLIENTS` does clients. */
export async function bootstrapDoelregistraties(db: Db, pii: Pii, raw: string, log: Logger, tenant: string): Promise<void> {
  const coll = collection(db);
  for (const d of parseDoelregistratiesEnv(raw)) {
    // the default tenant's (ZGW_DEFAULT_TENANT)
    await inTenant(tenant, async () => save(coll, pii, d, await coll.findOne({ _id: d.naam })));
    log.info({ doelregistratie: d.naam, route: d.route }, 'doelregistratie registered from ZGW_DOELREGISTRATIES');
  }
}
