import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { TENANT_FIELD, TENANT_HEADER, platformDb } from '@zgw/shared';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';

/**
 * A catalogus import (ZIP) keeps its UUIDs, and UUIDs are unique on the whole platform: one taken is refused. Tried as
 * an organisation's administrator would to learn what another organisation has: for every kind of object, a UUID
 * taken in another organisation is refused with the very answer one taken in its own organisation gets (never where),
 * in a dry run as in an import, and nothing is made.
 */
const OPEN_ZAAK_ZIP = join(__dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'openzaak-1.21.0-catalogus-export.zip');
const A = '123456782';
const B = '111222333';

let t: TestApp;
let sl: Referentielijsten;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  for (const rsin of [A, B]) expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam: `Gemeente ${rsin}` })).statusCode).toBe(201);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await sl?.close();
});

type Files = Record<string, Record<string, any>[]>;
const filesOf = (zip: Uint8Array): Files =>
  Object.fromEntries(Object.entries(unzipSync(zip)).map(([name, data]) => [name, JSON.parse(strFromU8(data)) as Record<string, any>[]]));
const zipOf = (files: Files) => zipSync(Object.fromEntries(Object.entries(files).map(([name, items]) => [name, strToU8(JSON.stringify(items))])));
const headers = (tenant: string) => ({ authorization: `Bearer ${token()}`, [TENANT_HEADER]: tenant });
const upload = (zip: Uint8Array, tenant: string, query = '') =>
  t.app.inject({
    method: 'POST',
    url: `/admin/api/v1/catalogussen/import${query}`,
    payload: Buffer.from(zip),
    headers: { 'content-type': 'application/zip', ...headers(tenant) },
  });
const exported = async (catalogus: string, tenant: string): Promise<Files> =>
  filesOf(
    new Uint8Array(
      (await t.app.inject({ method: 'GET', url: `/admin/api/v1/catalogussen/${catalogus.split('/').pop()}/export`, headers: headers(tenant) }))
        .rawPayload,
    ),
  );

/** The source ZIP with fresh UUIDs everywhere except the first object of `file`, which takes `uuid`. */
function withUuid(source: Files, file: string, uuid: string): Uint8Array {
  const urls = new Map<string, string>();
  for (const [name, items] of Object.entries(source))
    items.forEach((item, i) => urls.set(item.url, String(item.url).replace(/[0-9a-f-]{36}$/, name === file && i === 0 ? uuid : randomUUID())));
  const text = JSON.stringify(source).replace(/"(http[^"]+)"/g, (m, url: string) => (urls.has(url) ? JSON.stringify(urls.get(url)) : m));
  return zipOf(JSON.parse(text) as Files);
}

/** A refusal as the caller sees it, without what differs on every answer (`instance`). */
const answer = (res: { statusCode: number; json(): Record<string, unknown> }) => {
  const { instance: _instance, ...rest } = res.json();
  return { status: res.statusCode, ...rest };
};

test("a UUID taken in another organisation is refused exactly as one taken in the caller's own, for every kind of object", async () => {
  const source = filesOf(new Uint8Array(readFileSync(OPEN_ZAAK_ZIP)));
  // the same catalogus in both organisations, under UUIDs of their own
  const catalogi: Record<string, string> = {};
  for (const rsin of [A, B]) {
    const res = await upload(zipOf(source), rsin, '?nieuweUuids=true');
    expect(res.statusCode).toBe(201);
    catalogi[rsin] = res.json().catalogus;
  }
  const vanA = await exported(catalogi[A]!, A);
  const vanB = await exported(catalogi[B]!, B);
  const objectenVanA = async () => {
    let n = 0;
    for (const c of ['catalogussen', 'zaaktypen', 'statustypen', 'roltypen', 'informatieobjecttypen', 'besluittypen', 'eigenschappen'])
      n += await platformDb(t.mongo.db)
        .collection(c)
        .countDocuments({ [TENANT_FIELD]: A });
    return n;
  };
  const voor = await objectenVanA();
  expect(voor).toBeGreaterThan(10);
  let kinds = 0;
  for (const file of Object.keys(source)) {
    const eigen = vanA[file]?.[0]?.url as string | undefined;
    const elders = vanB[file]?.[0]?.url as string | undefined;
    if (!eigen || !elders) continue;
    kinds++;
    for (const query of ['', '?dryRun=true']) {
      const inEigen = await upload(withUuid(source, file, eigen.split('/').pop()!), A, query);
      const inAnder = await upload(withUuid(source, file, elders.split('/').pop()!), A, query);
      const name = `${file.replace(/\.json$/, '')}[0].url`;
      expect(inAnder.statusCode).toBe(400);
      expect(inAnder.json().invalidParams).toEqual([expect.objectContaining({ name, code: 'unique' })]);
      // the same answer but for the UUID the caller sent itself
      const zonderUuid = (res: typeof inAnder) => JSON.stringify(answer(res)).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'UUID');
      expect(zonderUuid(inAnder)).toBe(zonderUuid(inEigen));
      expect(inAnder.body).not.toMatch(new RegExp(`${B}|${A}|organisatie|tenant`, 'i'));
    }
  }
  expect(kinds).toBeGreaterThanOrEqual(6);
  // nothing was made by any of the refused imports
  expect(await objectenVanA()).toBe(voor);
}, 120_000);
