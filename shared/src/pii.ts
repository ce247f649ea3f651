// Personal identifiers at rest (BSN, A-nummer, anpIdentificatie) and secrets the platform must read back: authenticated
// encryption per value with the key version beside it, and a keyed hash per value for equality search. One module
// that every component and worker uses; Node's crypto only (AES-256-GCM, HMAC-SHA256, HKDF), no cryptography of our
// own. Its interface (encrypt/decrypt a value in a context, the search hashes of a value) is what a client-side field
// level encryption of a production cluster would offer too.
import { createCipheriv, createDecipheriv, createHmac, createSecretKey, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inspect } from 'node:util';
import type { Config } from './config';
import type { Logger } from './logger';

/** An encrypted value as stored: `pii:<version>:<nonce>:<ciphertext and tag>` (base64url). */
const TOKEN = /^pii:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]+)$/;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** HKDF's salt: binds the derived keys to this product's use of them. */
const SALT = Buffer.from('zgw-platform pii 1');

/** A key as configured: its version (stored beside every value it encrypts) and its secret. */
export interface PiiKey {
  version: string;
  secret: Buffer;
}

/** A failure of the module; its message names versions and contexts, never a key or a value. */
export class PiiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PiiError';
  }
}

/**
 * Parses `ZGW_PII_KEYS` (or the contents of `ZGW_PII_KEYS_FILE`): `<version>:<base64 of 32 random bytes>`, separated
 * by commas or new lines, newest first. The newest encrypts; every one decrypts and is searched with.
 */
export function parsePiiKeys(text: string): PiiKey[] {
  const keys: PiiKey[] = [];
  for (const entry of text.split(/[,\n]/).map((e) => e.trim())) {
    if (!entry || entry.startsWith('#')) continue;
    const at = entry.indexOf(':');
    const version = at > 0 ? entry.slice(0, at) : '';
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(version)) {
      throw new PiiError('a PII key must read <version>:<base64 key>, its version of letters, digits, - and _ (at most 32)');
    }
    const secret = Buffer.from(entry.slice(at + 1), 'base64');
    if (secret.length !== KEY_BYTES) throw new PiiError(`PII key ${version} is not ${KEY_BYTES} bytes of base64`);
    if (keys.some((k) => k.version === version)) throw new PiiError(`PII key version ${version} is given twice`);
    keys.push({ version, secret });
  }
  return keys;
}

/** A new key line (`<version>:<base64>`) for a key file or `ZGW_PII_KEYS`. */
export function newPiiKey(version: string): string {
  return `${version}:${randomBytes(KEY_BYTES).toString('base64')}`;
}

/**
 * The key file of an installation on its own engines: read when it is there; written (mode 0600, one key `v1`) when
 * it is not and `create` is set. Returns the keys and whether the file was created now.
 */
