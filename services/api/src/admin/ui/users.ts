import type { Collection, Db } from 'mongodb';
import { ADMIN_USERS_COLLECTION, type Config, type Logger } from '@zgw/shared';
import { decoyHash, hashPassword, MIN_PASSWORD_LENGTH, passwordProblem, verifyPassword } from './passwords';

export { ADMIN_USERS_COLLECTION };

export interface AdminUser {
  _id: string; // the user name
  password: string; // scrypt hash (passwords.ts)
  createdAt: Date;
  passwordChangedAt: Date;
  /** Failed logins since the last good one; from the fifth on, logins wait (blockedUntil). */
  failures?: number;
  blockedUntil?: Date;
  /** The second factor (second-factor.ts): the TOTP seed, sealed; the last time step a code was used for. */
  totpSecret?: string;
  totpStep?: number;
  /** Unused recovery codes, each as its SHA-256 (hex). */
  recoveryCodes?: string[];
  /** The organisation (tenant RSIN) this administrator manages alone; absent: a platform administrator. */
  tenant?: string;
}

/** What the admin screens show of an administrator. */
export interface AdminUserInfo {
  name: string;
  createdAt: Date;
  passwordChangedAt: Date;
  secondFactor: boolean;
  recoveryCodesLeft: number;
  /** Their organisation; absent: a platform administrator. */
  tenant?: string;
}

/** After this many failed logins in a row, each further one makes the account wait longer, up to MAX_BLOCK_MS. */
const FREE_FAILURES = 5;
const MAX_BLOCK_MS = 15 * 60_000;

export type LoginResult = { ok: true; user: string } | { ok: false; reason: 'invalid' | 'blocked' };

export const USER_NAME = /^[A-Za-z0-9._@-]{1,100}$/;

/** The administrators of the admin screens (not ZGW clients: they log in with a name and password). */
export class AdminUsers {
  readonly coll: Collection<AdminUser>;

