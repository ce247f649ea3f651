import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt parameters of new hashes (16 MiB of memory per hash); stored with each hash, so they can be raised later. */
const COST = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 64;
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, opts: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, length, { ...opts, maxmem: MAX_MEMORY }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** `scrypt$N$r$p$<salt>$<hash>` (base64url), with a fresh 16-byte salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST, KEY_LENGTH);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches `stored` (compared in constant time); false for anything not of our format. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !salt || !hash) return false;
  const opts = { N: Number(n), r: Number(r), p: Number(p) };
  if (![opts.N, opts.r, opts.p].every((x) => Number.isInteger(x) && x > 0)) return false;
  const expected = Buffer.from(hash, 'base64url');
  if (!expected.length) return false;
  const key = await derive(password, Buffer.from(salt, 'base64url'), opts, expected.length);
  return timingSafeEqual(key, expected);
}

/** A hash of a password nobody has, to spend the same time on an unknown user as on a known one. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}

/** The rules a new password meets. */
export const MIN_PASSWORD_LENGTH = 12;
export function passwordProblem(password: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `Een wachtwoord heeft minstens ${MIN_PASSWORD_LENGTH} tekens.`;
  if (password.length > 1024) return 'Een wachtwoord heeft hoogstens 1024 tekens.';
  return undefined;
}

/** A generated password (for the CLI): 24 characters, about 144 bits. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
