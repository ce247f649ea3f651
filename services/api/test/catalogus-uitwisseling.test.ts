import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { platformDb, TENANT_HEADER } from '@zgw/shared';
import { create, iotBody, publish, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { AdminUsers } from '../src/admin/ui/users';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import { startApp, token, type TestApp } from './harness';
import { zaaktypeMetOnderdelen } from './zaken.fixtures';

/**
 * A catalogus out and in as one ZIP: Open Zaak 1.21.0's own export imported (every field its format carries, concept
 * states, UUIDs), our own export round-tripped into another installation (equal field by field), and bad ZIPs refused
 * with nothing written.
 */
const OPEN_ZAAK_ZIP = join(__dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'openzaak-1.21.0-catalogus-export.zip');
const OPEN_ZAAK_HOST = 'http://127.0.0.1:8300';
const IMPORT = '/admin/api/v1/catalogussen/import';

let t: TestApp;
let other: TestApp;
let sl: Referentielijsten;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  other = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await other?.close();
  await sl?.close();
});

const upload = (app: TestApp, zip: Uint8Array, query = '', headers: Record<string, string> = {}) =>
  app.app.inject({
    method: 'POST',
    url: `${IMPORT}${query}`,
    payload: Buffer.from(zip),
    headers: { 'content-type': 'application/zip', authorization: `Bearer ${token()}`, ...headers },
  });

const camel = (k: string) => k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
function camelKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(camelKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), camelKeys(x)]));
  return v;
}
const filesOf = (zip: Uint8Array) =>
  Object.fromEntries(Object.entries(unzipSync(zip)).map(([name, data]) => [name, JSON.parse(strFromU8(data)) as Record<string, unknown>[]]));
const exportOf = async (app: TestApp, catalogus: string) => {
  const res = await app.call('GET', `/admin/api/v1/catalogussen/${catalogus.split('/').pop()}/export`);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/zip');
  return new Uint8Array(res.rawPayload);
};
const catalogusCount = async (app: TestApp) => (await app.call('GET', '/catalogi/api/v1/catalogussen')).json().count as number;

