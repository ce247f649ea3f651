import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

/**
 * A list never widens because a filter was not understood: the standard's filter names are recognised whatever
 * their case (`ClientIds`), an unknown query parameter of a list, or an unknown key of a `_zoek` body, is a 400 in
 * the ZGW problem format naming it; the parameters that are not filters (page, expand, ordering) stay accepted.
 */
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
  for (const id of ['eerste-client', 'tweede-client']) {
    expect((await t.call('POST', '/autorisaties/api/v1/applicaties', { clientIds: [id], label: id, heeftAlleAutorisaties: true })).statusCode).toBe(
      201,
    );
  }
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

test('a filter name in another case is the filter: ?ClientIds=x finds that applicatie only', async () => {
  const res = await t.call('GET', '/autorisaties/api/v1/applicaties?ClientIds=eerste-client');
  expect(res.statusCode).toBe(200);
  expect(res.json().results.map((a: { clientIds: string[] }) => a.clientIds)).toEqual([['eerste-client']]);
});

test('an unknown query parameter of a list is a 400 naming it, in the ZGW problem format', async () => {
  const res = await t.call('GET', '/autorisaties/api/v1/applicaties?clientId=eerste-client&page=1');
  expect(res.statusCode).toBe(400);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.json()).toMatchObject({ code: 'invalid', status: 400, invalidParams: [{ name: 'clientId', code: 'unknown-parameters' }] });
  const zaken = await t.call('GET', `${ZRC}/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBSN_typo=111222333`, undefined, {
    headers: CRS,
  });
  expect(zaken.statusCode).toBe(400);
  expect(zaken.json().invalidParams[0].code).toBe('unknown-parameters');
  // Parameters that are not filters stay accepted where the list has them.
  expect((await t.call('GET', `${ZRC}/zaken?page=1&ordering=startdatum&expand=rollen`, undefined, { headers: CRS })).statusCode).toBe(200);
});

test('a _zoek body with an unknown key is a 400, never a search for everything', async () => {
  await createZ(t, 'zaken', zaakBody(s.zaaktype));
  const typo = await t.call(
    'POST',
    `${ZRC}/zaken/_zoek`,
    { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsnn: '111222333' },
    { headers: CRS },
  );
  expect(typo.statusCode).toBe(400);
  expect(typo.json().invalidParams).toEqual([
    expect.objectContaining({ name: 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsnn', code: 'unknown-parameters' }),
  ]);
  const good = await t.call(
    'POST',
    `${ZRC}/zaken/_zoek`,
    { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: '111222333', expand: 'rollen' },
    { headers: CRS },
  );
  expect(good.statusCode).toBe(200);
  expect(good.json().count).toBe(0);
});

test('an unknown admin API path is a 404 in the ZGW problem format, with a token or without one', async () => {
  for (const token of [undefined, null] as const) {
    const res = await t.call('POST', '/admin/api/v1/bestaat-niet', { a: 1 }, token === null ? { token: null } : {});
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 404, code: 'not_found' });
  }
});

test("an over-long path parameter is a 404 in the ZGW problem format, not the router's own answer", async () => {
  for (const url of [`${ZRC}/zaken/${'x'.repeat(300)}`, `/catalogi/api/v1/zaaktypen/${'9'.repeat(2000)}`]) {
    const res = await t.call('GET', url, undefined, { headers: CRS });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 404, code: 'not_found' });
  }
});
