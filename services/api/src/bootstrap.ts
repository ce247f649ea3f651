import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { inTenant, type Config, type Logger, type Pii } from '@zgw/shared';
import { Credentials, parseClientsEnv, TRANSFER_LABEL } from './common/auth/credentials';
import { LIVE, type RawDoc } from './common/platform/store';
import { Tenants } from './common/platform/tenants';

/**
 * Registers the client ids of `ZGW_CLIENTS` with their secrets and tenants (creating a tenant named there that does
 * not exist yet); for entries marked `all` it also creates an applicatie with all rights in the client's tenant
 * unless one already holds that client id. Lets an operator get in without a DB shell.
 */
export async function bootstrapClients(db: Db, pii: Pii, spec: string, log: Logger, tenants: Tenants): Promise<void> {
  const creds = new Credentials(db, pii, tenants.defaultTenant);
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
 */
export async function bootstrapTransferClient(db: Db, pii: Pii, config: Config, log: Logger): Promise<void> {
  if (!config.TRANSFER_SECRET) {
    log.warn(
      { clientId: config.TRANSFER_CLIENT_ID },
      'TRANSFER_SECRET is not set: the transfer worker cannot reach this platform, transfers stay ontvangen',
    );
    return;
  }
  await new Credentials(db, pii, config.ZGW_DEFAULT_TENANT).set(config.TRANSFER_CLIENT_ID, config.ZGW_DEFAULT_TENANT, config.TRANSFER_SECRET);
  await ensureAllRights(db, config.TRANSFER_CLIENT_ID, config.ZGW_DEFAULT_TENANT, TRANSFER_LABEL);
}