describe('catalogus import and export', () => {
  it("imports Open Zaak's own catalogus export: every object with its UUID, every field that format carries, concept as it was", async () => {
    const zip = new Uint8Array(readFileSync(OPEN_ZAAK_ZIP));
    const dry = await upload(t, zip, '?dryRun=true');
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ geimporteerd: false, aantallen: { ZaakType: 2, StatusType: 6, RolType: 4, Eigenschap: 2 } });
    expect(await catalogusCount(t)).toBe(0); // a dry run writes nothing
    const res = await upload(t, zip);
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      geimporteerd: true,
      nieuweUuids: false,
      aantallen: {
        Catalogus: 1,
        InformatieObjectType: 2,
        BesluitType: 1,
        ZaakType: 2,
        StatusType: 6,
        RolType: 4,
        Eigenschap: 2,
        ZaakTypeInformatieObjectType: 2,
      },
    });
    const ours = (url: string) => url.replace(OPEN_ZAAK_HOST, t.config.PUBLIC_BASE_URL);
    const source = filesOf(zip);
    let compared = 0;
    const notServed = new Set<string>();
    for (const [file, items] of Object.entries(source)) {
      for (const item of items) {
        const expected = camelKeys(JSON.parse(JSON.stringify(item).replaceAll(OPEN_ZAAK_HOST, t.config.PUBLIC_BASE_URL))) as Record<string, unknown>;
        const got = await t.call('GET', ours(String(item.url)));
        expect([file, got.statusCode]).toEqual([file, 200]);
        const body = got.json();
        for (const [key, value] of Object.entries(expected)) {
          // what Open Zaak exports empty and the zaaktypen say (BesluitType.zaaktypen), and lists kept in another order
          if (file === 'BesluitType.json' && key === 'zaaktypen') continue;
          // a field of Open Zaak's own that the standard's representation has not
          if (!(key in body)) {
            notServed.add(`${file} ${key}`);
            continue;
          }
          const norm = (v: unknown) => (Array.isArray(v) ? [...v].map(String).sort() : v);
          expect([file, key, norm(body[key])]).toEqual([file, key, norm(value)]);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
    expect([...notServed]).toEqual(['StatusType.json zaakobjecttypen']);
  });

  it('refuses the same ZIP again (its UUIDs are taken), and imports it with new UUIDs into another tenant', async () => {
    const zip = new Uint8Array(readFileSync(OPEN_ZAAK_ZIP));
    const again = await upload(t, zip);
    expect(again.statusCode).toBe(400);
    expect(again.json().invalidParams[0]).toMatchObject({ name: 'Catalogus[0].url', code: 'unique' });
    expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: '123456782', naam: 'Gemeente A' })).statusCode).toBe(201);
    // keeping the UUIDs is refused in another tenant too: UUIDs are global on an installation
    expect((await upload(t, zip, '', { [TENANT_HEADER]: '123456782' })).statusCode).toBe(400);
    const fresh = await upload(t, zip, '?nieuweUuids=true', { [TENANT_HEADER]: '123456782' });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.json().catalogus).not.toContain('8e743c3a-bdc2-479b-80c0-79f7bf5f078d');
  });

  it('round-trips our own export into another installation: equal field by field, UUIDs kept, published as it was', async () => {
    const s = await zaaktypeMetOnderdelen(t, sl);
    const catalogus = (await t.call('GET', s.zaaktype)).json().catalogus as string;
    const iot = await create(t, 'informatieobjecttypen', iotBody(catalogus, { omschrijving: 'bijlage' }));
    await publish(t, iot.url);
    await create(t, 'zaakobjecttypen', {
      zaaktype: s.zaaktype,
      anderObjecttype: false,
      objecttype: 'https://example.com/objecttypen/1',
      relatieOmschrijving: 'betreft',
    }).catch(() => undefined); // a published zaaktype takes no new parts: the export holds what is there
    const first = await exportOf(t, catalogus);
    const res = await upload(other, first);
    expect(res.statusCode).toBe(201);
    const second = await exportOf(other, catalogus);
    expect(filesOf(second)).toEqual(filesOf(first));
    expect(Object.keys(filesOf(first)).sort()).toEqual(
      expect.arrayContaining([
        'Catalogus.json',
        'Eigenschap.json',
        'InformatieObjectType.json',
        'ResultaatType.json',
        'RolType.json',
        'StatusType.json',
        'ZaakType.json',
      ]),
    );
    expect((await other.call('GET', s.zaaktype)).json().concept).toBe(false);
  });

  it('refuses what is no catalogus ZIP, with nothing written', async () => {
    const before = await catalogusCount(other);
    const refused = async (zip: Uint8Array, code: string) => {
      const res = await upload(other, zip);
      expect(res.statusCode).toBe(400);
      expect(res.json().invalidParams[0]).toMatchObject({ name: 'bestand', code });
    };
    await refused(strToU8('this is not a zip'), 'invalid');
    await refused(zipSync({ '../Catalogus.json': strToU8('[]') }), 'invalid');
    await refused(zipSync({ 'Catalogus.json': strToU8('{"not": "a list"}') }), 'invalid');
    await refused(zipSync({ 'Catalogus.json': new Uint8Array(51 * 1024 * 1024) }, { level: 1 }), 'max_size');
    await refused(zipSync({ 'ZaakType.json': strToU8('[]') }), 'invalid'); // no catalogus
    expect(await catalogusCount(other)).toBe(before);
  });

  it('takes back what it made when an object is refused halfway, naming the object', async () => {
    const source = filesOf(new Uint8Array(readFileSync(OPEN_ZAAK_ZIP)));
    source['StatusType.json']![2] = { ...source['StatusType.json']![2], volgnummer: 'drie' };
    const zip = zipSync(Object.fromEntries(Object.entries(source).map(([name, items]) => [name, strToU8(JSON.stringify(items))])));
    const before = await catalogusCount(other);
    const res = await upload(other, zip);
    expect(res.statusCode).toBe(400);
    expect(res.json().invalidParams[0].name).toBe('StatusType[2].volgnummer');
    expect(await catalogusCount(other)).toBe(before);
    // nothing left behind that keeps the UUIDs taken: the types without a kanaal leave no tombstone either
    expect(
      await platformDb(other.mongo.db)
        .collection('statustypen')
        .countDocuments({ _id: '9a87cb57-7403-4d70-8d15-8d4724199852' as never }),
    ).toBe(0);
    const zaaktypen = await other.call('GET', '/catalogi/api/v1/zaaktypen?status=alles');
    expect(zaaktypen.json().results.some((z: { identificatie: string }) => z.identificatie === 'FIX-001')).toBe(false);
  });

  it('imports zaaktypen that name each other as deelzaaktype or gerelateerd zaaktype, the one named later in the file, and both ways', async () => {
    const source = filesOf(new Uint8Array(readFileSync(OPEN_ZAAK_ZIP)));
    const [a, b] = source['ZaakType.json']!;
    // (A, first in the file, names B; and B names A: a cycle)
    source['ZaakType.json'] = [
      { ...a, deelzaaktypen: [b!.url], gerelateerde_zaaktypen: [{ zaaktype: b!.url, aard_relatie: 'vervolg', toelichting: 'daarna' }] },
      { ...b, deelzaaktypen: [a!.url] },
    ];
    // (with new UUIDs and a domein of its own beside the one the first test brought)
    source['Catalogus.json'] = [{ ...source['Catalogus.json']![0], domein: 'DEELZ' }];
    const zip = zipSync(Object.fromEntries(Object.entries(source).map(([name, items]) => [name, strToU8(JSON.stringify(items))])));
    const res = await upload(t, zip, '?nieuweUuids=true');
    expect([res.statusCode, res.json().invalidParams]).toEqual([201, undefined]);
    const zaaktypen = await t.call('GET', `/catalogi/api/v1/zaaktypen?status=alles&catalogus=${encodeURIComponent(res.json().catalogus)}`);
    const byId = new Map<string, Record<string, any>>(zaaktypen.json().results.map((z: Record<string, any>) => [z.identificatie, z]));
    const [za, zb] = [byId.get(String(a!.identificatie))!, byId.get(String(b!.identificatie))!];
    expect([za.deelzaaktypen, zb.deelzaaktypen]).toEqual([[zb.url], [za.url]]);
    expect(za.gerelateerdeZaaktypen).toEqual([{ zaaktype: zb.url, aardRelatie: 'vervolg', toelichting: 'daarna' }]);
  });

  it('npm run admin -- catalogus-export and catalogus-import move a catalogus between installations', async () => {
    const admin = join(__dirname, '../dist/cli/admin.js');
    const run = (app: TestApp, args: string[]) =>
      promisify(execFile)(process.execPath, [admin, ...args], {
        env: {
          ...process.env,
          MONGODB_DB: app.config.MONGODB_DB,
          PUBLIC_BASE_URL: app.config.PUBLIC_BASE_URL,
          KAFKA_TOPIC_PREFIX: app.topicPrefix,
          LOG_LEVEL: 'silent',
        },
      });
    const file = join(mkdtempSync(join(tmpdir(), 'zgw-catalogus-')), 'fixture.zip');
    const exported = JSON.parse((await run(t, ['catalogus-export', '8e743c3a-bdc2-479b-80c0-79f7bf5f078d', file])).stdout);
    expect(exported.bytes).toBeGreaterThan(1000);
    expect(Object.keys(filesOf(new Uint8Array(readFileSync(file)))).sort()).toEqual(
      Object.keys(filesOf(new Uint8Array(readFileSync(OPEN_ZAAK_ZIP)))).sort(),
    );
    const dry = JSON.parse((await run(other, ['catalogus-import', file, '--dry-run'])).stdout);
    expect(dry).toMatchObject({ geimporteerd: false, tenant: other.deps.tenants.defaultTenant });
    const imported = JSON.parse((await run(other, ['catalogus-import', file])).stdout);
    expect(imported).toMatchObject({ geimporteerd: true, aantallen: { ZaakType: 2, StatusType: 6 } });
    const zaaktype = await other.call('GET', `${other.config.PUBLIC_BASE_URL}/catalogi/api/v1/zaaktypen/e373ed14-a677-481f-96e1-836e4a084a86`);
    expect(zaaktype.json()).toMatchObject({ identificatie: 'FIX-001', concept: true });
    // again: the UUIDs are taken now, and it says which
    await expect(run(other, ['catalogus-import', file])).rejects.toMatchObject({
      stderr: expect.stringContaining('Catalogus[0].url: UUID 8e743c3a'),
    });
  });

  it('on the admin screen: a ZIP uploaded, its preview, then the import; and the export as a download', async () => {
    const app = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
    try {
      await new AdminUsers(app.mongo.db).create('beheer', PASSWORD);
      const b = new AdminBrowser(app);
      expect((await b.login('beheer', PASSWORD)).statusCode).toBe(303);
      const page = await b.get('/admin/catalogi');
      expect(page.body).toContain('enctype="multipart/form-data"');
      const boundary = 'zgwgrens';
      const multipart = (fields: Record<string, string>, zip: Uint8Array) =>
        Buffer.concat([
          ...Object.entries(fields).map(([k, v]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)),
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="bestand"; filename="oz.zip"\r\nContent-Type: application/zip\r\n\r\n`),
          Buffer.from(zip),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
      const send = (url: string, body: Buffer) =>
        app.app.inject({
          method: 'POST',
          url,
          payload: body,
          headers: { cookie: b.cookieHeader, 'content-type': `multipart/form-data; boundary=${boundary}` },
        });
      // without the session's CSRF token nothing happens
      expect((await send('/admin/catalogi/voorbeeld', multipart({}, new Uint8Array(readFileSync(OPEN_ZAAK_ZIP))))).statusCode).toBe(403);
      const preview = await send('/admin/catalogi/voorbeeld', multipart({ _csrf: b.csrf }, new Uint8Array(readFileSync(OPEN_ZAAK_ZIP))));
      expect(preview.statusCode).toBe(200);
      expect(preview.body).toContain('<td>ZaakType</td><td class="num">2</td>');
      expect(await catalogusCount(app)).toBe(0);
      const upload = /name="upload" value="([^"]+)"/.exec(preview.body)![1]!;
      const done = await b.post('/admin/catalogi/importeren', { upload });
      expect(done.statusCode).toBe(303);
      expect(await catalogusCount(app)).toBe(1);
      expect((await b.post('/admin/catalogi/importeren', { upload })).statusCode).toBe(400); // once
      const refused = await send('/admin/catalogi/voorbeeld', multipart({ _csrf: b.csrf }, strToU8('geen zip')));
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('Dit is geen ZIP-bestand');
      // the screen links each catalogus's ZIP: the admin endpoint, which takes the session
      const link = /href="([^"]+\/export)" download/.exec((await b.get('/admin/catalogi')).body)![1]!;
      expect(link).toBe('/admin/api/v1/catalogussen/8e743c3a-bdc2-479b-80c0-79f7bf5f078d/export');
      const download = await b.get(link);
      expect(download.headers['content-type']).toBe('application/zip');
      expect(Object.keys(filesOf(new Uint8Array(download.rawPayload)))).toContain('ZaakType.json');
    } finally {
      await app.close();
    }
  });
});
