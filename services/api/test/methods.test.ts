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
])('%s %s is 405, Allow: %s', async (method, path, allow) => {
  const res = await t.call(method, path, method === 'TRACE' ? undefined : {});
  expect([res.statusCode, res.headers.allow, String(res.headers['content-type']).split(';')[0]]).toEqual([405, allow, 'application/problem+json']);
  expect(res.json()).toMatchObject({ status: 405, code: 'method_not_allowed', title: 'Methode niet toegestaan.' });
});

test('an unknown path is 404 whatever the method', async () => {
  for (const method of ['GET', 'DELETE', 'TRACE']) {
    const res = await t.call(method, '/zaken/api/v1/bestaat-niet');
    expect([method, res.statusCode, res.headers.allow, res.json().code]).toEqual([method, 404, undefined, 'not_found']);
  }
});
