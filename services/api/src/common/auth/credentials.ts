import { randomBytes } from 'node:crypto';
import type { Collection, Db, Filter } from 'mongodb';
import { isRsin, openSecret, sealSecret, type Config, type Pii } from '@zgw/shared';

const DUPLICATE_KEY = 11000;

export interface Credential {
  _id: string; // client_id, unique across the installation (a ZGW token carries only the client id)
  secret: string;
  /** The RSIN of the client's tenant; absent: the default tenant (ZGW_DEFAULT_TENANT, and clients from before tenants). */
  tenant?: string;
  createdAt: Date;
}

/**
 * The platform's credential store: one HS256 secret per client id, stored sealed with the PII keys, each client of
 * one tenant. A credential stored without a tenant (from before tenants) is the default tenant's, everywhere here.
 */
export class Credentials {
  readonly coll: Collection<Credential>;

  constructor(
    db: Db,
    private readonly pii: Pii,
    /** ZGW_DEFAULT_TENANT: the tenant of credentials stored without one. */
    private readonly defaultTenant: string,
    /**
     * Client ids the platform keeps for itself (the transfer worker's, TRANSFER_CLIENT_ID: see reservedClientIds):
     * registering one is refused as a client id another tenant holds is, so the answer does not say whose it is.
     */
    private readonly reserved: readonly string[] = [],
  ) {
    this.coll = db.collection<Credential>('credentials');
  }

  /** The credentials of a tenant (the default tenant's include those stored without one). */
  private of(tenant: string): Filter<Credential> {
    return (tenant === this.defaultTenant ? { tenant: { $in: [tenant, null] } } : { tenant }) as Filter<Credential>;
  }

  /** A stored credential's tenant. */
  private tenantIn(c: Pick<Credential, 'tenant'>): string {
    return c.tenant ?? this.defaultTenant;
  }

  /** A client's secret and tenant; undefined for an unknown client. */
  async lookup(clientId: string): Promise<{ secret: string; tenant: string } | undefined> {
    const found = await this.coll.findOne({ _id: clientId });
    return found ? { secret: openSecret(this.pii, 'credential', found.secret), tenant: this.tenantIn(found) } : undefined;
  }

  async secretFor(clientId: string): Promise<string | undefined> {
    return (await this.lookup(clientId))?.secret;
  }

  /** The tenant a client belongs to; undefined for an unknown client. */
  async tenantOf(clientId: string): Promise<string | undefined> {
    const found = await this.coll.findOne({ _id: clientId }, { projection: { tenant: 1 } });
    return found ? this.tenantIn(found) : undefined;
  }

  /**
   * Registers (or re-keys) a client id of `tenant`; returns the secret, generated when none is given. A client
   * belongs to one tenant: re-keying another tenant's client is refused (client ids are unique across the installation).
   */
  async set(clientId: string, tenant: string, secret?: string): Promise<string> {
    if (this.reserved.includes(clientId)) throw new ClientOfOtherTenant(clientId);
    const value = secret ?? randomBytes(24).toString('base64url');
    const sealed = sealSecret(this.pii, 'credential', value);
    // A re-key changes only a credential of this tenant; a new one is an insert, which the _id index lets only one
    // of two tenants registering the same id at once make (an upsert on the id alone let the later take it over).
    for (let attempt = 0; attempt < 2; attempt++) {
      if ((await this.coll.updateOne({ _id: clientId, ...this.of(tenant) }, { $set: { secret: sealed, tenant } })).matchedCount) return value;
      if ((await this.tenantOf(clientId)) !== undefined) throw new ClientOfOtherTenant(clientId);
      try {
        await this.coll.insertOne({ _id: clientId, secret: sealed, tenant, createdAt: new Date() });
        return value;
      } catch (err) {
        if ((err as { code?: number }).code !== DUPLICATE_KEY) throw err;
      }
    }
    throw new ClientOfOtherTenant(clientId);
  }

  /** The number of clients of a tenant. */
  async countFor(tenant: string): Promise<number> {
    return this.coll.countDocuments(this.of(tenant));
  }

  /** Removes a client's credential (with `tenant`: only when it is one of that tenant's); whether it did. */
  async remove(clientId: string, tenant?: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: clientId, ...(tenant === undefined ? {} : this.of(tenant)) })).deletedCount > 0;
  }

  /** Which of these client ids have a credential in `tenant`. */
  async owned(clientIds: readonly string[], tenant: string): Promise<Set<string>> {
    if (!clientIds.length) return new Set();
    const found = await this.coll.find({ _id: { $in: [...clientIds] }, ...this.of(tenant) }, { projection: { _id: 1 } }).toArray();
    return new Set(found.map((c) => c._id));
  }

  /** Which of these client ids another tenant holds (client ids are unique across the installation). */
  async heldElsewhere(clientIds: readonly string[], tenant: string): Promise<string[]> {
    if (!clientIds.length) return [];
    const found = await this.coll.find({ _id: { $in: [...clientIds] } }, { projection: { tenant: 1 } }).toArray();
    const held = found.filter((c) => this.tenantIn(c) !== tenant).map((c) => c._id);
    return [...new Set([...held, ...clientIds.filter((id) => this.reserved.includes(id))])];
  }

  /** The clients (of one tenant, or of all), without their secrets. */
  async list(tenant?: string): Promise<{ clientId: string; tenant: string; createdAt: Date }[]> {
    const docs = await this.coll
      .find(tenant === undefined ? {} : this.of(tenant), { projection: { secret: 0 } })
      .sort({ _id: 1 })
      .toArray();
    return docs.map((c) => ({ clientId: c._id, tenant: this.tenantIn(c), createdAt: c.createdAt }));
  }
}

/** Re-keying or registering a client id another tenant holds, or one the platform keeps (said alike: not whose it is). */
export class ClientOfOtherTenant extends Error {
  constructor(readonly clientId: string) {
    super(`client id "${clientId}" is already registered: client ids are unique across the installation`);
  }
}

/** The client ids no one registers a credential under: the transfer worker's (its secret is TRANSFER_SECRET alone). */
export const reservedClientIds = (config: Pick<Config, 'TRANSFER_CLIENT_ID'>): readonly string[] => [config.TRANSFER_CLIENT_ID];

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

/** How the audit trail names the transfer worker. */
export const TRANSFER_LABEL = 'Overdrachtsdienst (ZSDMS)';