export function piiKeyFile(path: string, create: boolean): { keys: PiiKey[]; created: boolean } | undefined {
  if (existsSync(path)) return { keys: parsePiiKeys(readFileSync(path, 'utf8')), created: false };
  if (!create) return undefined;
  mkdirSync(dirname(path), { recursive: true });
  // written aside, then linked into place: a process starting at the same moment finds the whole file or none
  const aside = `${path}.${process.pid}.new`;
  writeFileSync(aside, `${newPiiKey('v1')}\n`, { mode: 0o600 });
  chmodSync(aside, 0o600);
  let created = true;
  try {
    linkSync(aside, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    created = false;
  } finally {
    unlinkSync(aside);
  }
  return { keys: parsePiiKeys(readFileSync(path, 'utf8')), created };
}

/** A key's derived keys, as KeyObjects: Node.js prepares a raw key on every cipher and HMAC made with it (4 to 8 times the work). */
interface Derived {
  version: string;
  encrypt: KeyObject;
  search: KeyObject;
}

/** Encrypts and decrypts values, and gives their search hashes, with the configured keys. */
export class Pii {
  private readonly keys: Derived[];

  constructor(keys: PiiKey[]) {
    if (!keys.length) throw new PiiError('no PII key given');
    this.keys = keys.map((k) => ({ version: k.version, encrypt: derive(k.secret, 'encrypt'), search: derive(k.secret, 'search') }));
  }

  /** The version new values are encrypted with (the newest key). */
  get current(): string {
    return this.keys[0]!.version;
  }

  /** The configured versions, newest first. */
  get versions(): string[] {
    return this.keys.map((k) => k.version);
  }

  /**
   * Encrypts `value` for `context` (e.g. `rol.inpBsn`): a fresh random nonce each time, so equal values give different
   * tokens; the context is authenticated with it, so a token moved to another field does not decrypt.
   */
  encrypt(value: string, context: string): string {
    const key = this.keys[0]!;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key.encrypt, nonce);
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `pii:${key.version}:${nonce.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  /** The value of a token made by `encrypt` in the same context; a PiiError when no key opens it. */
  decrypt(token: string, context: string): string {
    const m = TOKEN.exec(token);
    if (!m) throw new PiiError(`not an encrypted value (${context})`);
    const key = this.keys.find((k) => k.version === m[1]);
    if (!key) throw new PiiError(`no PII key of version ${m[1]} is configured (${context})`);
    const sealed = Buffer.from(m[3]!, 'base64url');
    if (sealed.length < TAG_BYTES) throw new PiiError(`an encrypted value is cut short (${context})`);
    const decipher = createDecipheriv('aes-256-gcm', key.encrypt, Buffer.from(m[2]!, 'base64url'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new PiiError(`an encrypted value does not open with key ${m[1]} (${context}): changed, or moved from another field`);
    }
  }

  /**
   * Whether a stored value is meant to be a token (what decrypt must open, failing loudly when it is damaged) rather
   * than a value stored in the clear by an earlier version.
   */
  static isSealed(value: string): boolean {
    return value.startsWith('pii:');
  }

  /** The key version of a token, or undefined when it is no token. */
  static versionOf(value: unknown): string | undefined {
    return typeof value === 'string' ? TOKEN.exec(value)?.[1] : undefined;
  }

  /**
   * The search hash of `value` in `context` with the newest key (`h:<version>:<hmac>`): what is stored beside the
   * encrypted value, so an equality filter is an index lookup.
   */
  searchHash(value: string, context: string): string {
    return hashWith(this.keys[0]!, value, context);
  }

  /** The search hashes of `value` with every configured key: what a filter looks for while old values remain. */
  searchHashes(value: string, context: string): string[] {
    return this.keys.map((k) => hashWith(k, value, context));
  }

  /**
   * A value that tells whether the key of `version` is the one seen before under that version, without showing it
   * (an HMAC of a constant with its search key); undefined when no key of that version is configured.
   */
  keyCheck(version: string): string | undefined {
    const key = this.keys.find((k) => k.version === version);
    return key && hashWith(key, 'zgw pii key check', 'check');
  }

  /** Never shows a key, however the object is logged or printed. */
  [inspect.custom](): string {
    return `Pii { versions: ${this.versions.join(', ')} }`;
  }

  toJSON(): { versions: string[] } {
    return { versions: this.versions };
  }
}

function derive(secret: Buffer, purpose: string): KeyObject {
  return createSecretKey(Buffer.from(hkdfSync('sha256', secret, SALT, `zgw pii ${purpose}`, KEY_BYTES)));
}

function hashWith(key: Derived, value: string, context: string): string {
  const mac = createHmac('sha256', key.search).update(context).update('\u0000').update(value).digest('base64url');
  return `h:${key.version}:${mac}`;
}

/** Whether a MongoDB URL names this machine (the platform's own engines), not a cluster elsewhere. */
function onThisMachine(url: string): boolean {
  const hosts =
    url
      .replace(/^mongodb(\+srv)?:\/\//, '')
      .replace(/^[^@/]*@/, '')
      .split(/[/?]/)[0] ?? '';
  return hosts.split(',').every((h) => /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(h));
}

/**
 * The PII keys of this process: `ZGW_PII_KEYS`, else the file `ZGW_PII_KEYS_FILE`, else, on the platform's own
 * engines, `<ZGW_DATA_DIR>/pii-keys` (created with a new key on the first start, which is logged once). Against a
 * MongoDB elsewhere one of the two is required: several instances must not each make their own key.
 */
export function piiFromConfig(config: Pick<Config, 'ZGW_PII_KEYS' | 'ZGW_PII_KEYS_FILE' | 'ZGW_DATA_DIR' | 'MONGODB_URL'>, log: Logger): Pii {
  if (config.ZGW_PII_KEYS.trim()) return new Pii(parsePiiKeys(config.ZGW_PII_KEYS));
  if (config.ZGW_PII_KEYS_FILE) {
    const file = piiKeyFile(config.ZGW_PII_KEYS_FILE, false);
    if (!file) throw new PiiError(`ZGW_PII_KEYS_FILE ${config.ZGW_PII_KEYS_FILE} does not exist`);
    return new Pii(file.keys);
  }
  if (!onThisMachine(config.MONGODB_URL)) {
    throw new PiiError('ZGW_PII_KEYS or ZGW_PII_KEYS_FILE is required with a MongoDB on another machine (docs/personal-data.md)');
  }
  const path = join(config.ZGW_DATA_DIR, 'pii-keys');
  const file = piiKeyFile(path, true)!;
  if (file.created)
    log.warn({ file: path }, 'created the PII key file: back it up with the data; without it the personal identifiers cannot be read');
  return new Pii(file.keys);
}
