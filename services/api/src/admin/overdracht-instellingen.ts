import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Collection } from 'mongodb';
import { OVERDRACHT_INSTELLINGEN_COLLECTION, OVERDRACHTEN_SOORT, OverdrachtInstellingen, type StoredOverdrachtInstellingen } from '@zgw/shared';
import type { Deps } from '../common/platform/component';
import { jsonObject, parseOrThrow } from '../common/http/validation';
import { adminCaller } from './rights';

export const INSTELLINGEN_PATH = '/admin/api/v1/overdrachten/instellingen';

/** The tenant's own setting as stored (none stored yet: it takes transfers from no other organisation). */
async function read(coll: Collection<StoredOverdrachtInstellingen>): Promise<OverdrachtInstellingen> {
  const stored = await coll.findOne({ soort: OVERDRACHTEN_SOORT });
  return { accepteertVan: stored?.accepteertVan ?? [] };
}

/**
 * An organisation's consent to transfers from others (ZSDMS, route intern between tenants; docs/transfers.md): the
 * organisations (RSIN) it takes transfers from, its own setting, changed by its own administrators (callers with
 * `autorisaties.bijwerken` of the tenant; a platform administrator names the tenant with `Zgw-Tenant`):
 * `GET` and `PUT /admin/api/v1/overdrachten/instellingen` with `{"accepteertVan": ["<rsin>", ...]}`. Whether a named
 * organisation exists is not checked (nor told): a name of none lets nothing in.
 */
export async function registerOverdrachtInstellingenAdmin(app: FastifyInstance, deps: Deps): Promise<void> {
  const coll = deps.db.collection<StoredOverdrachtInstellingen>(OVERDRACHT_INSTELLINGEN_COLLECTION);
  // one document of each kind per tenant (led by the tenant, as every index of a tenant's collection)
  await coll.createIndex({ soort: 1 }, { unique: true });
  const admin = (req: FastifyRequest) => adminCaller(deps, req, 'de overdrachtinstellingen inzien en wijzigen');

  app.get(INSTELLINGEN_PATH, async (req) => {
    await admin(req);
    return read(coll);
  });

  app.put(INSTELLINGEN_PATH, async (req) => {
    const caller = await admin(req);
    const body = parseOrThrow(OverdrachtInstellingen, jsonObject(req.body));
    const accepteertVan = [...new Set(body.accepteertVan)];
    const write = () =>
      coll.updateOne(
        { soort: OVERDRACHTEN_SOORT },
        { $set: { accepteertVan, _updated: new Date() }, $setOnInsert: { _id: randomUUID() } },
        { upsert: true },
      );
    try {
      await write();
    } catch (err) {
      // two first writes at once: the other one made the document, this one changes it
      if ((err as { code?: number }).code !== 11000) throw err;
      await write();
    }
    req.log.info({ accepteertVan, by: caller.clientId }, 'overdrachtinstellingen changed');
    return read(coll);
  });
}
