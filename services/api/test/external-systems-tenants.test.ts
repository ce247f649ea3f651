import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

/**
 * The credentials of external ZGW systems (doelregistraties with route extern) are each organisation's own: a
 * reference into such a system (a zaak's relevanteAndereZaken) is read with the credentials the caller's organisation
 * registered for it, and never with another organisation's, however close together their requests come.
 */
const A = '123456782';
const B = '111222333';
const DOELREGISTRATIES = '/admin/api/v1/doelregistraties';

let t: TestApp;
let sl: Referentielijsten;
/** The external system: answers every GET with a zaak, and notes the client id of each request's token (or none). */
let systeem: Server;
let base = '';
const gezien: (string | null)[] = [];

const as = (client: string): TestApp => ({
  ...t,
  call: (m, u, body, o = {}) => t.call(m, u, body, { ...o, token: o.token === undefined ? token(client, `${client}-secret`) : o.token }),
});
let a: TestApp;
let b: TestApp;
let zaaktypeA = '';
let zaaktypeB = '';

const registratie = (naam: string, clientId: string) => ({
  naam,
  route: 'extern',
  rsin: '987654321',
  catalogus: `${base}/catalogi/api/v1/catalogussen/1`,
  zaaktypen: [{ bron: 'ZT-1', doel: 'ZT-1' }],
  bron: 'openlaten',
  zakenApi: `${base}/zaken/api/v1`,
  catalogiApi: `${base}/catalogi/api/v1`,
  documentenApi: `${base}/documenten/api/v1`,
  besluitenApi: `${base}/besluiten/api/v1`,
  clientId,
  secret: `${clientId}-een-lang-geheim`,
});

/** A zaak of `app` that names a zaak of the external system; answers the client id the system saw (null: none). */
async function verwijzing(app: TestApp, zaaktype: string, rsin: string): Promise<string | null> {
  const before = gezien.length;
  await createZ(app, 'zaken', {
    ...zaakBody(zaaktype, { bronorganisatie: rsin, verantwoordelijkeOrganisatie: rsin }),
    relevanteAndereZaken: [{ url: `${base}/zaken/api/v1/zaken/5d8b6a8e-8c2a-4c4e-9d7e-1f2a3b4c5d6e`, aardRelatie: 'vervolg' }],
  });
  expect(gezien.length).toBe(before + 1);
  return gezien[gezien.length - 1]!;
}

beforeAll(async () => {
  systeem = createServer((req, res) => {
    const auth = req.headers.authorization;
    const claims = auth ? (JSON.parse(Buffer.from(auth.split('.')[1] ?? '', 'base64url').toString()) as { client_id: string }) : undefined;
    gezien.push(claims ? claims.client_id : null);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ zaaktype: `${base}/catalogi/api/v1/zaaktypen/1`, bronorganisatie: '987654321' }));
  });
  await new Promise<void>((resolve) => systeem.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(systeem.address() as AddressInfo).port}`;
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  for (const rsin of [A, B]) {
    expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: `Gemeente ${rsin}` })).statusCode).toBe(201);
    const client = `beheer-${rsin}`;
    expect((await t.call('POST', '/admin/api/v1/credentials', { identifier: client, secret: `${client}-secret`, tenant: rsin })).statusCode).toBe(
      201,
    );
    await ensureAllRights(t.deps.db, client, rsin);
  }
  a = as(`beheer-${A}`);
  b = as(`beheer-${B}`);
  zaaktypeA = (await zaaktypeMetOnderdelen(a, sl)).zaaktype;
  zaaktypeB = (await zaaktypeMetOnderdelen(b, sl)).zaaktype;
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sl?.close();
  await new Promise((resolve) => systeem?.close(resolve));
});

test("a reference into an external system goes with the caller's organisation's credentials for it, never another's", async () => {
  expect((await a.call('POST', DOELREGISTRATIES, registratie('systeem-x', 'a-bij-x'))).statusCode).toBe(201);
  await new Promise((r) => setTimeout(r, 1_100)); // a registration counts on the next miss, at most a second later
  // A's reference goes with A's credentials; B's, right after (A's list just read), with none: B registered nothing
  expect(await verwijzing(a, zaaktypeA, A)).toBe('a-bij-x');
  expect(await verwijzing(b, zaaktypeB, B)).toBeNull();
  expect(await verwijzing(a, zaaktypeA, A)).toBe('a-bij-x');
  expect(await verwijzing(b, zaaktypeB, B)).toBeNull();
  // B registers the same system with its own credentials: each organisation's requests go with its own
  expect((await b.call('POST', DOELREGISTRATIES, registratie('systeem-x-b', 'b-bij-x'))).statusCode).toBe(201);
  await new Promise((r) => setTimeout(r, 1_100));
  expect(await verwijzing(b, zaaktypeB, B)).toBe('b-bij-x');
  expect(await verwijzing(a, zaaktypeA, A)).toBe('a-bij-x');
  expect(await verwijzing(b, zaaktypeB, B)).toBe('b-bij-x');
  // A removes its registration: its references go without credentials (on the next read of its list), B's stay B's
  expect((await a.call('DELETE', `${DOELREGISTRATIES}/systeem-x`)).statusCode).toBe(204);
  await new Promise((r) => setTimeout(r, 10_100));
  expect(await verwijzing(a, zaaktypeA, A)).toBeNull();
  expect(await verwijzing(b, zaaktypeB, B)).toBe('b-bij-x');
}, 60_000);
