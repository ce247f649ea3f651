import { startApp, type TestApp } from './harness';

// A path that exists asked with a method it does not answer to is a 405 in the ZGW problem format, with an `Allow`
// header naming the methods it does; an unknown path stays a 404.
let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => {
  await t.close();
});

const UUID = '00000000-0000-4000-8000-000000000000';

test.each([
  ['DELETE', '/catalogi/api/v1/catalogussen', 'GET, HEAD, POST'],
  ['PUT', '/zaken/api/v1/zaken', 'GET, HEAD, POST'],
  ['TRACE', `/zaken/api/v1/zaken/${UUID}`, 'GET, HEAD, PUT, PATCH, DELETE'],
  ['POST', `/documenten/api/v1/enkelvoudiginformatieobjecten/${UUID}`, 'GET, HEAD, PUT, PATCH, DELETE'],
  ['PATCH', '/autorisaties/api/v1/applicaties', 'GET, HEAD, POST'],
  // a method with a body and no Content-Type: still 405, its body never read
  // (PUT and PATCH: Catalogi 1.3.3 updates catalogussen)
  ['QUERY', '/catalogi/api/v1/catalogussen/0', 'GET, HEAD, PUT, PATCH'],
])('%s %s is 405, Allow: %s', async (method, path, allow) => {
  const res = await t.call(method, path, method === 'TRACE' || method === 'QUERY' ? undefined : {});
  expect([res.statusCode, res.headers.allow, String(res.headers['content-type']).split(';')[0]]).toEqual([405, allow, 'application/problem+json']);
  expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Methode niet toegestaan.' });
});

test('a method served from a later version is 405 in an earlier one, with the methods that version answers', async () => {
  const path = `/catalogi/api/v1/catalogussen/${UUID}`;
  const res = await t.call('PUT', path, {});
  expect([res.statusCode, res.headers.allow]).toEqual([405, 'GET, HEAD']);
  expect(res.json().detail).toContain('vanaf versie 1.3.3');
  // in that version it is served (and the catalogus does not exist)
  expect((await t.call('PUT', path, {}, { headers: { 'api-version': '1.3.3' } })).statusCode).not.toBe(405);
});

test('a body of a type no route parses, sent with a method the path does not answer to, is 405 too', async () => {
  const res = await t.call('POST', '/documenten/api/v1/bestandsdelen/0', '--b\r\n--b--\r\n', {
    headers: { 'content-type': 'multipart/form-data; boundary=b' },
  });
  expect([res.statusCode, res.headers.allow]).toEqual([405, 'PUT']);
});

test('an unknown path is 404 whatever the method', async () => {
  for (const method of ['GET', 'DELETE', 'TRACE']) {
    const res = await t.call(method, '/zaken/api/v1/bestaat-niet');
    expect([method, res.statusCode, res.headers.allow, res.json().code]).toEqual([method, 404, undefined, 'not_found']);
  }
});

test('every operation of every served document declares the errors the platform answers, in the problem format', async () => {
  const documents = ['zaken', 'catalogi', 'besluiten', 'autorisaties', 'notificaties', 'overdrachten'].map((c) => [c, {}] as const);
  const all = [...documents, ['documenten', { 'api-version': '1.5.0' }] as const, ['documenten', { 'api-version': '1.7.0' }] as const];
  let operations = 0;
  for (const [component, headers] of all) {
    const res = await t.call('GET', `/${component}/api/v1/schema/openapi.json`, undefined, { headers });
    expect([component, res.statusCode]).toEqual([component, 200]);
    for (const [path, ops] of Object.entries(
      res.json().paths as Record<string, Record<string, { responses: Record<string, any>; requestBody?: unknown }>>,
    )) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.responses) continue;
        operations++;
        const expected = ['400', '401', '403', '404', '406', '409', '410', '412', '415', '429', '500', ...(op.requestBody ? ['413'] : [])];
        const missing = expected.filter((s) => !op.responses[s]?.content?.['application/problem+json']);
        expect({ component, method, path, missing }).toEqual({ component, method, path, missing: [] });
      }
    }
  }
  expect(operations).toBeGreaterThan(150);
});
