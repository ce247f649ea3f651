import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { inTenant, type Config, type Logger, type Pii } from '@zgw/shared';
import { Credentials, parseClientsEnv, TRANSFER_LABEL } from './common/auth/credentials';
import { LIVE, type RawDoc } from './common/storage/store';
import { Tenants } from './common/auth/tenants';

/**
 * Registers the client ids of `ZGW_CLIENTS` with their secrets and tenants (creating a tenant named there that does
 * not exist yet); for entries marked `all` it also creates an applicatie with all rights in the client's tenant
 * unless one already holds that client id. Lets an operator get in without a DB shell. A client id another tenant
 * holds, or one of `reserved` (reservedClientIds: the transfer worker's), stops the start.
 */
export async function bootstrapClients(
  db: Db,
  pii: Pii,
  spec: string,
  log: Logger,
  tenants: Tenants,
  reserved: readonly string[] = [],
): Promise<void> {
  const creds = new Credentials(db, pii, tenants.defaultTenant, reserved);
  for (const c of parseClientsEnv(spec)) {
    const tenant = c.tenant ?? tenants.defaultTenant;
    await tenants.ensure(tenant);
    await creds.set(c.clientId, tenant, c.secret);
    if (c.allRights) await ensureAllRights(db, c.clientId, tenant);
    log.info({ clientId: c.clientId, allRights: c.allRights, tenant }, 'client registered from ZGW_CLIENTS');
  }
}

/** Creates an applicatie with all rights (within `tenant`) for the client unless one already holds its client id. */
export async function ensureAllRights(db: Db, clientId: string, tenant: string, label = clientId): Promise<boolean> {
  return inTenant(tenant, () => allRights(db, clientId, label));
}

async function allRights(db: Db, clientId: string, label: string): Promise<boolean> {
  const coll = db.collection<RawDoc>('applicaties');
  if (await coll.findOne({ clientIds: clientId, ...LIVE })) return false;
  await coll.insertOne({
    _id: randomUUID(),
    _created: new Date(),
    clientIds: [clientId],
    label,
    heeftAlleAutorisaties: true,
    alleenIsGereedVoorPublicatie: false,
    autorisaties: [],
  });
  return true;
}

/**
 * The transfer worker's own client (TRANSFER_CLIENT_ID with TRANSFER_SECRET): all rights on this platform, so the
 * copies it makes carry its client id in their audit trail. Without a secret no transfer can run; said at start.
 * Its id is the platform's (the Authenticator takes a token under it only when signed with TRANSFER_SECRET): a
 * credential an organisation stored under it, before it was reserved, is removed.
 */
export async function bootstrapTransferClient(db: Db, pii: Pii, config: Config, log: Logger): Promise<void> {
  const { TRANSFER_CLIENT_ID: clientId, ZGW_DEFAULT_TENANT: tenant } = config;
  const creds = new Credentials(db, pii, tenant);
  const holder = await creds.tenantOf(clientId);
  if (holder !== undefined && holder !== tenant) {
    await creds.remove(clientId);
    log.warn({ clientId, tenant: holder }, "removed a credential another organisation stored under the transfer worker's client id");
  }
  if (!config.TRANSFER_SECRET) {
    if (holder === tenant) await creds.remove(clientId); // not used without the secret: not kept either
    log.warn({ clientId }, 'TRANSFER_SECRET is not set: the transfer worker cannot reach this platform, transfers stay ontvangen');
    return;
  }
  await creds.set(clientId, tenant, config.TRANSFER_SECRET);
  await ensureAllRights(db, clientId, tenant, TRANSFER_LABEL);
}
