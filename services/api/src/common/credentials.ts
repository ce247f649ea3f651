import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import { isRsin, openSecret, sealSecret, type Pii } from '@zgw/shared';

export interface Credential {
  _id: string; // client_id, unique across the installation (a ZGW token carries only the client id)
  secret: string;
  /** The RSIN of the client's tenant; absent: the default tenant (ZGW_DEFAULT_TENANT, and clients from before tenants). */
  tenant?: string;
  createdAt: Date;
}

/** The platform's credential store: one HS256 secret per client id, stored sealed with the PII keys. */
export class Credentials {
  readonly coll: Collection<Credential>;

  constructor(
    db: Db,
    private readonly pii: Pii,
  ) {
    this.coll = db.collection<Credential>('credentials');
  }

  /** A client's secret and tenant (undefined: the default tenant); undefined for an unknown client. */
  async lookup(clientId: string): Promise<{ secret: string; tenant?: string } | undefined> {
    const found = await this.coll.findOne({ _id: clientId });
    return found ? { secret: openSecret(this.pii, 'credential', found.secret), ...(found.tenant ? { tenant: found.tenant } : {}) } : undefined;
  }

  async secretFor(clientId: string): Promise<string | undefined> {
    return (await this.lookup(clientId))?.secret;
  }

  /** The tenant a client belongs to (undefined: the default tenant, or an unknown client). */
  async tenantOf(clientId: string): Promise<string | undefined> {
    return (await this.coll.findOne({ _id: clientId }, { projection: { tenant: 1 } }))?.tenant;
  }

  /**
   * Registers (or re-keys) a client id; returns the secret, generated when none is given. A client belongs to one
   * tenant: re-keying keeps it, and naming another one is refused.
   */
  async set(clientId: string, secret?: string, tenant?: string): Promise<string> {
    const value = secret ?? randomBytes(24).toString('base64url');
    const current = await this.coll.findOne({ _id: clientId }, { projection: { tenant: 1 } });
    if (current && tenant && (current.tenant ?? tenant) !== tenant)
      throw new Error(`client id "${clientId}" belongs to tenant ${current.tenant}: client ids are unique across the installation`);
    await this.coll.updateOne(
      { _id: clientId },
      { $set: { secret: sealSecret(this.pii, 'credential', value), ...(tenant ? { tenant } : {}) }, $setOnInsert: { createdAt: new Date() } },
      { upsert: true },
    );
    return value;
  }

  /** The number of clients of a tenant (`orUnnamed`: also those registered without one, the default tenant's). */
  async countFor(tenant: string, orUnnamed = false): Promise<number> {
    return this.coll.countDocuments((orUnnamed ? { tenant: { $in: [tenant, null] } } : { tenant }) as Filter<Credential>);
  }

  async remove(clientId: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: clientId })).deletedCount > 0;
  }

  async list(): Promise<{ clientId: string; tenant?: string; createdAt: Date }[]> {
    return (
      await this.coll
        .find({}, { projection: { secret: 0 } })
        .sort({ _id: 1 })
        .toArray()
    ).map((c) => ({ clientId: c._id, ...(c.tenant ? { tenant: c.tenant } : {}), createdAt: c.createdAt }));
  }
}

/**
 * Parses `ZGW_CLIENTS` ("id:secret[:all][@rsin],..."): credentials registered at start, `all` adds an all-rights
 * applicatie, `@rsin` names the client's tenant (split at the last `@` followed by nine digits, so a secret may hold
 * `@`); without it the client is the default tenant's.
 */
export function parseClientsEnv(value: string): { clientId: string; secret: string; allRights: boolean; tenant?: string }[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = /@(\d{9})$/.exec(entry);
      const tenant = at?.[1];
      if (tenant && !isRsin(tenant)) throw new Error(`ZGW_CLIENTS entry "${entry.split(':')[0]}:…": ${tenant} is not an RSIN (eleven test)`);
      const [clientId, secret, flag] = (at ? entry.slice(0, at.index) : entry).split(':');
      if (!clientId || !secret) throw new Error(`ZGW_CLIENTS entry "${clientId ?? ''}:…" needs the form clientId:secret[:all][@rsin]`);
      return { clientId, secret, allRights: flag === 'all', ...(tenant ? { tenant } : {}) };
    });
}
