import type { Collection, Db } from 'mongodb';
import {
  TENANTS_COLLECTION,
  DOELREGISTRATIES_COLLECTION,
  IMPORTEN_COLLECTION,
  NRC_DELIVERIES,
  NRC_KANALEN,
  NRC_NOTIFICATIES,
  OVERDRACHT_INSTELLINGEN_COLLECTION,
  ADMIN_SESSIONS_COLLECTION,
  ADMIN_USERS_COLLECTION,
  DEFAULT_TENANT_NAAM,
  isRsin,
  isTenantCollection,
  platformDb,
  TENANT_FIELD,
  tenantExclusionsId,
  tenantIndexKey,
  type Logger,
} from '@zgw/shared';
import { ZgwError } from '../http/errors';

/** An organisation served by this installation (see shared/src/tenant.ts). */
export interface Tenant {
  _id: string; // its RSIN
  naam: string;
  createdAt: Date;
}

export { TENANTS_COLLECTION };

/** The tenants of the installation (a platform collection: only platform administrators list them all). */
export class Tenants {
  readonly coll: Collection<Tenant>;

  constructor(
    db: Db,
    /** ZGW_DEFAULT_TENANT: the tenant of clients registered without one. */
    readonly defaultTenant: string,
  ) {
    this.coll = db.collection<Tenant>(TENANTS_COLLECTION);
  }

  async get(rsin: string): Promise<Tenant | null> {
    return this.coll.findOne({ _id: rsin });
  }

  async list(): Promise<Tenant[]> {
    return this.coll.find({}).sort({ _id: 1 }).toArray();
  }

  /** Whether the installation serves more than one tenant (reads two ids at most). */
  async several(): Promise<boolean> {
    const two = await this.coll.find({}, { projection: { _id: 1 }, sort: { _id: 1 }, limit: 2 }).toArray();
    return two.length > 1;
  }

  /** Creates a tenant; a 400 for an RSIN that is not one, a 409 when it exists. */
  async add(rsin: unknown, naam: unknown): Promise<Tenant> {
    if (!isRsin(rsin)) throw ZgwError.field('rsin', 'invalid', 'Een RSIN is negen cijfers die de elfproef doorstaan.');
    if (typeof naam !== 'string' || !naam.trim()) throw ZgwError.field('naam', 'required', 'Geef de naam van de organisatie.');
    const tenant = { _id: rsin, naam: naam.trim(), createdAt: new Date() };
    try {
      await this.coll.insertOne(tenant);
    } catch (err) {
      if ((err as { code?: number }).code === 11000) throw new ZgwError(409, 'tenant-exists', `Tenant ${rsin} bestaat al.`);
      throw err;
    }
    return tenant;
  }

