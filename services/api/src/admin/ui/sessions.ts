import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { ADMIN_SESSIONS_COLLECTION } from '@zgw/shared';

export { ADMIN_SESSIONS_COLLECTION };

/**
 * A login session, stored in MongoDB so that every API instance knows it and it survives restarts. The cookie holds
 * a random token; the database holds only its SHA-256, so a copy of the database opens no session.
 */
interface SessionDoc {
  _id: string; // sha256(token), hex
  user: string;
  /** The session's CSRF token: every state-changing request of the session carries it (form field or header). */
  csrf: string;
  createdAt: Date;
  seenAt: Date;
  /** Idle timeout from seenAt, never past createdAt + the maximum lifetime. A TTL index removes expired sessions. */
  expiresAt: Date;
  /** A session from the identity provider: its ID token, the hint of the sign-out there. */
  idToken?: string;
  /** The tenant the administrator acts in: their organisation's, or the one a platform administrator chose. */
  tenant: string;
  /** A platform administrator (every tenant; may choose the tenant to act in). */
  platform: boolean;
}

/** Who a session is: an organisation's administrator, bound to its tenant, or a platform administrator. */
export interface SessionRole {
  tenant: string;
  platform: boolean;
}

export interface Session extends SessionRole {
  user: string;
  csrf: string;
  token: string;
  expiresAt: Date;
  idToken?: string;
}

/** A session's last use is written at most this often, so reads do not each cost a write. */
const TOUCH_EVERY_MS = 60_000;

/** What the database keeps of a browser's token (a session's, a pending login's, a provider login's): its SHA-256. */
export const tokenDigest = (token: string): string => createHash('sha256').update(token).digest('hex');

export class AdminSessions {
  readonly coll: Collection<SessionDoc>;

  constructor(
    db: Db,
    private readonly idleMs: number,
    private readonly maxMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.coll = db.collection<SessionDoc>(ADMIN_SESSIONS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    // Real MongoDB removes expired sessions itself; the stand-in keeps them, and purge() clears them at each login.
    await this.coll.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    await this.coll.createIndex({ user: 1 });
  }

  async create(user: string, role: SessionRole, idToken?: string): Promise<Session> {
    const token = randomBytes(32).toString('base64url');
    const csrf = randomBytes(32).toString('base64url');
    const at = this.now();
    const expiresAt = this.expiry(at, at);
    const { tenant, platform } = role;
    await this.coll.insertOne({
      _id: tokenDigest(token),
      user,
      csrf,
      createdAt: at,
      seenAt: at,
      expiresAt,
      tenant,
      platform,
      ...(idToken ? { idToken } : {}),
    });
    return { user, csrf, token, expiresAt, tenant, platform, ...(idToken ? { idToken } : {}) };
  }

  /** A platform administrator's session continues in another tenant (false: not a platform administrator's session). */
  async actIn(session: Session, tenant: string): Promise<boolean> {
    if (!session.platform) return false;
    await this.coll.updateOne({ _id: tokenDigest(session.token) }, { $set: { tenant } });
    return true;
  }

  /** The live session of a token (its idle time restarted), or undefined. */
  async get(token: string | undefined): Promise<Session | undefined> {
    if (!token || token.length > 100) return undefined;
    const doc = await this.coll.findOne({ _id: tokenDigest(token) });
    const at = this.now();
    if (!doc) return undefined;
    if (doc.expiresAt <= at) {
      await this.coll.deleteOne({ _id: doc._id });
      return undefined;
    }
    let expiresAt = doc.expiresAt;
    if (at.getTime() - doc.seenAt.getTime() >= TOUCH_EVERY_MS) {
      expiresAt = this.expiry(doc.createdAt, at);
      await this.coll.updateOne({ _id: doc._id }, { $set: { seenAt: at, expiresAt } });
    }
    // A session from before tenants was a platform administrator's in the default tenant; it ends (logs in again).
    if (doc.tenant === undefined) return undefined;
    return {
      user: doc.user,
      csrf: doc.csrf,
      token,
      expiresAt,
      tenant: doc.tenant,
      platform: doc.platform,
      ...(doc.idToken ? { idToken: doc.idToken } : {}),
    };
  }

  async destroy(token: string | undefined): Promise<void> {
    if (token) await this.coll.deleteOne({ _id: tokenDigest(token) });
  }

  /** Ends every session of a user (after a password change or removal). */
  async destroyAllOf(user: string): Promise<void> {
    await this.coll.deleteMany({ user });
  }

  /** Removes expired sessions (where no TTL index does). */
  async purge(): Promise<void> {
    await this.coll.deleteMany({ expiresAt: { $lt: this.now() } });
  }

  private expiry(createdAt: Date, seenAt: Date): Date {
    return new Date(Math.min(seenAt.getTime() + this.idleMs, createdAt.getTime() + this.maxMs));
  }
}

/** Constant-time comparison of a sent CSRF token with the session's. */
export function csrfMatches(sent: unknown, expected: string): boolean {
  if (typeof sent !== 'string' || !sent) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The cookies of a request (first value of each name). */
export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const name = part.slice(0, i).trim();
    if (!name || name in out) continue;
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      out[name] = part.slice(i + 1).trim();
    }
  }
  return out;
}

export interface CookieOptions {
  path: string;
  maxAgeSeconds?: number;
  secure: boolean;
  /** Lax only for a cookie that has to come back on a redirect from another site (the identity provider's). */
  sameSite?: 'Strict' | 'Lax';
}

/** A Set-Cookie value: HttpOnly and SameSite=Strict (unless Lax is asked) always; Secure when served over https. */
export function serializeCookie(name: string, value: string, opts: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${opts.path}`, 'HttpOnly', `SameSite=${opts.sameSite ?? 'Strict'}`];
  if (opts.maxAgeSeconds !== undefined) parts.push(`Max-Age=${Math.max(0, Math.floor(opts.maxAgeSeconds))}`);
  if (opts.secure) parts.push('Secure');
  return parts.join('; ');
}
