import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import { loadConfig } from '@zgw/shared';
import { ensureAllRights } from '../src/bootstrap';
import { startApp, type TestApp } from './harness';
import { CRS, ZRC } from './zaken.fixtures';

/**
 * API tokens from the organisation's OpenID Connect provider (OIDC_API_ISSUER, OIDC_API_AUDIENCE) beside the ZGW
 * HS256 tokens: RS256 and ES256 tokens verified with the keys of the provider's JWKS (here served by the test), the
 * client named by `client_id` or `azp`; every other token refused in the ZGW problem format.
 */
const AUDIENCE = 'zgw-api';
const CLIENT = 'oidc-app';
const LIST = `${ZRC}/zaken`;

interface Key {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKey: KeyLike;
  jwk: JWK;
}
async function key(kid: string, alg: Key['alg']): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

let issuer: string;
let server: Server;
let published: JWK[] = [];
let jwksReads = 0;
let rsa: Key;
let ec: Key;
let rotated: Key;
let t: TestApp;

beforeAll(async () => {
  [rsa, ec, rotated] = await Promise.all([key('rsa-1', 'RS256'), key('ec-1', 'ES256'), key('rsa-2', 'RS256')]);
  published = [rsa.jwk, ec.jwk];
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    if (req.url === '/jwks') {
      jwksReads++;
      return res.end(JSON.stringify({ keys: published }));
    }
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startApp({ OIDC_API_ISSUER: issuer, OIDC_API_AUDIENCE: AUDIENCE });
  await ensureAllRights(t.deps.db, CLIENT, t.config.ZGW_DEFAULT_TENANT);
});
afterAll(async () => {
  await t.close();
  await new Promise((r) => server.close(r));
});

/** A token of the provider: signed with `k`, for CLIENT, valid now; `edit` changes it before it is signed. */
function sign(k: Key, claims: Record<string, unknown> = { client_id: CLIENT }, edit: (j: SignJWT) => SignJWT = (j) => j): Promise<string> {
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: k.alg, kid: k.kid })
    .setIssuer(issuer)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('5m');
  return edit(jwt).sign(k.privateKey);
}
const get = (token: string, app = t) => app.call('GET', LIST, undefined, { token, headers: CRS });
const now = () => Math.floor(Date.now() / 1000);

it('takes RS256 and ES256 tokens of the provider; the client (client_id or azp) has the rights of its applicatie', async () => {
  expect((await get(await sign(rsa))).statusCode).toBe(200);
  expect((await get(await sign(ec, { azp: CLIENT }))).statusCode).toBe(200);
  // a client the autorisaties do not know has no rights, as with an HS256 token
  const stranger = await get(await sign(rsa, { client_id: 'oidc-onbekend' }));
  expect(stranger.statusCode).toBe(403);
  // and the ZGW tokens still work beside them
  expect((await t.call('GET', LIST, undefined, { headers: CRS })).statusCode).toBe(200);
});