  /**
   * Gives a tenant another RSIN: its objects in every collection, its clients and its maintained counts (dropped:
   * the next start counts them again) move along. Run with the API stopped.
   */
  async rename(from: string, to: string): Promise<{ from: string; to: string; documents: number; clients: number }> {
    const current = await this.get(from);
    if (!current) throw ZgwError.notFound(`Tenant ${from} bestaat niet.`);
    if (!isRsin(to)) throw ZgwError.field('rsin', 'invalid', `${to} is geen RSIN: negen cijfers die de elfproef doorstaan.`);
    if (await this.get(to)) throw new ZgwError(409, 'tenant-exists', `Tenant ${to} bestaat al.`);
    const raw = platformDb(this.coll.db);
    await this.coll.insertOne({ ...current, _id: to });
    let documents = 0;
    for (const { name } of await raw.listCollections({}, { nameOnly: true }).toArray()) {
      if (!isTenantCollection(name)) continue;
      const coll = raw.collection(name);
      if (name.endsWith('_counts')) await coll.deleteMany({ [TENANT_FIELD]: from });
      else documents += (await coll.updateMany({ [TENANT_FIELD]: from }, { $set: { [TENANT_FIELD]: to } })).modifiedCount;
      // events still waiting in an outbox name the tenant too: published after the rename, they carry the new RSIN
      // (under the old one the audit worker drops them, as of a removed organisation, and the notifier finds no one)
      for await (const doc of coll.find({ [TENANT_FIELD]: to, '_outbox.tenant': from }, { projection: { _outbox: 1 } })) {
        const events = (doc._outbox as { tenant?: string }[]).map((e) => (e.tenant === from ? { ...e, tenant: to } : e));
        await coll.updateOne({ _id: doc._id, _outbox: doc._outbox }, { $set: { _outbox: events } });
      }
    }
    // the platform's collections that keep a tenant's objects under its RSIN: its own kanalen, the notifications kept
    // for its abonnementen and their deliveries (the notifier gives up a delivery of another tenant's notification)
    for (const name of [NRC_KANALEN, NRC_NOTIFICATIES, NRC_DELIVERIES])
      await raw.collection(name).updateMany({ [TENANT_FIELD]: from }, { $set: { [TENANT_FIELD]: to } });
    await raw.collection(IMPORTEN_COLLECTION).updateMany({ tenant: from }, { $set: { tenant: to } });
    // other organisations' doelregistraties of the internal route that name it, and their consent lists
    await raw.collection(DOELREGISTRATIES_COLLECTION).updateMany({ tenant: from }, { $set: { tenant: to } });
    await raw.collection(OVERDRACHT_INSTELLINGEN_COLLECTION).updateMany({ accepteertVan: from }, { $set: { 'accepteertVan.$': to } });
    const credentials = raw.collection('credentials');
    // clients registered without a tenant were the default tenant's: they now name theirs
    const unnamed = from === this.defaultTenant ? [{ tenant: { $exists: false } }] : [];
    const clients = (await credentials.updateMany({ $or: [{ tenant: from }, ...unnamed] }, { $set: { tenant: to } })).modifiedCount;
    // its administrators of the screens (and their sessions) go along
    for (const name of [ADMIN_USERS_COLLECTION, ADMIN_SESSIONS_COLLECTION])
      await raw.collection(name).updateMany({ tenant: from }, { $set: { tenant: to } });
    // and its own audit read exclusions (settings are the platform's, each tenant's under an id naming it)
    const settings = raw.collection<{ _id: string; tenant?: string }>('settings');
    const exclusions = await settings.findOne({ _id: tenantExclusionsId(from) });
    if (exclusions) {
      const { _id: _from, ...kept } = exclusions;
      await settings.replaceOne({ _id: tenantExclusionsId(to) }, { ...kept, tenant: to }, { upsert: true });
      await settings.deleteOne({ _id: tenantExclusionsId(from) });
    }
    await this.coll.deleteOne({ _id: from });
    return { from, to, documents, clients };
  }

  /** Creates the tenant when it does not exist yet (ZGW_CLIENTS, the default tenant at start). */
  async ensure(rsin: string, naam = rsin === this.defaultTenant ? DEFAULT_TENANT_NAAM : rsin): Promise<void> {
    await this.coll.updateOne({ _id: rsin }, { $setOnInsert: { naam, createdAt: new Date() } }, { upsert: true });
  }
}

const UPGRADED = 'tenants';

/**
 * The upgrade to tenants, once (marked in `migrations`): every stored object without a tenant becomes the default
 * tenant's, and the indexes that a tenant's index replaces go (a unique one from before would keep uniqueness across
 * the whole installation); the components create their tenant-led indexes after this. The default tenant is made at
 * every start.
 */
export async function upgradeToTenants(db: Db, tenants: Tenants, log: Logger): Promise<void> {
  await tenants.ensure(tenants.defaultTenant);
  const raw = platformDb(db);
  const marks = raw.collection<{ _id: string; at: Date }>('migrations');
  if (await marks.findOne({ _id: UPGRADED })) return;
  for (const { name } of await raw.listCollections({}, { nameOnly: true }).toArray()) {
    if (!isTenantCollection(name)) continue;
    const coll = raw.collection(name);
    const adopted = await coll.updateMany({ [TENANT_FIELD]: { $exists: false } }, { $set: { [TENANT_FIELD]: tenants.defaultTenant } });
    let dropped = 0;
    for (const ix of await coll.indexes()) {
      if (ix.name === '_id_' || tenantIndexKey(ix.key, ix) === ix.key) continue;
      await coll.dropIndex(ix.name!);
      dropped++;
    }
    if (adopted.modifiedCount || dropped)
      log.info({ collection: name, adopted: adopted.modifiedCount, droppedIndexes: dropped, tenant: tenants.defaultTenant }, 'upgraded to tenants');
  }
  await marks.updateOne({ _id: UPGRADED }, { $setOnInsert: { at: new Date() } }, { upsert: true });
}
