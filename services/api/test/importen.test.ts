import { createHash, randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createSigner } from 'fast-jwt';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { BASE, startApp, type TestApp } from './harness';
import { typen, type Typen } from './overdrachten.fixtures';
import { EIO, eioBody, lock } from './documenten.fixtures';
import { CRS, ZRC, createZ, zaakBody } from './zaken.fixtures';

/**
 * The writes of the registration import: another registration's objects (here a second instance of this platform
 * under another host name) stored under their own UUIDs with the dates and derived fields their source gave them,
 * without notifications, with an audit entry each; a second run replaces, never copies; a UUID held otherwise is left
 * alone; an object that breaks a rule is reported and the rest stored.
 */
const BRON = 'http://bron.example';
const OBJECTEN = '/admin/api/v1/importen/objecten';

let sl: Referentielijsten;
let bron: TestApp;
let doel: TestApp;
let typenBron: Typen;

beforeAll(async () => {
  sl = await startReferentielijsten();
  bron = await startApp({ REFERENTIELIJSTEN_URL: sl.url, PUBLIC_BASE_URL: BRON });
  doel = await startApp({ REFERENTIELIJSTEN_URL: sl.url, IMPORT_MAX_INHOUD_BYTES: '5000' });
  typenBron = await typen(bron, sl, '000000000', 'ZT-IMPORT');
  // the catalogus first, as an operator does (docs/moving-in.md): same UUIDs, so the zaken's references resolve
  const zip = await bron.call('GET', `/admin/api/v1/catalogussen/${typenBron.catalogus.split('/').pop()}/export`);
  const imported = await doel.app.inject({
    method: 'POST',
    url: '/admin/api/v1/catalogussen/import',
    payload: zip.rawPayload,
    headers: { 'content-type': 'application/zip', authorization: `Bearer ${tokenOf()}` },
  });
  expect(imported.statusCode).toBe(201);
}, 120_000);
afterAll(async () => {
  await bron?.close();
  await doel?.close();
  await sl?.close();
});

function tokenOf(clientId = 'test-admin', secret = 'test-admin-secret'): string {
  return createSigner({ key: secret })({ client_id: clientId, user_id: 'importeur', user_representation: 'Importeur' });
}

const get = async (t: TestApp, url: string) => {
  const res = await t.call('GET', url, undefined, { headers: CRS });
  expect(res.statusCode).toBe(200);
  return res.json();
};
const list = async (t: TestApp, path: string) => {
  const body = await get(t, path);
  return (Array.isArray(body) ? body : body.results) as Record<string, any>[];
};
const ours = (v: unknown) => JSON.parse(JSON.stringify(v).replaceAll(BRON, BASE));
const batch = (objecten: unknown[], run = 'run-1') => doel.call('POST', OBJECTEN, { run, bron: BRON, apis: {}, objecten });