  constructor(
    db: Db,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.coll = db.collection<AdminUser>(ADMIN_USERS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ tenant: 1, _id: 1 });
  }

  /** Whether any administrator exists (from the collection's metadata: no scan). */
  async any(): Promise<boolean> {
    return (await this.coll.estimatedDocumentCount()) > 0;
  }

  /** Creates an administrator (of one organisation, or of the platform without `tenant`); false when the name is taken. */
  async create(name: string, password: string, tenant?: string): Promise<boolean> {
    checkUser(name, password);
    const at = this.now();
    try {
      await this.coll.insertOne({
        _id: name,
        password: await hashPassword(password),
        createdAt: at,
        passwordChangedAt: at,
        ...(tenant === undefined ? {} : { tenant }),
      });
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }

  /** Sets a new password (and lifts a block); false when there is no such administrator. */
  async setPassword(name: string, password: string): Promise<boolean> {
    checkUser(name, password);
    const res = await this.coll.updateOne(
      { _id: name },
      { $set: { password: await hashPassword(password), passwordChangedAt: this.now(), failures: 0 }, $unset: { blockedUntil: '' } },
    );
    return res.matchedCount > 0;
  }

  async remove(name: string): Promise<boolean> {
    return (await this.coll.deleteOne({ _id: name })).deletedCount > 0;
  }

  /** The administrators: all of them, or those of one organisation. */
  async list(tenant?: string): Promise<AdminUserInfo[]> {
    const docs = await this.coll
      .find(tenant === undefined ? {} : { tenant }, { projection: { password: 0 } })
      .sort({ _id: 1 })
      .limit(1000)
      .toArray();
    return docs.map((d) => ({
      name: d._id,
      createdAt: d.createdAt,
      passwordChangedAt: d.passwordChangedAt,
      secondFactor: d.totpSecret !== undefined,
      recoveryCodesLeft: d.recoveryCodes?.length ?? 0,
      ...(d.tenant === undefined ? {} : { tenant: d.tenant }),
    }));
  }

  async get(name: string): Promise<AdminUser | null> {
    return USER_NAME.test(name) ? this.coll.findOne({ _id: name }) : null;
  }

  /** Stores a confirmed second factor (sealed seed, the step its first code used, hashed recovery codes). */
  async setSecondFactor(name: string, totpSecret: string, totpStep: number, recoveryCodes: string[]): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: name, totpSecret: { $exists: false } }, { $set: { totpSecret, totpStep, recoveryCodes } });
    return res.modifiedCount > 0;
  }

  /** Takes a TOTP time step: true once per step and only for a step later than the last (no code is used twice). */
  async useTotpStep(name: string, step: number): Promise<boolean> {
    const res = await this.coll.updateOne(
      { _id: name, $or: [{ totpStep: { $lt: step } }, { totpStep: { $exists: false } }] },
      { $set: { totpStep: step } },
    );
    return res.modifiedCount > 0;
  }

  /** Uses up a recovery code (by its hash): true the one time it is there. */
  async useRecoveryCode(name: string, hash: string): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: name, recoveryCodes: hash }, { $pull: { recoveryCodes: hash } });
    return res.modifiedCount > 0;
  }

  /** Removes an administrator's second factor: the next login sets up a new one. */
  async resetSecondFactor(name: string): Promise<boolean> {
    const res = await this.coll.updateOne({ _id: name }, { $unset: { totpSecret: '', totpStep: '', recoveryCodes: '' } });
    return res.matchedCount > 0;
  }

  /**
   * Checks a login. An unknown name costs the same hash as a known one, and says the same ("invalid"), so names
   * cannot be probed. From the fifth failure in a row the account waits 1, 2, 4, ... minutes (at most 15) before it
   * takes a password again; a whole good login (both factors: `succeeded`) resets the count, so wrong second-factor
   * codes after a right password count as well.
   */
  async login(name: string, password: string): Promise<LoginResult> {
    const user = await this.get(name);
    if (!user) {
      await verifyPassword(password, await decoyHash());
      return { ok: false, reason: 'invalid' };
    }
    const now = this.now();
    if (user.blockedUntil && user.blockedUntil > now) return { ok: false, reason: 'blocked' };
    if (await verifyPassword(password, user.password)) return { ok: true, user: name };
    await this.failed(user);
    return { ok: false, reason: 'invalid' };
  }

  /** A whole login (password and second factor) succeeded: the count of failures starts again. */
  async succeeded(name: string): Promise<void> {
    await this.coll.updateOne({ _id: name, failures: { $gt: 0 } }, { $set: { failures: 0 }, $unset: { blockedUntil: '' } });
  }

  /** A wrong password or second-factor code: counts towards the account's wait (see login). */
  async failed(user: AdminUser): Promise<void> {
    const failures = (user.failures ?? 0) + 1;
    const now = this.now();
    const blockedUntil =
      failures >= FREE_FAILURES ? new Date(now.getTime() + Math.min(60_000 * 2 ** (failures - FREE_FAILURES), MAX_BLOCK_MS)) : undefined;
    await this.coll.updateOne({ _id: user._id }, { $set: { failures, ...(blockedUntil ? { blockedUntil } : {}) } });
  }
}

function checkUser(name: string, password: string): void {
  if (!USER_NAME.test(name)) throw new Error('a user name has 1 to 100 letters, digits or . _ @ -');
  if (passwordProblem(password)) throw new Error(`a password has ${MIN_PASSWORD_LENGTH} to 1024 characters`);
}

/**
 * The first administrator: while there is none, ADMIN_INITIAL_PASSWORD creates ADMIN_INITIAL_USER with it at start
 * (several instances starting at once create it once). An existing administrator is never changed by it.
 */
export async function ensureInitialAdmin(users: AdminUsers, config: Config, log: Logger): Promise<void> {
  if (await users.any()) return;
  if (!config.ADMIN_INITIAL_PASSWORD) {
    log.warn('no administrator for the admin screens yet: set ADMIN_INITIAL_PASSWORD, or run `npm run admin -- add <name>`');
    return;
  }
  if (!USER_NAME.test(config.ADMIN_INITIAL_USER)) throw new Error('ADMIN_INITIAL_USER: 1 to 100 letters, digits or . _ @ -');
  if (passwordProblem(config.ADMIN_INITIAL_PASSWORD)) throw new Error(`ADMIN_INITIAL_PASSWORD: at least ${MIN_PASSWORD_LENGTH} characters`);
  if (await users.create(config.ADMIN_INITIAL_USER, config.ADMIN_INITIAL_PASSWORD)) {
    log.info({ user: config.ADMIN_INITIAL_USER }, 'first administrator created from ADMIN_INITIAL_PASSWORD');
  }
}
