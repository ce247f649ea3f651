import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { createLogger } from '../src/logger';
import { Pii, PiiError, newPiiKey, parsePiiKeys, piiFromConfig, piiKeyFile } from '../src/pii';

// The module that keeps personal identifiers out of the clear at rest: encryption per value, search hashes, keys.

const v1 = newPiiKey('v1');
const v2 = newPiiKey('v2');
const BSN = '999993653';

describe('PII encryption', () => {
  it('encrypts a value so that it opens again, and never to the same token twice', () => {
    const pii = new Pii(parsePiiKeys(v1));
    const a = pii.encrypt(BSN, 'rol.inpBsn');
    const b = pii.encrypt(BSN, 'rol.inpBsn');
    expect(a).not.toContain(BSN);
    expect(a).not.toBe(b);
    expect(Pii.versionOf(a)).toBe('v1');
    expect(pii.decrypt(a, 'rol.inpBsn')).toBe(BSN);
    expect(pii.decrypt(b, 'rol.inpBsn')).toBe(BSN);
  });

  it('refuses a changed token, and one moved to another field', () => {
    const pii = new Pii(parsePiiKeys(v1));
    const token = pii.encrypt(BSN, 'rol.inpBsn');
    // one character of the ciphertext changed (its first: every bit of it is used, unlike the last's)
    const at = token.lastIndexOf(':') + 1;
    const changed = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    expect(() => pii.decrypt(changed, 'rol.inpBsn')).toThrow(/does not open/);
    expect(() => pii.decrypt(token, 'zaakobject.inpBsn')).toThrow(/does not open/);
    expect(() => pii.decrypt(BSN, 'rol.inpBsn')).toThrow(/not an encrypted value/);
  });

  it('encrypts with the newest key and opens with every configured one', () => {
    const old = new Pii(parsePiiKeys(v1));
    const both = new Pii(parsePiiKeys(`${v2},${v1}`));
    const before = old.encrypt(BSN, 'c');
    const after = both.encrypt(BSN, 'c');
    expect(Pii.versionOf(after)).toBe('v2');
    expect(both.decrypt(before, 'c')).toBe(BSN);
    // with v1 retired, a value it encrypted no longer opens, and the error names the version only
    const retired = new Pii(parsePiiKeys(v2));
    expect(() => retired.decrypt(before, 'c')).toThrow('no PII key of version v1 is configured (c)');
  });

  it('gives one search hash per key: the newest is stored, every one is searched for', () => {
    const both = new Pii(parsePiiKeys(`${v2}\n${v1}`));
    const old = new Pii(parsePiiKeys(v1));
    expect(both.searchHash(BSN, 'bsn')).toMatch(/^h:v2:/);
    expect(both.searchHashes(BSN, 'bsn')).toEqual([both.searchHash(BSN, 'bsn'), old.searchHash(BSN, 'bsn')]);
    expect(both.searchHash(BSN, 'bsn')).toBe(new Pii(parsePiiKeys(v2)).searchHash(BSN, 'bsn'));
    expect(both.searchHash(BSN, 'bsn')).not.toBe(both.searchHash('999990019', 'bsn'));
    // the context is part of the hash: equal values in different fields do not match
    expect(both.searchHash(BSN, 'bsn')).not.toBe(both.searchHash(BSN, 'a-nummer'));
    expect(both.searchHash(BSN, 'bsn')).not.toContain(BSN);
  });

  it('parses keys newest first and refuses bad ones without showing them', () => {
    expect(parsePiiKeys(`# keys\n${v2}\n\n${v1}\n`).map((k) => k.version)).toEqual(['v2', 'v1']);
    const short = `v3:${Buffer.alloc(16).toString('base64')}`;
    expect(() => parsePiiKeys(short)).toThrow('PII key v3 is not 32 bytes of base64');
    expect(() => parsePiiKeys(`${v1},${v1}`)).toThrow('PII key version v1 is given twice');
    expect(() => parsePiiKeys('geheim')).toThrow(PiiError);
    try {
      parsePiiKeys(`v 1:${v1.slice(3)}`);
    } catch (err) {
      expect(String(err)).not.toContain(v1.slice(3));
    }
    expect(() => new Pii([])).toThrow('no PII key given');
  });

  it('never shows a key when printed or serialised', () => {
    const pii = new Pii(parsePiiKeys(`${v2},${v1}`));
    const secret = v2.slice(3);
    for (const shown of [inspect(pii), JSON.stringify(pii), String(pii), JSON.stringify({ pii })]) {
      expect(shown).not.toContain(secret);
      expect(shown).not.toContain(Buffer.from(secret, 'base64').toString('hex'));
    }
    expect(inspect(pii)).toBe('Pii { versions: v2, v1 }');
  });

  it('creates a key file of mode 0600 once, and reads it after', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pii-'));
    const file = join(dir, 'pii-keys');
    expect(piiKeyFile(file, false)).toBeUndefined();
    const first = piiKeyFile(file, true)!;
    expect(first.created).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = piiKeyFile(file, true)!;
    expect(again.created).toBe(false);
    expect(again.keys.map((k) => k.secret.toString('base64'))).toEqual(first.keys.map((k) => k.secret.toString('base64')));
    expect(readFileSync(file, 'utf8')).toMatch(/^v1:[A-Za-z0-9+/]{43}=\n$/);
  });

  it('takes its keys from ZGW_PII_KEYS, a key file, or on this machine the data directory; elsewhere it refuses without', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pii-config-'));
    const lines: string[] = [];
    const log = createLogger('test', 'info', { write: (l: string) => void lines.push(l) });
    const config = (over: Record<string, string>) => ({
      ZGW_PII_KEYS: '',
      ZGW_PII_KEYS_FILE: '',
      ZGW_DATA_DIR: dir,
      MONGODB_URL: 'mongodb://127.0.0.1:27017',
      ...over,
    });
    expect(piiFromConfig(config({ ZGW_PII_KEYS: `${v2},${v1}` }), log).versions).toEqual(['v2', 'v1']);
    expect(() => piiFromConfig(config({ ZGW_PII_KEYS_FILE: join(dir, 'absent') }), log)).toThrow(/ZGW_PII_KEYS_FILE .* does not exist/);
    for (const url of [
      'mongodb://db.example:27017',
      'mongodb://127.0.0.1:27017,db2.example:27017/?replicaSet=rs0',
      'mongodb+srv://u:p@cluster.example/zgw',
    ]) {
      expect(() => piiFromConfig(config({ MONGODB_URL: url }), log)).toThrow(
        'ZGW_PII_KEYS or ZGW_PII_KEYS_FILE is required with a MongoDB on another machine',
      );
    }
    const first = piiFromConfig(config({}), log);
    const again = piiFromConfig(config({ MONGODB_URL: 'mongodb://localhost:27017/zgw' }), log);
    expect(again.searchHash(BSN, 'bsn')).toBe(first.searchHash(BSN, 'bsn'));
    expect(lines.filter((l) => l.includes('created the PII key file'))).toHaveLength(1);
    expect(lines.join('')).not.toContain(readFileSync(join(dir, 'pii-keys'), 'utf8').trim().slice(3));
    expect(piiFromConfig(config({ ZGW_PII_KEYS_FILE: join(dir, 'pii-keys'), MONGODB_URL: 'mongodb://db.example' }), log).versions).toEqual(['v1']);
  });
});