/** A closed zaak with every kind of part, a deelzaak and a besluit, made in the source as its users would. */
async function dossierInBron(): Promise<Record<string, any>[]> {
  const s = typenBron;
  const zaak = await createZ(bron, 'zaken', zaakBody(s.zaaktype, { startdatum: '2019-02-01', registratiedatum: '2019-02-02', omschrijving: 'oud' }));
  const deelzaak = await createZ(bron, 'zaken', zaakBody(s.zaaktype, { startdatum: '2019-03-01', hoofdzaak: zaak.url }));
  const rol = await createZ(bron, 'rollen', {
    zaak: zaak.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'aanvrager',
    betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsnaam: 'Jansen' },
  });
  await createZ(bron, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2019-02-02T10:00:00Z', gezetdoor: rol.url });
  await createZ(bron, `zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: s.eigenschap, waarde: 'rood' });
  await createZ(bron, 'zaakobjecten', { zaak: zaak.url, objectType: 'pand', objectIdentificatie: { identificatie: '0599100000000001' } });
  await createZ(bron, 'klantcontacten', { zaak: zaak.url, datumtijd: '2019-02-03T09:00:00Z', kanaal: 'telefoon', onderwerp: 'vraag' });
  const besluit = await bron.call('POST', '/besluiten/api/v1/besluiten', {
    verantwoordelijkeOrganisatie: '000000000',
    besluittype: s.besluittype,
    zaak: zaak.url,
    datum: '2019-04-01',
    ingangsdatum: '2019-04-01',
  });
  expect(besluit.statusCode).toBe(201);
  await createZ(bron, 'resultaten', { zaak: zaak.url, resultaattype: s.resultaattype, toelichting: 'klaar' });
  await createZ(bron, 'statussen', { zaak: zaak.url, statustype: s.statustypen.eind, datumStatusGezet: '2019-05-06T10:00:00Z' });
  // the deelzaak first: the import does not depend on the order of hoofdzaak and deelzaak
  return [
    await get(bron, deelzaak.url),
    await get(bron, zaak.url),
    ...(await list(bron, `${ZRC}/rollen?zaak=${zaak.url}`)),
    ...(await list(bron, `${ZRC}/statussen?zaak=${zaak.url}`)),
    ...(await list(bron, `${ZRC}/resultaten?zaak=${zaak.url}`)),
    ...(await list(bron, `${ZRC}/zaken/${zaak.uuid}/zaakeigenschappen`)),
    ...(await list(bron, `${ZRC}/zaakobjecten?zaak=${zaak.url}`)),
    ...(await list(bron, `${ZRC}/klantcontacten?zaak=${zaak.url}`)),
    ...(await list(bron, `/besluiten/api/v1/besluiten?zaak=${zaak.url}`)),
  ];
}

test('a closed zaak with all its parts lands as it was: UUIDs, dates, links; no notification; an audit entry each', async () => {
  const objecten = await dossierInBron();
  await doel.relay.stop(); // what the writes leave in the outbox stays there to be looked at
  try {
    const res = await batch(objecten);
    expect(res.statusCode).toBe(200);
    // (each with the URL it has here, for the run's register and its URL map)
    expect(res.json().resultaten).toEqual(objecten.map((o) => ({ url: o.url, uitkomst: 'nieuw', hier: ours(o.url) })));
    for (const o of objecten) expect(await get(doel, ours(o.url))).toEqual(ours(o));
    const zaak = await get(doel, ours(objecten[1]!.url));
    expect(zaak.einddatum).toBe('2019-05-06');
    expect(zaak.registratiedatum).toBe('2019-02-02');
    expect(zaak.archiefactiedatum).toBe(objecten[1]!.archiefactiedatum);
    expect(zaak.deelzaken).toEqual([ours(objecten[0]!.url)]);
    // the rol's BSN is sealed at rest as any other (searching by it finds the zaak)
    const gevonden = await doel.call(
      'POST',
      `${ZRC}/zaken/_zoek`,
      { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: '111222333' },
      { headers: CRS },
    );
    expect(gevonden.json().results.map((z: { url: string }) => z.url)).toEqual([zaak.url]);
    // nothing for the abonnementen, and the audit entries are in the trail already: the writes leave no outbox
    const uuids = objecten.map((o) => String(o.url).split('/').pop()!);
    expect(await doel.mongo.db.collection('outbox').countDocuments({ doc: { $in: uuids } })).toBe(0);
    for (const o of objecten) {
      const collection = String(o.url).split('/').slice(-2)[0]!;
      const stored = doel.mongo.db.collection<{ _id: string }>(collection);
      expect(await stored.countDocuments({ _id: String(o.url).split('/').pop()!, _outbox: { $exists: true } })).toBe(0);
    }
  } finally {
    doel.relay.start();
  }
  const trail = await list(doel, `${ours(objecten[1]!.url)}/audittrail`);
  const imported = trail.filter((e) => e.actieWeergave === 'Object geïmporteerd');
  // the zaak and each part of it (the deelzaak and the besluit have their own trails)
  expect(imported.length).toBe(objecten.length - 2);
  expect(imported[0]!.toelichting).toBe(`Geïmporteerd uit ${BRON} (import run-1)`);
  // the same page done again in the same run (a retry after a crash) adds no entry
  expect((await batch(objecten)).statusCode).toBe(200);
  const again = (await list(doel, `${ours(objecten[1]!.url)}/audittrail`)).filter((e) => e.actieWeergave === 'Object geïmporteerd');
  expect(again.length).toBe(imported.length);
}, 120_000);

/** One version of a source document as the import sends it: its content stored here first (`_bestand`). */
async function versie(url: string, n: number): Promise<Record<string, any>> {
  const rep = await get(bron, `${url}?versie=${n}`);
  const bytes = (await bron.call('GET', `${url}/download?versie=${n}`)).rawPayload;
  const stored = await doel.app.inject({
    method: 'PUT',
    url: '/admin/api/v1/importen/inhoud',
    payload: bytes,
    headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${tokenOf()}` },
  });
  expect(stored.statusCode).toBe(201);
  expect(stored.json().sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  return { ...rep, _bestand: stored.json() };
}

