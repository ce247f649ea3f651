import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { bootstrapClients } from '../src/bootstrap';
import { parseClientsEnv } from '../src/common/credentials';
import { createLogger } from '@zgw/shared';
import { startApp, token, type TestApp } from './harness';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t.close());

describe('ZGW_CLIENTS', () => {
  it('parses id:secret[:all] entries and refuses malformed ones', () => {
    expect(parseClientsEnv(' a:s1:all, b:s2 ,')).toEqual([
      { clientId: 'a', secret: 's1', allRights: true },
      { clientId: 'b', secret: 's2', allRights: false },
    ]);
    expect(() => parseClientsEnv('nosecret')).toThrow(/clientId:secret/);
  });

  it('registers secrets; `all` gives an all-rights applicatie, the others need rights from the Autorisaties API', async () => {
    await bootstrapClients(t.mongo.db, 'boot-admin:pw1:all,boot-limited:pw2', createLogger('test', 'silent'));
    const admin = await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('boot-admin', 'pw1') });
    expect(admin.statusCode).toBe(200);
    const limited = await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('boot-limited', 'pw2') });
    expect(limited.statusCode).toBe(403);
    // Running it again (every API start does) creates no second applicatie.
    await bootstrapClients(t.mongo.db, 'boot-admin:pw1:all', createLogger('test', 'silent'));
    const apps = (await t.call('GET', '/autorisaties/api/v1/applicaties?clientIds=boot-admin')).json();
    expect(apps.count).toBe(1);
  });
});

describe('credentials command', () => {
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [join(__dirname, '..', 'dist', 'cli', 'credentials.js'), ...args], {
      env: { ...process.env, MONGODB_URL: t.config.MONGODB_URL, MONGODB_DB: t.config.MONGODB_DB },
      encoding: 'utf8',
    });

  it('adds a client with a generated secret and all rights, lists it without the secret, and removes it', async () => {
    const added = JSON.parse(cli('add', 'cli-admin', '--all-rights'));
    expect(added).toMatchObject({ clientId: 'cli-admin', allRightsApplicatieCreated: true });
    expect(added.secret.length).toBeGreaterThanOrEqual(24);
    expect((await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('cli-admin', added.secret) })).statusCode).toBe(200);
    const listed = cli('list');
    expect(listed).toContain('cli-admin');
    expect(listed).not.toContain(added.secret);
    expect(JSON.parse(cli('remove', 'cli-admin'))).toMatchObject({ removed: true });
    expect((await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('cli-admin', added.secret) })).statusCode).toBe(403);
  });
});
