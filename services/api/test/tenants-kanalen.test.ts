import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KANALEN } from '@zgw/shared';
import { startApp, type TestApp } from './harness';
import { adminOf, organisation } from './tenants.fixtures';

// The standard's kanalen are shared by every organisation; a kanaal an organisation registers is its own: listed,
// read, published on and subscribed to by it alone. Names stay unique on the platform: one taken by another
// organisation is refused as any taken name is, without saying where.
const NRC = '/notificaties/api/v1';
const A = '123456782';
const B = '111222333';
let t: TestApp;
let receiver: Server;
let callbackUrl: string;
const tok = adminOf;
const as = (rsin: string, method: string, path: string, body?: unknown) => t.call(method, `${NRC}${path}`, body, { token: tok(rsin) });

beforeAll(async () => {
  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  t = await startApp();
  for (const rsin of [A, B]) await organisation(t, rsin);
});
afterAll(async () => {
  await t?.close();
  receiver?.close();
});

const message = (kanaal: string) => {
  const resourceUrl = `https://example.com/objecten/${randomUUID()}`;
  return {
    kanaal,
    hoofdObject: resourceUrl,
    resource: 'object',
    resourceUrl,
    actie: 'create',
    aanmaakdatum: new Date().toISOString(),
    kenmerken: {},
  };
};
const namen = async (rsin: string) => ((await as(rsin, 'GET', '/kanaal')).json() as { naam: string }[]).map((k) => k.naam);

it("keeps an organisation's own kanaal to it; the standard's kanalen stay shared", async () => {
  const naam = `eigen-${randomUUID().slice(0, 8)}`;
  const made = await as(A, 'POST', '/kanaal', { naam, filters: ['soort'] });
  expect(made.statusCode).toBe(201);
  const url = made.json().url as string;

  // listed and readable by A only
  expect(await namen(A)).toEqual(expect.arrayContaining([...KANALEN, naam]));
  expect(await namen(B)).toEqual(expect.arrayContaining([...KANALEN]));
  expect(await namen(B)).not.toContain(naam);
  expect((await t.call('GET', `${NRC}/kanaal`)).json().map((k: { naam: string }) => k.naam)).not.toContain(naam);
  expect((await as(B, 'GET', `/kanaal?naam=${naam}`)).json()).toEqual([]);
  expect((await as(A, 'GET', `/kanaal?naam=${naam}`)).json()).toMatchObject([{ naam, url }]);
  expect((await t.call('GET', url, undefined, { token: tok(A) })).statusCode).toBe(200);
  const hidden = await t.call('GET', url, undefined, { token: tok(B) });
  expect(hidden.statusCode).toBe(404);
  expect(hidden.json()).toMatchObject({ status: 404, code: 'not_found' });

  // A publishes on it and subscribes to it; B can do neither, as for a kanaal that does not exist
  expect((await as(A, 'POST', '/notificaties', message(naam))).statusCode).toBe(201);
  const own = await as(A, 'POST', '/abonnement', { callbackUrl, auth: 'Bearer a', kanalen: [{ naam, filters: { soort: '*' } }] });
  expect(own.statusCode).toBe(201);
  const unknown = (await as(B, 'POST', '/notificaties', message(`bestaat-niet-${randomUUID().slice(0, 8)}`))).json();
  const publish = await as(B, 'POST', '/notificaties', message(naam));
  expect(publish.statusCode).toBe(400);
  expect(publish.json().invalidParams).toEqual([
    { ...unknown.invalidParams[0], reason: unknown.invalidParams[0].reason.replace(/"[^"]+"/, `"${naam}"`) },
  ]);
  const subscribe = await as(B, 'POST', '/abonnement', { callbackUrl, auth: 'Bearer b', kanalen: [{ naam }] });
  expect(subscribe.statusCode).toBe(400);
  expect(subscribe.json().invalidParams).toEqual([expect.objectContaining({ name: 'kanalen.0.naam', code: 'does_not_exist' })]);

  // the standard's kanalen: both subscribe, both publish
  for (const rsin of [A, B]) {
    expect((await as(rsin, 'POST', '/abonnement', { callbackUrl, auth: 'Bearer x', kanalen: [{ naam: 'zaken' }] })).statusCode).toBe(201);
    expect((await as(rsin, 'POST', '/notificaties', message('zaken'))).statusCode).toBe(201);
  }
});

it('refuses a name taken by another organisation as any taken name, without saying where', async () => {
  const naam = `bezet-${randomUUID().slice(0, 8)}`;
  expect((await as(A, 'POST', '/kanaal', { naam })).statusCode).toBe(201);
  const theirs = await as(B, 'POST', '/kanaal', { naam });
  expect(theirs.statusCode).toBe(400);
  const mine = `mijn-${randomUUID().slice(0, 8)}`;
  expect((await as(B, 'POST', '/kanaal', { naam: mine })).statusCode).toBe(201);
  const again = await as(B, 'POST', '/kanaal', { naam: mine });
  expect(again.statusCode).toBe(400);
  const shape = (res: typeof again, n: string) => {
    const { instance: _instance, ...rest } = res.json();
    return JSON.stringify(rest).replaceAll(n, '<naam>');
  };
  expect(shape(theirs, naam)).toBe(shape(again, mine));
  expect(JSON.stringify(theirs.json())).not.toContain(A);
  // and the standard's names are taken for everyone
  expect((await as(B, 'POST', '/kanaal', { naam: 'zaken' })).json().invalidParams[0].code).toBe('unique');
  expect(await namen(B)).not.toContain(naam);
});
