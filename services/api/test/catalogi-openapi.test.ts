import { startApp, type TestApp } from './harness';
import { ZTC, catalogus, create, zaaktypeBody } from './catalogi.fixtures';

/** Every operation of Catalogi 1.3.1 with the scope expression of the standard's `security` (none on HEAD). */
const OPERATIONS: [string, string, string][] = [
  ['GET', '/besluittypen', 'catalogi.lezen'],
  ['POST', '/besluittypen', 'catalogi.schrijven'],
  ['GET', '/besluittypen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/besluittypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/besluittypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/besluittypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['POST', '/besluittypen/{uuid}/publish', 'catalogi.schrijven'],
  ['GET', '/catalogussen', 'catalogi.lezen'],
  ['POST', '/catalogussen', 'catalogi.schrijven'],
  ['GET', '/catalogussen/{uuid}', 'catalogi.lezen'],
  ['GET', '/eigenschappen', 'catalogi.lezen'],
  ['POST', '/eigenschappen', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['GET', '/eigenschappen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/eigenschappen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/eigenschappen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/eigenschappen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['GET', '/informatieobjecttypen', 'catalogi.lezen'],
  ['POST', '/informatieobjecttypen', 'catalogi.schrijven'],
  ['GET', '/informatieobjecttypen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/informatieobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/informatieobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/informatieobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['POST', '/informatieobjecttypen/{uuid}/publish', 'catalogi.schrijven'],
  ['GET', '/resultaattypen', 'catalogi.lezen'],
  ['POST', '/resultaattypen', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['GET', '/resultaattypen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/resultaattypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/resultaattypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/resultaattypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['GET', '/roltypen', 'catalogi.lezen'],
  ['POST', '/roltypen', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['GET', '/roltypen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/roltypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/roltypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/roltypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['GET', '/statustypen', 'catalogi.lezen'],
  ['POST', '/statustypen', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['GET', '/statustypen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/statustypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/statustypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/statustypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['GET', '/zaakobjecttypen', 'catalogi.lezen'],
  ['POST', '/zaakobjecttypen', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['GET', '/zaakobjecttypen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/zaakobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/zaakobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/zaakobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['GET', '/zaaktype-informatieobjecttypen', 'catalogi.lezen'],
  ['POST', '/zaaktype-informatieobjecttypen', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['GET', '/zaaktype-informatieobjecttypen/{uuid}', 'catalogi.lezen'],
  ['PUT', '/zaaktype-informatieobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/zaaktype-informatieobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/zaaktype-informatieobjecttypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['GET', '/zaaktypen', '(catalogi.lezen | documenten.lezen | zaken.lezen)'],
  ['POST', '/zaaktypen', 'catalogi.schrijven'],
  ['GET', '/zaaktypen/{uuid}', '(catalogi.lezen | documenten.lezen | zaken.lezen)'],
  ['PUT', '/zaaktypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['PATCH', '/zaaktypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-schrijven)'],
  ['DELETE', '/zaaktypen/{uuid}', '(catalogi.schrijven | catalogi.geforceerd-verwijderen)'],
  ['POST', '/zaaktypen/{uuid}/publish', 'catalogi.schrijven'],
  ['HEAD', '/besluittypen/{uuid}', ''],
  ['HEAD', '/catalogussen/{uuid}', ''],
  ['HEAD', '/eigenschappen/{uuid}', ''],
  ['HEAD', '/informatieobjecttypen/{uuid}', ''],
  ['HEAD', '/resultaattypen/{uuid}', ''],
  ['HEAD', '/roltypen/{uuid}', ''],
  ['HEAD', '/statustypen/{uuid}', ''],
  ['HEAD', '/zaakobjecttypen/{uuid}', ''],
  ['HEAD', '/zaaktype-informatieobjecttypen/{uuid}', ''],
  ['HEAD', '/zaaktypen/{uuid}', ''],
];

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t.close());

it('serves an OpenAPI document with every operation and the scopes of the standard', async () => {
  const res = await t.call('GET', `${ZTC}/schema/openapi.json`, undefined, { token: null });
  expect(res.statusCode).toBe(200);
  const doc = res.json();
  expect(doc.info).toMatchObject({ title: 'Catalogi API', version: '1.3.1' });
  const served = Object.entries(doc.paths as Record<string, Record<string, { security?: Record<string, string[]>[] }>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [method.toUpperCase(), path, op.security?.[0]?.['JWT-Claims']?.[0] ?? ''] as [string, string, string]),
  );
  expect(served.sort()).toEqual([...OPERATIONS].sort());
});

it('answers HEAD on every detail path (the ten HEAD operations)', async () => {
  const cat = await catalogus(t, 'HEAD');
  const zt = await create(t, 'zaaktypen', zaaktypeBody(cat));
  for (const url of [cat, zt.url]) {
    const head = await t.call('HEAD', url);
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.etag).toBe((await t.call('GET', url)).headers.etag);
  }
  const details = OPERATIONS.filter(([m, p]) => m === 'GET' && p.endsWith('{uuid}')).map(([, p]) => p);
  expect(details).toHaveLength(10);
  for (const path of details) {
    expect((await t.call('HEAD', `${ZTC}${path.replace('{uuid}', '00000000-0000-4000-8000-000000000000')}`)).statusCode).toBe(404);
  }
});