it('refuses expired, not yet valid, foreign, tampered and unsigned tokens in the ZGW problem format', async () => {
  const refusals: [string, Promise<string>, RegExp][] = [
    ['expired', sign(rsa, undefined, (j) => j.setIssuedAt(now() - 3600).setExpirationTime(now() - 600)), /verlopen/],
    ['not yet valid', sign(rsa, undefined, (j) => j.setNotBefore(now() + 3600)), /nbf/],
    ['wrong issuer', sign(rsa, undefined, (j) => j.setIssuer('http://127.0.0.1:1/andere')), /iss/],
    ['wrong audience', sign(rsa, undefined, (j) => j.setAudience('iets-anders')), /aud/],
    ['no client', sign(rsa, { sub: 'iemand' }), /client_id of azp/],
  ];
  for (const [what, token, detail] of refusals) {
    const res = await get(await token);
    expect({ what, status: res.statusCode }).toEqual({ what, status: expect.any(Number) });
    expect([401, 403]).toContain(res.statusCode);
    const body = res.json();
    expect(body).toMatchObject({
      status: res.statusCode,
      code: expect.any(String),
      title: expect.any(String),
      instance: expect.stringMatching(/^urn:uuid:/),
    });
    expect(body.detail).toMatch(detail);
  }
  // a signature that does not match the claims
  const [h, p, sig] = (await sign(rsa)).split('.');
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), client_id: 'iemand-anders' })).toString(
    'base64url',
  );
  const tampered = await get(`${h}.${forged}.${sig}`);
  expect(tampered.statusCode).toBe(403);
  expect(tampered.json().detail).toMatch(/handtekening/);
  // alg none: never a provider's token, and no ZGW secret signs it
  const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ client_id: CLIENT, iss: issuer, aud: AUDIENCE })).toString('base64url')}.`;
  expect((await get(none)).statusCode).toBe(403);
});

it('allows OIDC_API_LEEWAY_SECONDS of clock difference on exp and nbf (default 60), and none with 0', async () => {
  const expired = (ago: number) => sign(rsa, undefined, (j) => j.setIssuedAt(now() - 600).setExpirationTime(now() - ago));
  const early = (ahead: number) => sign(rsa, undefined, (j) => j.setNotBefore(now() + ahead));
  expect((await get(await expired(30))).statusCode).toBe(200);
  expect((await get(await early(30))).statusCode).toBe(200);
  expect((await get(await expired(90))).json().detail).toMatch(/verlopen/);
  expect((await get(await early(90))).json().detail).toMatch(/nbf/);
  const strict = await startApp({ OIDC_API_ISSUER: issuer, OIDC_API_AUDIENCE: AUDIENCE, OIDC_API_LEEWAY_SECONDS: '0' }, { shareWith: t });
  try {
    const refused = await strict.call('GET', LIST, undefined, { token: await expired(5), headers: CRS });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().detail).toMatch(/verlopen/);
    expect((await strict.call('GET', LIST, undefined, { token: await sign(rsa), headers: CRS })).statusCode).toBe(200);
  } finally {
    await strict.close();
  }
});

it('fetches the keys again for a key it does not know (a rotation), and refuses one the provider does not publish', async () => {
  const unknown = await get(await sign(rotated));
  expect(unknown.statusCode).toBe(403);
  expect(unknown.json().detail).toMatch(/onbekende sleutel/);
  const reads = jwksReads;
  published = [rsa.jwk, ec.jwk, rotated.jwk];
  await new Promise((r) => setTimeout(r, 5_500)); // the refetch's cool-down
  expect((await get(await sign(rotated))).statusCode).toBe(200);
  expect(jwksReads).toBeGreaterThan(reads);
  // known keys are not fetched again for every token
  const after = jwksReads;
  for (let i = 0; i < 5; i++) expect((await get(await sign(rsa))).statusCode).toBe(200);
  expect(jwksReads).toBe(after);
}, 30_000);

it('refuses an issuer over plain HTTP elsewhere than on this machine, and an issuer without an audience', () => {
  expect(() => loadConfig({ OIDC_API_ISSUER: 'http://idp.gemeente.example', OIDC_API_AUDIENCE: AUDIENCE })).toThrow(/https/);
  expect(() => loadConfig({ OIDC_API_ISSUER: 'https://idp.gemeente.example' })).toThrow(/OIDC_API_AUDIENCE/);
  expect(loadConfig({ OIDC_API_ISSUER: 'https://idp.gemeente.example', OIDC_API_AUDIENCE: AUDIENCE }).OIDC_API_ISSUER).toBe(
    'https://idp.gemeente.example',
  );
});

it('with OIDC_API_TENANT_REQUIRED refuses a token without the tenant claim (403 tenant-unknown), never the default tenant administrator', async () => {
  // CLIENT has all rights in the default tenant: without the claim its token is that tenant's, a platform administrator
  const platformAdmin = (app: TestApp, tok: string) => app.call('GET', '/admin/api/v1/tenants', undefined, { token: tok });
  expect((await platformAdmin(t, await sign(rsa))).statusCode).toBe(200);
  const shared = await startApp({ OIDC_API_ISSUER: issuer, OIDC_API_AUDIENCE: AUDIENCE, OIDC_API_TENANT_REQUIRED: 'true' }, { shareWith: t });
  try {
    for (const res of [await get(await sign(rsa), shared), await platformAdmin(shared, await sign(ec, { azp: CLIENT }))]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({
        status: 403,
        code: 'tenant-unknown',
        title: expect.any(String),
        instance: expect.stringMatching(/^urn:uuid:/),
      });
      expect(res.json().detail).toMatch(/rsin/);
    }
    // naming its tenant it is served, as before
    expect((await get(await sign(rsa, { client_id: CLIENT, rsin: t.config.ZGW_DEFAULT_TENANT }), shared)).statusCode).toBe(200);
    // the ZGW tokens carry their tenant in their credential: unchanged
    expect((await shared.call('GET', LIST, undefined, { headers: CRS })).statusCode).toBe(200);
  } finally {
    await shared.close();
  }
  expect(() => loadConfig({ OIDC_API_TENANT_REQUIRED: 'ja' })).toThrow(/OIDC_API_TENANT_REQUIRED/);
});

it("never takes the platform's transfer worker from the identity provider", async () => {
  await ensureAllRights(t.deps.db, t.config.TRANSFER_CLIENT_ID, t.config.ZGW_DEFAULT_TENANT);
  const res = await t.call('GET', '/admin/api/v1/tenants', undefined, { token: await sign(rsa, { client_id: t.config.TRANSFER_CLIENT_ID }) });
  expect(res.statusCode).toBe(403);
  expect(res.json()).toMatchObject({ status: 403, code: 'missing-credentials' });
});
