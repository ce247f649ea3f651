import { startApp, type TestApp } from './harness';
import { BRC } from './besluiten.fixtures';

/**
 * Every operation of Besluiten 1.0.2 with the scope of the standard's `security`. The two that rule brc-004 names
 * (`besluitinformatieobject_update` and `_partial_update`, which change nothing) are answered but not in the
 * document, as the standard's file does not declare them.
 */
const OPERATIONS: [string, string, string, string][] = [
  ['GET', '/besluiten', 'besluit_list', 'besluiten.lezen'],
  ['POST', '/besluiten', 'besluit_create', 'besluiten.aanmaken'],
  ['GET', '/besluiten/{besluit_uuid}/audittrail', 'audittrail_list', 'audittrails.lezen'],
  ['GET', '/besluiten/{besluit_uuid}/audittrail/{uuid}', 'audittrail_read', 'audittrails.lezen'],
  ['GET', '/besluiten/{uuid}', 'besluit_read', 'besluiten.lezen'],
  ['PUT', '/besluiten/{uuid}', 'besluit_update', 'besluiten.bijwerken'],
  ['PATCH', '/besluiten/{uuid}', 'besluit_partial_update', 'besluiten.bijwerken'],
  ['DELETE', '/besluiten/{uuid}', 'besluit_delete', 'besluiten.verwijderen'],
  ['GET', '/besluitinformatieobjecten', 'besluitinformatieobject_list', 'besluiten.lezen'],
  ['POST', '/besluitinformatieobjecten', 'besluitinformatieobject_create', 'besluiten.aanmaken'],
  ['GET', '/besluitinformatieobjecten/{uuid}', 'besluitinformatieobject_read', 'besluiten.lezen'],
  ['DELETE', '/besluitinformatieobjecten/{uuid}', 'besluitinformatieobject_delete', 'besluiten.verwijderen'],
];

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(async () => t.close());

type Op = { operationId: string; security?: Record<string, string[]>[]; parameters?: { name: string; in: string }[]; requestBody?: unknown };

it('serves an OpenAPI document with every operation, its scope and the list filters of the standard', async () => {
  const res = await t.call('GET', `${BRC}/schema/openapi.json`, undefined, { token: null });
  expect(res.statusCode).toBe(200);
  const doc = res.json() as { info: Record<string, string>; paths: Record<string, Record<string, Op>> };
  expect(doc.info).toMatchObject({ title: 'Besluiten API', version: '1.0.2' });
  const served = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(
      ([method, op]) => [method.toUpperCase(), path, op.operationId, op.security?.[0]?.['JWT-Claims']?.[0] ?? ''] as [string, string, string, string],
    ),
  );
  expect(served.sort()).toEqual([...OPERATIONS].sort());
  const query = (path: string, method = 'get') =>
    (doc.paths[path]![method]!.parameters ?? [])
      .filter((p) => p.in === 'query')
      .map((p) => p.name)
      .sort();
  // `expand` is Besluiten 1.1.0's: the 1.0.2 document does not declare it (the server takes it all the same).
  expect(query('/besluiten')).toEqual(['besluittype', 'identificatie', 'page', 'verantwoordelijkeOrganisatie', 'zaak']);
  expect(query('/besluitinformatieobjecten')).toEqual(['besluit', 'informatieobject']);
  expect(query('/besluiten/{uuid}')).toEqual([]);
  expect((await t.call('GET', `${BRC}/schema/openapi.yaml`, undefined, { token: null })).body).toContain('title: Besluiten API');
});
