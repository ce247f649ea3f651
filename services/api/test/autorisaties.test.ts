import { startApp, token, type TestApp } from './harness';

const AC = '/autorisaties/api/v1';
const ZAAKTYPE = 'http://127.0.0.1:8000/catalogi/api/v1/zaaktypen/5b3f0a5e-1111-4d4a-9f3e-2f5e9c1b2a10';

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t.close());

const zrc = (over: Record<string, unknown> = {}) => ({
  component: 'zrc',
  scopes: ['zaken.lezen'],
  zaaktype: ZAAKTYPE,
  maxVertrouwelijkheidaanduiding: 'openbaar',
  ...over,
});

describe('applicaties CRUD', () => {
  it('creates, reads, lists by clientIds, updates, patches and deletes an applicatie', async () => {
    const created = await t.call('POST', `${AC}/applicaties`, { clientIds: ['crud-1', 'crud-2'], label: 'App', autorisaties: [zrc()] });
    expect(created.statusCode).toBe(201);
    const app = created.json();
    expect(created.headers.location).toBe(app.url);
    expect(created.headers['api-version']).toBe('1.1.0');
    expect(app).toMatchObject({ clientIds: ['crud-1', 'crud-2'], heeftAlleAutorisaties: false, alleenIsGereedVoorPublicatie: false });
    expect(app.autorisaties[0]).toMatchObject({ component: 'zrc', componentWeergave: 'Zaken API', zaaktype: ZAAKTYPE });

    const read = await t.call('GET', app.url);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(app);
    expect(read.headers.etag).toBeDefined();
    const notModified = await t.call('GET', app.url, undefined, { headers: { 'if-none-match': String(read.headers.etag) } });
    expect(notModified.statusCode).toBe(304);

    const list = await t.call('GET', `${AC}/applicaties?clientIds=crud-2`);
    expect(list.json()).toMatchObject({ count: 1, next: null, previous: null });
    expect(list.json().results[0].url).toBe(app.url);

    const put = await t.call('PUT', app.url, { clientIds: ['crud-1'], label: 'Renamed', heeftAlleAutorisaties: true, autorisaties: [] });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ label: 'Renamed', heeftAlleAutorisaties: true, autorisaties: [] });

    const patch = await t.call('PATCH', app.url, { alleenIsGereedVoorPublicatie: true });
    expect(patch.statusCode).toBe(200);
    expect(patch.json()).toMatchObject({ label: 'Renamed', alleenIsGereedVoorPublicatie: true });

    expect((await t.call('DELETE', app.url)).statusCode).toBe(204);
    expect((await t.call('GET', app.url)).statusCode).toBe(404);
    // The client id is free again after the delete.
    expect((await t.call('POST', `${AC}/applicaties`, { clientIds: ['crud-1'], label: 'Again', heeftAlleAutorisaties: true })).statusCode).toBe(201);
  });

  it('finds the applicatie of a consumer and 404s for an unknown one', async () => {
    await t.call('POST', `${AC}/applicaties`, { clientIds: ['consumer-x'], label: 'C', heeftAlleAutorisaties: true });
    const found = await t.call('GET', `${AC}/applicaties/consumer?clientId=consumer-x`);
    expect(found.statusCode).toBe(200);
    expect(found.json().clientIds).toEqual(['consumer-x']);
    const missing = await t.call('GET', `${AC}/applicaties/consumer?clientId=nobody`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('business rules', () => {
  it('ac-001: a client id belongs to one applicatie only', async () => {
    expect((await t.call('POST', `${AC}/applicaties`, { clientIds: ['dup-1'], label: 'A', heeftAlleAutorisaties: true })).statusCode).toBe(201);
    const res = await t.call('POST', `${AC}/applicaties`, { clientIds: ['other', 'dup-1'], label: 'B', heeftAlleAutorisaties: true });
    expect(res.statusCode).toBe(400);
    expect(res.json().invalidParams[0]).toMatchObject({ name: 'clientIds', code: 'clientId-exists' });
  });

  it('a key the unique index refuses is a 400 on its field, never a 500: a second applicatie without client ids', async () => {
    const body = { clientIds: [], label: 'Zonder clients', heeftAlleAutorisaties: true };
    expect((await t.call('POST', `${AC}/applicaties`, body)).statusCode).toBe(201);
    const res = await t.call('POST', `${AC}/applicaties`, body);
    expect([res.statusCode, res.json().invalidParams]).toEqual([400, [{ name: 'clientIds', code: 'unique', reason: expect.any(String) }]]);
  });

  it('ac-002: heeftAlleAutorisaties and explicit autorisaties exclude each other, and one of them is needed', async () => {
    const both = await t.call('POST', `${AC}/applicaties`, { clientIds: ['r2a'], label: 'A', heeftAlleAutorisaties: true, autorisaties: [zrc()] });
    expect(both.json().invalidParams[0]).toMatchObject({ name: 'nonFieldErrors', code: 'ambiguous-authorizations-specified' });
    const none = await t.call('POST', `${AC}/applicaties`, { clientIds: ['r2b'], label: 'A', heeftAlleAutorisaties: false, autorisaties: [] });
    expect(none.json().invalidParams[0]).toMatchObject({ name: 'nonFieldErrors', code: 'missing-authorizations' });
  });

  it.each([
    ['zrc', 'zaken.lezen', ['autorisaties.0.maxVertrouwelijkheidaanduiding', 'autorisaties.0.zaaktype']],
    ['drc', 'documenten.lezen', ['autorisaties.0.informatieobjecttype', 'autorisaties.0.maxVertrouwelijkheidaanduiding']],
    ['brc', 'besluiten.lezen', ['autorisaties.0.besluittype']],
  ])('ac-003: %s autorisatie with %s needs its type', async (component, scope, names) => {
    const body = {
      clientIds: [`r3-${component}`],
      label: 'A',
      autorisaties: [{ component, scopes: [scope], zaaktype: '', informatieobjecttype: '', besluittype: '', maxVertrouwelijkheidaanduiding: '' }],
    };
    const res = await t.call('POST', `${AC}/applicaties`, body);
    expect(res.statusCode).toBe(400);
    const got = res
      .json()
      .invalidParams.map((p: { name: string; code: string }) => `${p.name}:${p.code}`)
      .sort();
    expect(got).toEqual(names.map((n) => `${n}:required`));
    // Without a scope about that component's objects the type is not needed.
    const ok = await t.call('POST', `${AC}/applicaties`, {
      ...body,
      autorisaties: [{ ...body.autorisaties[0], scopes: ['notificaties.publiceren'] }],
    });
    expect(ok.statusCode).toBe(201);
  });
});

describe('authentication and authorisation', () => {
  it('401 without a token, 403 for an unknown client or a bad signature', async () => {
    const none = await t.call('GET', `${AC}/applicaties`, undefined, { token: null });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ status: 401, code: 'not_authenticated' });
    expect((await t.call('GET', `${AC}/applicaties`, undefined, { token: token('ghost', 'x') })).statusCode).toBe(403);
    await t.client('signed-wrong', 'right-secret');
    expect((await t.call('GET', `${AC}/applicaties`, undefined, { token: token('signed-wrong', 'wrong-secret') })).statusCode).toBe(403);
  });

  it('accepts iat up to five minutes in the future and refuses beyond', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect((await t.call('GET', `${AC}/applicaties`, undefined, { token: token(undefined, undefined, { iat: now + 240 }) })).statusCode).toBe(200);
    expect((await t.call('GET', `${AC}/applicaties`, undefined, { token: token(undefined, undefined, { iat: now + 3600 }) })).statusCode).toBe(403);
  });

  it('takes a JWT_LEEWAY_SECONDS below five minutes: 0 refuses an iat ahead of the clock', async () => {
    const strict = await startApp({ JWT_LEEWAY_SECONDS: '0' }, { shareWith: t });
    try {
      const now = Math.floor(Date.now() / 1000);
      const call = (iat: number) => strict.call('GET', `${AC}/applicaties`, undefined, { token: token(undefined, undefined, { iat }) });
      expect((await call(now - 5)).statusCode).toBe(200);
      const ahead = await call(now + 30);
      expect(ahead.statusCode).toBe(403);
      expect(ahead.json().detail).toMatch(/iat/);
    } finally {
      await strict.close();
    }
  });

  it('reads the applicatie live: a changed scope takes effect on the next request', async () => {
    await t.client('live-client', 'live-secret');
    const tok = token('live-client', 'live-secret');
    expect((await t.call('GET', `${AC}/applicaties`, undefined, { token: tok })).statusCode).toBe(403);
    const app = (
      await t.call('POST', `${AC}/applicaties`, {
        clientIds: ['live-client'],
        label: 'L',
        autorisaties: [{ component: 'ac', scopes: ['autorisaties.lezen'] }],
      })
    ).json();
    expect((await t.call('GET', `${AC}/applicaties`, undefined, { token: tok })).statusCode).toBe(200);
    // Reading does not grant writing.
    expect(
      (await t.call('POST', `${AC}/applicaties`, { clientIds: ['x'], label: 'x', heeftAlleAutorisaties: true }, { token: tok })).statusCode,
    ).toBe(403);
    await t.call('PATCH', app.url, { autorisaties: [{ component: 'ac', scopes: ['autorisaties.bijwerken'] }] });
    expect((await t.call('GET', `${AC}/applicaties`, undefined, { token: tok })).statusCode).toBe(403);
  });
});

