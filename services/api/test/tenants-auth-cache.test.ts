import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { ensureAllRights } from '../src/bootstrap';
import { startApp, type TestApp } from './harness';
import { CRS, ZRC } from './zaken.fixtures';

// An identity provider's client may serve several organisations (the token's claim `rsin` names the one it acts
// for): what the authenticator keeps of it in memory, its rights and its rate-limit window, is per organisation.
const A = '123456782';
const B = '111222333';
const AUDIENCE = 'zgw-api';

let issuer: string;
let server: Server;
let key: { privateKey: KeyLike; jwk: JWK };
let t: TestApp;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  key = { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' } };
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    if (req.url === '/jwks') return res.end(JSON.stringify({ keys: [key.jwk] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // (the test client makes two calls below: well within its own window)
  t = await startApp({ OIDC_API_ISSUER: issuer, OIDC_API_AUDIENCE: AUDIENCE, RATE_LIMIT: '3/1h' });
  for (const rsin of [A, B]) expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: `Gemeente ${rsin}` })).statusCode).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await new Promise((r) => server.close(r));
});

/** A token of the provider for `client`, acting for organisation `rsin`. */
const tokenOf = (client: string, rsin: string) =>
  new SignJWT({ client_id: client, rsin })
    .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key.privateKey);
const zaken = async (client: string, rsin: string) =>
  (await t.call('GET', `${ZRC}/zaken`, undefined, { token: await tokenOf(client, rsin), headers: CRS })).statusCode;

it("keeps a client's rights per organisation: all rights in one are none in another", async () => {
  await ensureAllRights(t.deps.db, 'idp-rechten', A);
  expect(await zaken('idp-rechten', A)).toBe(200);
  // the same client acting for B, which gave it no applicatie
  expect(await zaken('idp-rechten', B)).toBe(403);
  // and B's rights once B gives it some, while A's stay A's
  await ensureAllRights(t.deps.db, 'idp-rechten', B);
  t.deps.caches.clear('autorisaties');
  expect(await zaken('idp-rechten', B)).toBe(200);
});

it("counts a client's requests per organisation: one organisation's use does not throttle another's", async () => {
  for (const rsin of [A, B]) await ensureAllRights(t.deps.db, 'idp-tempo', rsin);
  for (let i = 0; i < 3; i++) expect(await zaken('idp-tempo', A)).toBe(200);
  expect(await zaken('idp-tempo', A)).toBe(429);
  expect(await zaken('idp-tempo', B)).toBe(200);
});
