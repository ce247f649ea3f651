import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { bootstrapClients } from '../src/bootstrap';
import { parseClientsEnv } from '../src/common/auth/credentials';
import { createLogger } from '@zgw/shared';
import { eventually, startApp, token, type TestApp } from './harness';

let t: TestApp;
beforeAll(async () => {
  // With the cache broadcast, as `main` runs it: the credentials command tells running instances what it changed.
  t = await startApp({ CACHE_TTL_MS: '600000' }, { broadcast: true });
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
    await bootstrapClients(t.mongo.db, t.deps.pii, 'boot-admin:pw1:all,boot-limited:pw2', createLogger('test', 'silent'), t.deps.tenants);
    const admin = await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('boot-admin', 'pw1') });
    expect(admin.statusCode).toBe(200);
    const limited = await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('boot-limited', 'pw2') });
    expect(limited.statusCode).toBe(403);
    // Running it again (every API start does) creates no second applicatie.
    await bootstrapClients(t.mongo.db, t.deps.pii, 'boot-admin:pw1:all', createLogger('test', 'silent'), t.deps.tenants);
    const apps = (await t.call('GET', '/autorisaties/api/v1/applicaties?clientIds=boot-admin')).json();
    expect(apps.count).toBe(1);
  });
});

describe('credentials command', () => {
  const cli = (...args: string[]) =>
    execFileSync(process.execPath, [join(__dirname, '..', 'dist', 'cli', 'credentials.js'), ...args], {
      env: {
        ...process.env,
        MONGODB_URL: t.config.MONGODB_URL,
        MONGODB_DB: t.config.MONGODB_DB,
        KAFKA_BROKERS: t.config.KAFKA_BROKERS,
        KAFKA_TOPIC_PREFIX: t.topicPrefix,
      },
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
    // The running API has the secret cached; the command's broadcast makes it let go.
    const refused = async () =>
      (await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('cli-admin', added.secret) })).statusCode === 403;
    expect(await eventually(refused)).toBe(true);
  });
});

describe('credential admin endpoint', () => {
  const PATH = '/admin/api/v1/credentials';

  it('lets an administrator register a secret that then authenticates; never returns secrets', async () => {
    const created = await t.call('POST', PATH, { identifier: 'provisioned-1', secret: 'provisioned-secret' });
    expect(created.statusCode).toBe(201);
    expect(created.body).not.toContain('provisioned-secret');
    await t.call('POST', '/autorisaties/api/v1/applicaties', { clientIds: ['provisioned-1'], label: 'P', heeftAlleAutorisaties: true });
    expect(
      (await t.call('GET', '/autorisaties/api/v1/applicaties', undefined, { token: token('provisioned-1', 'provisioned-secret') })).statusCode,
    ).toBe(200);
    const list = await t.call('GET', PATH);
    expect(list.json()).toEqual(expect.arrayContaining([expect.objectContaining({ identifier: 'provisioned-1' })]));
    expect(list.body).not.toContain('provisioned-secret');
    expect((await t.call('DELETE', `${PATH}/provisioned-1`)).statusCode).toBe(204);
    expect((await t.call('DELETE', `${PATH}/provisioned-1`)).statusCode).toBe(404);
  });

  it('refuses callers without autorisaties.bijwerken and bad bodies', async () => {
    await t.client('reader-only', 'reader-secret');
    await t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: ['reader-only'],
      label: 'R',
      autorisaties: [{ component: 'ac', scopes: ['autorisaties.lezen'] }],
    });
    const res = await t.call('POST', PATH, { identifier: 'x', secret: 'long-enough' }, { token: token('reader-only', 'reader-secret') });
    expect(res.statusCode).toBe(403);
    expect((await t.call('POST', PATH, undefined, { token: null })).statusCode).toBe(401);
    const bad = await t.call('POST', PATH, { identifier: '', secret: 'short' });
    expect(bad.statusCode).toBe(400);
    expect(
      bad
        .json()
        .invalidParams.map((p: { name: string }) => p.name)
        .sort(),
    ).toEqual(['identifier', 'secret']);
  });
});
