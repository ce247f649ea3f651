import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { ADMIN_LOGINS_COLLECTION, openSecret, sealSecret, type Pii } from '@zgw/shared';
import { tokenDigest } from './sessions';

/**
 * The second factor of a local login: TOTP (RFC 6238: 6 digits, 30-second steps, HMAC-SHA1, which every
 * authenticator app reads), set up with a QR code at the first login, with ten single-use recovery codes stored as
 * hashes. Between the password and the code a login is pending (collection adminlogins, ten minutes, five tries).
 */

const PERIOD_SECONDS = 30;
const ISSUER = 'ZGW beheer';
const RECOVERY_CODES = 10;
/** Recovery codes: ten characters without look-alikes (no 0/o, 1/l/i), shown as two groups of five. */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export const PENDING_MINUTES = 10;
export const MAX_CODE_TRIES = 5;

export interface Enrolment {
  /** The seed, base32. */
  secret: string;
  /** The recovery codes in the clear: shown once, stored only as hashes. */
  codes: string[];
}

const totpOf = (secret: string, user: string) =>
  new TOTP({ issuer: ISSUER, label: user, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS, secret: Secret.fromBase32(secret) });

export function newEnrolment(): Enrolment {
  const code = () => Array.from({ length: 10 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return {
    secret: new Secret({ size: 20 }).base32,
    codes: Array.from({ length: RECOVERY_CODES }, () => {
      const c = code();
      return `${c.slice(0, 5)}-${c.slice(5)}`;
    }),
  };
}

/** The time step of `now`. */
export const stepAt = (now: Date): number => Math.floor(now.getTime() / 1000 / PERIOD_SECONDS);

/** The time step a six-digit code is valid for (now, or one step before or after: clocks drift), or undefined. */
export function stepOfCode(secret: string, code: string, now: Date): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(secret, '').validate({ token: code, timestamp: now.getTime(), window: 1 });
  return delta === null ? undefined : stepAt(now) + delta;
}

/** A recovery code as typed (any case, with or without the dash or spaces), hashed; undefined if it cannot be one. */
export function recoveryHash(typed: string): string | undefined {
  const code = typed.toLowerCase().replace(/[\s-]/g, '');
  if (code.length !== 10 || [...code].some((c) => !RECOVERY_ALPHABET.includes(c))) return undefined;
  return createHash('sha256').update(code).digest('hex');
}

/** The otpauth:// URI of the enrolment and its QR code (an SVG data URI: the pages allow images from data:). */
export async function enrolmentQr(enrolment: Enrolment, user: string): Promise<{ uri: string; image: string }> {
  const uri = totpOf(enrolment.secret, user).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return { uri, image: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

interface PendingDoc {
  _id: string; // sha256(token), hex
  user: string;
  next?: string;
  tries: number;
  /** A second factor being set up, sealed (JSON of Enrolment). */
  enrolment?: string;
  expiresAt: Date;
}

export interface PendingLogin {
  token: string;
  user: string;
  next?: string;
  tries: number;
  enrolment?: Enrolment;
}

/** Logins whose password was right and whose second factor is still to come. */
export class PendingLogins {
  readonly coll: Collection<PendingDoc>;

  constructor(
    db: Db,
    private readonly pii: Pii,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.coll = db.collection<PendingDoc>(ADMIN_LOGINS_COLLECTION);
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
  }

  async create(user: string, next: string | undefined): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.coll.insertOne({
      _id: tokenDigest(token),
      user,
      ...(next ? { next } : {}),
      tries: 0,
      expiresAt: new Date(this.now().getTime() + PENDING_MINUTES * 60_000),
    });
    return token;
  }

  async get(token: string | undefined): Promise<PendingLogin | undefined> {
    if (!token || token.length > 100) return undefined;
    const doc = await this.coll.findOne({ _id: tokenDigest(token) });
    if (!doc || doc.expiresAt <= this.now()) return undefined;
    const enrolment = doc.enrolment ? (JSON.parse(openSecret(this.pii, 'adminEnrolment', doc.enrolment)) as Enrolment) : undefined;
    return { token, user: doc.user, next: doc.next, tries: doc.tries, ...(enrolment ? { enrolment } : {}) };
  }

  /** The login's enrolment: the one it has, or a new one kept with it (so a reload shows the same QR code). */
  async enrolmentOf(login: PendingLogin): Promise<Enrolment> {
    if (login.enrolment) return login.enrolment;
    const enrolment = newEnrolment();
    const sealed = sealSecret(this.pii, 'adminEnrolment', JSON.stringify(enrolment));
    await this.coll.updateOne({ _id: tokenDigest(login.token), enrolment: { $exists: false } }, { $set: { enrolment: sealed } });
    return (await this.get(login.token))?.enrolment ?? enrolment;
  }

  /** A wrong code: the tries left (0: the login is over and has to start again with the password). */
  async wrong(login: PendingLogin): Promise<number> {
    const tries = login.tries + 1;
    if (tries >= MAX_CODE_TRIES) {
      await this.finish(login.token);
      return 0;
    }
    await this.coll.updateOne({ _id: tokenDigest(login.token) }, { $set: { tries } });
    return MAX_CODE_TRIES - tries;
  }

  async finish(token: string): Promise<void> {
    await this.coll.deleteOne({ _id: tokenDigest(token) });
  }
}