test('content over IMPORT_MAX_INHOUD_BYTES is a 413, also when the stream says no length, and nothing of it stays', async () => {
  const files = async () => [
    await doel.mongo.db.collection('inhoud.files').countDocuments(),
    await doel.mongo.db.collection('inhoud.chunks').countDocuments(),
  ];
  const before = await files();
  const put = (payload: Buffer | Readable) =>
    doel.app.inject({
      method: 'PUT',
      url: '/admin/api/v1/importen/inhoud',
      payload,
      headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${tokenOf()}` },
    });
  const whole = await put(Buffer.alloc(6000, 'x'));
  expect([whole.statusCode, whole.json().code]).toEqual([413, 'inhoud-te-groot']);
  // (a stream of unknown length: stopped once past the limit)
  const streamed = await put(
    Readable.from(
      (function* () {
        for (let i = 0; i < 6; i++) yield Buffer.alloc(1000, 'y');
      })(),
    ),
  );
  expect([streamed.statusCode, streamed.json().code]).toEqual([413, 'inhoud-te-groot']);
  expect(await files()).toEqual(before);
  const within = await put(Buffer.alloc(5000, 'z'));
  expect([within.statusCode, within.json().size]).toEqual([201, 5000]);
});

test('a document comes with every version, its content and its links to a zaak', async () => {
  const s = typenBron;
  const doc = (
    await bron.call('POST', EIO, eioBody(s.iot, { inhoud: Buffer.from('versie een').toString('base64'), creatiedatum: '2019-01-01' }))
  ).json();
  const l = await lock(bron, doc.url);
  expect((await bron.call('PATCH', doc.url, { inhoud: Buffer.from('versie twee, langer').toString('base64'), lock: l })).statusCode).toBe(200);
  expect((await bron.call('POST', `${doc.url}/unlock`, { lock: l })).statusCode).toBe(204);
  const zaak = await createZ(bron, 'zaken', zaakBody(s.zaaktype));
  const zio = await createZ(bron, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: doc.url });
  const objecten = [await versie(doc.url, 1), await versie(doc.url, 2), await get(bron, zaak.url), await get(bron, zio.url)];
  const res = (await batch(objecten)).json().resultaten;
  expect(res.map((r: { uitkomst: string; reden?: string }) => r.reden ?? r.uitkomst)).toEqual(['nieuw', 'bijgewerkt', 'nieuw', 'nieuw']);
  expect(await get(doel, ours(doc.url))).toEqual(ours(await get(bron, doc.url)));
  expect(await get(doel, `${ours(doc.url)}?versie=1`)).toEqual(ours(await get(bron, `${doc.url}?versie=1`)));
  for (const [n, text] of [
    [1, 'versie een'],
    [2, 'versie twee, langer'],
  ] as const)
    expect((await doel.call('GET', `${ours(doc.url)}/download?versie=${n}`)).rawPayload.toString()).toBe(text);
  expect(await get(doel, ours(zio.url))).toEqual(ours(await get(bron, zio.url)));
  const oios = await list(doel, `/documenten/api/v1/objectinformatieobjecten?informatieobject=${ours(doc.url)}`);
  expect(oios.map((o) => o.object)).toEqual([ours(zaak.url)]);
  // a second run of the same versions changes nothing
  const again = (await batch(objecten, 'run-2')).json().resultaten;
  expect(again.map((r: { uitkomst: string }) => r.uitkomst)).toEqual(['bijgewerkt', 'bijgewerkt', 'bijgewerkt', 'bijgewerkt']);
  expect((await get(doel, ours(doc.url))).versie).toBe(2);
});

test("the content check is told each version's size and SHA-256: the hash kept at import, else taken from the stored bytes", async () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const doc = (await bron.call('POST', EIO, eioBody(typenBron.iot, { inhoud: Buffer.from('een').toString('base64') }))).json();
  const zonder = (await bron.call('POST', EIO, eioBody(typenBron.iot, {}))).json();
  const [een, leeg] = [await versie(doc.url, 1), await get(bron, zonder.url)];
  expect((await batch([een, leeg])).json().resultaten.map((r: { uitkomst: string }) => r.uitkomst)).toEqual(['nieuw', 'nieuw']);
  // a size that is not the stored file's is refused
  const verkeerd = await batch([{ ...een, _bestand: { ...een._bestand, size: 99 } }], 'run-3');
  expect(verkeerd.json().resultaten[0]).toMatchObject({ uitkomst: 'mislukt', reden: expect.stringContaining('99') });
  const controle = (documenten: string[]) => doel.call('POST', '/admin/api/v1/importen/inhoud-controle', { documenten });
  const vraag = [ours(doc.url), ours(zonder.url), `${BASE}/documenten/api/v1/enkelvoudiginformatieobjecten/${randomUUID()}`];
  const res = await controle(vraag);
  expect(res.statusCode).toBe(200);
  expect(res.json().documenten).toEqual([
    { url: ours(doc.url), versies: [{ versie: 1, omvang: 3, sha256: sha('een') }] },
    { url: ours(zonder.url), versies: [{ versie: 1, omvang: null, sha256: null }] },
  ]);
  // without the kept hash (content not brought by the import): taken from the bytes stored, which are read for it
  const versies = doel.mongo.db.collection('enkelvoudiginformatieobject_versies');
  const id = `${doc.url.split('/').pop()}:1`;
  expect((await versies.findOne({ _id: id } as never))?._sha256).toBe(sha('een'));
  const ander = (
    await doel.app.inject({
      method: 'PUT',
      url: '/admin/api/v1/importen/inhoud',
      payload: Buffer.from('twee'),
      headers: { 'content-type': 'application/octet-stream', authorization: `Bearer ${tokenOf()}` },
    })
  ).json();
  await versies.updateOne({ _id: id } as never, { $set: { _inhoud: ander.id }, $unset: { _sha256: '' } });
  expect((await controle([ours(doc.url)])).json().documenten).toEqual([
    { url: ours(doc.url), versies: [{ versie: 1, omvang: 4, sha256: sha('twee') }] },
  ]);
  // more than a page of documents at once, or no list: a 400
  expect((await controle(Array.from({ length: 501 }, () => ours(doc.url)))).statusCode).toBe(400);
  expect((await doel.call('POST', '/admin/api/v1/importen/inhoud-controle', { documenten: 'x' })).statusCode).toBe(400);
});

test('a second run brings the changes and never a copy', async () => {
  const zaak = await createZ(bron, 'zaken', zaakBody(typenBron.zaaktype, { omschrijving: 'eerste' }));
  expect((await batch([await get(bron, zaak.url)])).json().resultaten[0].uitkomst).toBe('nieuw');
  const zaken = (await get(doel, `${ZRC}/zaken`)).count;
  const changed = await bron.call('PATCH', zaak.url, { omschrijving: 'tweede' }, { headers: CRS });
  expect(changed.statusCode).toBe(200);
  expect((await batch([changed.json()], 'run-2')).json().resultaten[0].uitkomst).toBe('bijgewerkt');
  expect((await get(doel, ours(zaak.url))).omschrijving).toBe('tweede');
  expect((await get(doel, `${ZRC}/zaken`)).count).toBe(zaken);
});

test('a UUID this platform holds otherwise is left alone; a broken object is reported and the rest stored', async () => {
  const hier = await createZ(doel, 'zaken', zaakBody(typenBron.zaaktype.replace(BRON, BASE), { identificatie: 'HIER-1', omschrijving: 'van hier' }));
  const zaak = await get(bron, (await createZ(bron, 'zaken', zaakBody(typenBron.zaaktype))).url);
  const bezet = { ...zaak, url: `${BRON}${ZRC}/zaken/${hier.uuid}`, omschrijving: 'van elders' };
  const kapot = {
    url: `${BRON}${ZRC}/statussen/${randomUUID()}`,
    zaak: zaak.url,
    datumStatusGezet: '2020-01-01T00:00:00Z',
    statustype: `${BRON}/catalogi/api/v1/statustypen/${randomUUID()}`,
  };
  const res = (await batch([bezet, zaak, kapot])).json().resultaten;
  expect(res.map((r: { uitkomst: string }) => r.uitkomst)).toEqual(['bezet', 'nieuw', 'mislukt']);
  expect(res[2].reden).toMatch(/^invalid: statustype: /);
  expect(res[1].reden).toBeUndefined();
  expect((await get(doel, hier.url)).omschrijving).toBe('van hier');
  expect((await get(doel, ours(zaak.url))).uuid).toBe(zaak.uuid);
});

test('only platform administrators import; a batch that is no batch is a 400', async () => {
  const rsin = '123456782';
  expect((await doel.call('POST', '/admin/api/v1/tenants', { rsin, naam: 'Andere gemeente' })).statusCode).toBe(201);
  expect(
    (await doel.call('POST', '/admin/api/v1/credentials', { identifier: 'beheer-org', secret: 'beheer-org-secret', tenant: rsin })).statusCode,
  ).toBe(201);
  await ensureAllRights(doel.deps.db, 'beheer-org', rsin);
  const refused = await doel.call(
    'POST',
    OBJECTEN,
    { run: 'r', bron: BRON, apis: {}, objecten: [] },
    { token: tokenOf('beheer-org', 'beheer-org-secret') },
  );
  expect(refused.statusCode).toBe(403);
  const controle = await doel.call(
    'POST',
    '/admin/api/v1/importen/inhoud-controle',
    { documenten: [] },
    { token: tokenOf('beheer-org', 'beheer-org-secret') },
  );
  expect(controle.statusCode).toBe(403);
  const bad = await doel.call('POST', OBJECTEN, { run: 'r', bron: 'geen url', objecten: 'nee' });
  expect(bad.statusCode).toBe(400);
  expect(
    bad
      .json()
      .invalidParams.map((p: { name: string }) => p.name)
      .sort(),
  ).toEqual(['apis', 'bron', 'objecten']);
});