describe('bad input never gives a 5xx', () => {
  const bodies: unknown[] = [
    '{not json',
    '[]',
    '"text"',
    {},
    { clientIds: 'abc', label: 'x' },
    { clientIds: [1, 2], label: 'x', heeftAlleAutorisaties: true },
    { clientIds: ['x'], label: null, heeftAlleAutorisaties: true },
    { clientIds: ['x'], label: 'x'.repeat(101), heeftAlleAutorisaties: true },
    { clientIds: ['x'], label: 'x', heeftAlleAutorisaties: 'yes' },
    { clientIds: ['x'], label: 'x', autorisaties: [{ component: 'nope', scopes: [] }] },
    {
      clientIds: ['x'],
      label: 'x',
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: 'not a url', maxVertrouwelijkheidaanduiding: 'secret' }],
    },
    { clientIds: ['x'], label: 'x', autorisaties: 'all' },
  ];

  it.each(['POST', 'PUT', 'PATCH'])('%s with malformed bodies answers 400 in the ZGW format', async (method) => {
    const target = (await t.call('POST', `${AC}/applicaties`, { clientIds: [`bad-${method}`], label: 'B', heeftAlleAutorisaties: true })).json().url;
    for (const body of bodies) {
      if (method === 'PATCH' && typeof body === 'object' && body && !Array.isArray(body) && Object.keys(body).length === 0) continue; // {} is a valid no-op PATCH
      const res = await t.call(method, method === 'POST' ? `${AC}/applicaties` : target, body);
      expect(res.statusCode).toBe(400);
      const err = res.json();
      expect(err).toMatchObject({
        status: 400,
        code: expect.any(String),
        title: expect.any(String),
        detail: expect.any(String),
        instance: expect.any(String),
      });
      expect(err.invalidParams.length).toBeGreaterThan(0);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
  });

  it('treats an empty JSON body as no body: fine for DELETE, 400 where a body is required', async () => {
    const app = (await t.call('POST', `${AC}/applicaties`, { clientIds: ['empty-body'], label: 'E', heeftAlleAutorisaties: true })).json();
    expect((await t.call('POST', `${AC}/applicaties`, '')).statusCode).toBe(400);
    expect((await t.call('DELETE', app.url, '')).statusCode).toBe(204);
  });

  it('names the invalid field', async () => {
    const res = await t.call('POST', `${AC}/applicaties`, {
      clientIds: ['f'],
      label: 'x',
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: ZAAKTYPE, maxVertrouwelijkheidaanduiding: 'heel_geheim' }],
    });
    expect(res.json().invalidParams).toEqual([
      expect.objectContaining({ name: 'autorisaties.0.maxVertrouwelijkheidaanduiding', code: 'invalid_choice' }),
    ]);
    const missing = await t.call('POST', `${AC}/applicaties`, { label: 'x', heeftAlleAutorisaties: true });
    expect(missing.json().invalidParams).toEqual([expect.objectContaining({ name: 'clientIds', code: 'required' })]);
  });

  it('invalid uuids, unknown paths, bad pages and oversized bodies are 4xx', async () => {
    expect((await t.call('GET', `${AC}/applicaties/not-a-uuid`)).statusCode).toBe(404);
    expect((await t.call('DELETE', `${AC}/applicaties/00000000-0000-4000-8000-000000000000`)).statusCode).toBe(404);
    expect((await t.call('GET', `${AC}/nothing-here`)).statusCode).toBe(404);
    expect((await t.call('GET', `${AC}/applicaties?page=0`)).statusCode).toBe(404);
    expect((await t.call('GET', `${AC}/applicaties?page=999`)).statusCode).toBe(404);
    const huge = JSON.stringify({ clientIds: ['x'], label: 'x'.repeat(2 * 1024 * 1024) });
    expect((await t.call('POST', `${AC}/applicaties`, huge)).statusCode).toBe(413);
  });
});

describe('service endpoints', () => {
  it('serves the OpenAPI document generated from the schemas, in JSON and YAML', async () => {
    const json = await t.call('GET', `${AC}/schema/openapi.json`, undefined, { token: null });
    const doc = json.json();
    expect(doc.info.version).toBe('1.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/applicaties', '/applicaties/{uuid}', '/applicaties/consumer']));
    expect(doc.components.schemas.Applicatie.properties).toHaveProperty('alleenIsGereedVoorPublicatie');
    const yaml = await t.call('GET', `${AC}/schema/openapi.yaml`, undefined, { token: null });
    expect(yaml.body).toContain('title: Autorisaties API');
  });

  it('reports the release label and the API version of each component', async () => {
    const res = (await t.call('GET', '/', undefined, { token: null })).json();
    expect(res.release).toMatch(/^\d{4}\.\d{1,2}\.\d{1,2}$/);
    expect(res.components.autorisaties).toBe('1.1.0');
    expect((await t.call('GET', '/health', undefined, { token: null })).statusCode).toBe(200);
  });
});
