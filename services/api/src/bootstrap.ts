import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { Logger } from '@zgw/shared';
import { Credentials, parseClientsEnv } from './common/credentials';
import { LIVE } from './common/store';

/**
 * Registers the client ids of `ZGW_CLIENTS` with their secrets; for entries marked `all` it also creates an
 * applicatie with all rights unless one already holds that client id. Lets an operator get in without a DB shell.
 */
export async function bootstrapClients(db: Db, spec: string, log: Logger): Promise<void> {
  const creds = new Credentials(db);
  for (const c of parseClientsEnv(spec)) {
    await creds.set(c.clientId, c.secret);
    if (c.allRights) await ensureAllRights(db, c.clientId);
    log.info({ clientId: c.clientId, allRights: c.allRights }, 'client registered from ZGW_CLIENTS');
  }
}

export async function ensureAllRights(db: Db, clientId: string, label = clientId): Promise<boolean> {
  const coll = db.collection('applicaties');
  if (await coll.findOne({ clientIds: clientId, ...LIVE })) return false;
  await coll.insertOne({
    _id: randomUUID() as never,
    _created: new Date(),
    clientIds: [clientId],
    label,
    heeftAlleAutorisaties: true,
    alleenIsGereedVoorPublicatie: false,
    autorisaties: [],
  });
  return true;
}
