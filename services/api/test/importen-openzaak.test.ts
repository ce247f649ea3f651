import type { ChildProcess } from 'node:child_process';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { createEio, eioBody } from './documenten.fixtures';
import { eventually, token, type TestApp } from './harness';
import { OpenZaakBron } from './openzaak-bron.helpers';
import { LogLines, startListeningApp, startWorker, stopWorker, typen, type Typen } from './overdrachten.fixtures';
import { CRS, ZRC, createZ, zaakBody } from './zaken.fixtures';

/**
 * The registration import from a source that behaves as Open Zaak 1.21.0 does (issue 63; OpenZaakBron: null for
 * empty fields, a 404 for an empty audit trail, lists without `count`, fields the standard does not list, the other
 * URL form, slow answers), each finding of the issue a test that failed before: the source read liberally, each
 * object's failure its own, the source's pace kept, and a limited run reading only what it brings.
 */
const logs = new LogLines();
/** The retry window of a request to the source (IMPORT_BRON_RETRY_SECONDS): short, so a failure is quickly final. */
const WORKER = { IMPORT_BRON_RETRY_SECONDS: '3' };
let sl: Referentielijsten;
let bron: TestApp;
let doel: TestApp;
let oz: OpenZaakBron;
let ander: Typen;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  bron = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, new LogLines());
  doel = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, logs);
  await bron.client('verhuizer', 'verhuizer-secret');
  await ensureAllRights(bron.mongo.db, 'verhuizer', bron.config.ZGW_DEFAULT_TENANT);
  oz = await new OpenZaakBron(bron.config.PUBLIC_BASE_URL).start();
  // zaken of another zaaktype, each with a rol and a document: a limited run has no business with them
  ander = await typen(bron, sl, '000000000', 'ZT-ANDER');
  for (let i = 0; i < 3; i++) await zaakMetDelen(ander, i);
  worker = startWorker(doel, logs, WORKER);
}, 120_000);
afterAll(async () => {
  await stopWorker(worker);
  await oz?.close();
  await bron?.close();
  await doel?.close();
  await sl?.close();
});

interface Gemaakt {
  zaak: Record<string, any>;
  rol: Record<string, any>;
  statussen: Record<string, any>[];
  doc: Record<string, any>;
  zio: Record<string, any>;
  besluit?: Record<string, any>;
  besluitDoc?: Record<string, any>;
}

/**
 * A zaak of zaaktype `t` as a municipality has one: a rol, a status set by it and one set by nobody, a zaakeigenschap,
 * a document with content (linked); the first (i = 0) a besluit with a document of its own.
 */
async function zaakMetDelen(t: Typen, i: number): Promise<Gemaakt> {
  const zaak = await createZ(bron, 'zaken', zaakBody(t.zaaktype, { omschrijving: `zaak ${i}`, startdatum: '2021-03-01' }));
  const rol = await createZ(bron, 'rollen', {
    zaak: zaak.url,
    roltype: t.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'aanvrager',
    betrokkeneIdentificatie: { geslachtsnaam: `Persoon ${i}` },
  });
  const statussen = [
    await createZ(bron, 'statussen', {
      zaak: zaak.url,
      statustype: t.statustypen.begin,
      datumStatusGezet: '2021-03-01T10:00:00Z',
      gezetdoor: rol.url,
    }),
    await createZ(bron, 'statussen', { zaak: zaak.url, statustype: t.statustypen.begin, datumStatusGezet: '2021-03-02T10:00:00Z' }),
  ];
  await createZ(bron, `zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: t.eigenschap, waarde: 'blauw' });
  const doc = await createEio(bron, eioBody(t.iot, { inhoud: Buffer.from(`inhoud ${i}`).toString('base64') }));
  const zio = await createZ(bron, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: doc.url });
  if (i) return { zaak, rol, statussen, doc, zio };
  const besluit = await post('/besluiten/api/v1/besluiten', {
    verantwoordelijkeOrganisatie: '000000000',
    besluittype: t.besluittype,
    zaak: zaak.url,
    datum: '2021-04-01',
    ingangsdatum: '2021-04-01',
  });
  const besluitDoc = await createEio(bron, eioBody(t.iot, { inhoud: Buffer.from('bij het besluit').toString('base64') }));
  await post('/besluiten/api/v1/besluitinformatieobjecten', { besluit: besluit.url, informatieobject: besluitDoc.url });
  return { zaak, rol, statussen, doc, zio, besluit, besluitDoc };
}

async function post(path: string, body: unknown): Promise<Record<string, any>> {
  const res = await bron.call('POST', path, body, { headers: CRS });
  if (res.statusCode !== 201) throw new Error(`POST ${path} gave ${res.statusCode}: ${res.body}`);
  return res.json();
}

/** The UUID at the end of an object's URL (a document's representation names none). */
const uuid = (url: string): string => url.split('/').pop()!;

/** Our URL of a source object (as the stand-in names it, or the platform behind it). */
const ours = (url: string) =>
  url.replace(/\/$/, '').replace(oz.url, doel.config.PUBLIC_BASE_URL).replace(bron.config.PUBLIC_BASE_URL, doel.config.PUBLIC_BASE_URL);
const here = async (url: string) => (await doel.call('GET', ours(url), undefined, { headers: CRS })).statusCode;

/** A run from the stand-in until it ends, with its view. */
async function run(body: Record<string, unknown>, ms = 60_000): Promise<Record<string, any>> {
  const started = await doel.call('POST', '/admin/api/v1/importen', { bron: oz.url, clientId: 'verhuizer', secret: 'verhuizer-secret', ...body });
  expect(started.statusCode).toBe(201);
  let view: Record<string, any> = started.json();
  const klaar = await eventually(async () => {
    view = (await doel.call('GET', `/admin/api/v1/importen/${view.id}`)).json();
    return !['bezig', 'gepauzeerd'].includes(view.status);
  }, ms);
  if (!klaar || view.status !== 'afgerond')
    console.log(JSON.stringify(view), JSON.stringify(logs.lines.filter((l) => Number(l.level) >= 40).slice(-10), null, 1));
  expect(klaar).toBe(true);
  return view;
}

test('finding 1: a whole registration whose zaken have no trail (404, as Open Zaak answers) comes in; a list without count is verified', async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-GEHEEL');
  const zaken = [await zaakMetDelen(t, 0), await zaakMetDelen(t, 1)];
  for (const z of zaken) oz.legeTrails.add(z.zaak.uuid as string);
  try {
    const view = await run({});
    expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
    for (const z of zaken) expect(await here(z.zaak.url)).toBe(200);
    // (nothing of the empty trails; the trail of the others came along)
    expect(view.tellingen['zaken/audittrail']).toMatchObject({ mislukt: 0 });
    expect(view.tellingen['zaken/audittrail'].nieuw).toBeGreaterThan(0);
    // the source says no count: the verification counted its pages
    for (const [k, v] of Object.entries(view.verificatie as Record<string, { bron: number; hier: number }>)) expect([k, v.hier]).toEqual([k, v.bron]);
    expect(view.verificatie['zaken/zaken'].bron).toBe(5);
  } finally {
    oz.legeTrails.clear();
  }
}, 120_000);

test('finding 2: limited to one zaaktype, statussen with gezetdoor null, null fields, fields the standard does not list and URLs with a slash come in', async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-NUL');
  const zaken = [await zaakMetDelen(t, 0), await zaakMetDelen(t, 1), await zaakMetDelen(t, 2)];
  const status = (await (
    await fetch(oz.hier(zaken[1]!.statussen[1]!.url), { headers: { authorization: `Bearer ${token('verhuizer', 'verhuizer-secret')}`, ...CRS } })
  ).json()) as Record<string, unknown>;
  expect([status.gezetdoor, String(status.url).endsWith('/')]).toEqual([null, true]);

  const view = await run({ zaaktypen: ['ZT-NUL'] });
  expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
  expect(view.tellingen['zaken/statussen']).toMatchObject({ gelezen: 6, nieuw: 6, mislukt: 0 });
  for (const collection of ['zaken', 'rollen', 'zaakinformatieobjecten', 'zaakeigenschappen'])
    expect([collection, view.tellingen[`zaken/${collection}`]?.mislukt]).toEqual([collection, 0]);
  expect(view.tellingen['documenten/enkelvoudiginformatieobjecten']).toMatchObject({ mislukt: 0 });
  // as the source has them (stored as this platform's rules say: no gezetdoor is none)
  const hier = (await doel.call('GET', ours(zaken[1]!.statussen[1]!.url), undefined, { headers: CRS })).json();
  expect(hier).toMatchObject({ url: ours(zaken[1]!.statussen[1]!.url), zaak: ours(zaken[1]!.zaak.url), datumStatusGezet: '2021-03-02T10:00:00Z' });
  expect(hier.gezetdoor ?? '').toBe('');
  expect(hier).not.toHaveProperty('openZaakEigenVeld');
  expect((await doel.call('GET', ours(zaken[0]!.statussen[0]!.url), undefined, { headers: CRS })).json().gezetdoor).toBe(ours(zaken[0]!.rol.url));
  for (const z of zaken) for (const url of [z.zaak.url, z.rol.url, z.doc.url, z.zio.url]) expect([url, await here(url)]).toEqual([url, 200]);
  expect([await here(zaken[0]!.besluit!.url), await here(zaken[0]!.besluitDoc!.url)]).toEqual([200, 200]);
}, 120_000);

test("finding 3: a slow source is read at the run's pace: at most --gelijktijdig requests at once, a read that hangs retried alone after --timeout", async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-TRAAG');
  const zaken = [];
  for (let i = 0; i < 4; i++) zaken.push(await zaakMetDelen(t, i));
  const hangend = `/documenten/api/v1/enkelvoudiginformatieobjecten/${uuid(zaken[2]!.doc.url)}`;
  oz.maxTegelijk = 0;
  const voor = oz.verzoeken.length;
  oz.vertraging = () => 100;
  oz.hangt = { match: (pad) => pad === hangend, ms: 8000, keer: 1 };
  try {
    const view = await run({ zaaktypen: ['ZT-TRAAG'], gelijktijdig: 2, timeout: 2 });
    expect(oz.maxTegelijk).toBeLessThanOrEqual(2);
    expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
    for (const z of zaken) expect(await here(z.doc.url)).toBe(200);
    // each read once where it is brought and once by the verification: only the read that hung was sent again
    const verzoeken = oz.verzoeken.slice(voor);
    const keer = (pad: string) => verzoeken.filter((v) => v === `GET ${pad}` || v.startsWith(`GET ${pad}?`)).length;
    expect(keer(hangend)).toBe(3);
    for (const z of zaken.filter((_, i) => i !== 2)) {
      const doc = `/documenten/api/v1/enkelvoudiginformatieobjecten/${uuid(z.doc.url)}`;
      expect([doc, keer(doc), keer(`${doc}/download`)]).toEqual([doc, 2, 2]);
    }
    // the run tells the source's pace
    expect(view.tempo).toMatchObject({ gelijktijdig: 2, timeoutMs: 2000 });
    expect(view.tempo.verzoeken).toBeGreaterThanOrEqual(verzoeken.length - 2);
    expect(view.tempo.p95Ms).toBeGreaterThanOrEqual(100);
    expect(view.tempo.verzoekenPerSeconde).toBeGreaterThan(0);
  } finally {
    oz.vertraging = () => 0;
    oz.hangt = undefined;
  }
}, 120_000);

test('finding 4: a limited run asks the source for its zaken, their parts and their documents only, with the source’s own filters', async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-BEPERKT');
  const zaken = [await zaakMetDelen(t, 0), await zaakMetDelen(t, 1)];
  const voor = oz.verzoeken.length;
  const view = await run({ zaaktypen: ['ZT-BEPERKT'] });

  const lijsten = oz.verzoeken
    .slice(voor)
    .map((v) => v.slice(4))
    .filter((v) => /\/api\/v1\/[a-z-]+(\?|$)/.test(v) && !v.startsWith('/catalogi/'));
  const filter: Record<string, string> = {
    zaken: 'zaaktype',
    rollen: 'zaak',
    statussen: 'zaak',
    resultaten: 'zaak',
    zaakobjecten: 'zaak',
    klantcontacten: 'zaak',
    zaakcontactmomenten: 'zaak',
    zaakverzoeken: 'zaak',
    zaakinformatieobjecten: 'zaak',
    besluiten: 'zaak',
    besluitinformatieobjecten: 'besluit',
    gebruiksrechten: 'informatieobject',
    verzendingen: 'informatieobject',
  };
  expect(lijsten.length).toBeGreaterThan(0);
  for (const lijst of lijsten) {
    const [pad, query = ''] = lijst.split('?');
    const collection = pad!.split('/').pop()!;
    // no list of documents at all; every other list by the filter of what the run brings
    expect([lijst, collection !== 'enkelvoudiginformatieobjecten' && new URLSearchParams(query).has(filter[collection] ?? '?')]).toEqual([
      lijst,
      true,
    ]);
  }
  // nothing of the other zaaktype's zaken or documents was asked for
  const [andereZaak] = (await bron.call('GET', `${ZRC}/zaken?zaaktype=${encodeURIComponent(ander.zaaktype)}`, undefined, { headers: CRS })).json()
    .results;
  expect(oz.verzoeken.slice(voor).filter((v) => v.includes(andereZaak.uuid as string))).toEqual([]);
  // and all it brings is here
  expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
  for (const z of zaken)
    for (const url of [z.zaak.url, z.rol.url, z.doc.url, z.zio.url, z.statussen[1]!.url]) expect([url, await here(url)]).toEqual([url, 200]);
  expect([await here(zaken[0]!.besluit!.url), await here(zaken[0]!.besluitDoc!.url)]).toEqual([200, 200]);
}, 120_000);

test('one object, one outcome: a document gone (404), one whose content cannot be read and a zaak whose eigenschappen cannot be read fail on their own; the run ends afgerond', async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-FOUT');
  const zaken = [await zaakMetDelen(t, 0), await zaakMetDelen(t, 1), await zaakMetDelen(t, 2)];
  const weg = `/documenten/api/v1/enkelvoudiginformatieobjecten/${uuid(zaken[1]!.doc.url)}`;
  const onleesbaar = `/documenten/api/v1/enkelvoudiginformatieobjecten/${uuid(zaken[2]!.doc.url)}/download`;
  const eigenschappen = `/zaken/api/v1/zaken/${zaken[0]!.zaak.uuid as string}/zaakeigenschappen`;
  oz.fout = (pad) => (pad === weg ? 404 : pad.startsWith(onleesbaar) || pad === eigenschappen ? 500 : undefined);
  try {
    const view = await run({ zaaktypen: ['ZT-FOUT'] });
    expect([view.status, view.fout]).toEqual(['afgerond', undefined]);
    const waarom = (url: string) => view.fouten.find((f: { url: string }) => f.url === url)?.reden as string | undefined;
    expect(waarom(oz.hier(zaken[1]!.doc.url))).toMatch(/status 404/);
    expect(waarom(oz.hier(zaken[2]!.doc.url))).toMatch(/download\?versie=1: status 500/);
    expect(waarom(`${oz.url}${eigenschappen}`)).toMatch(/status 500/);
    // their links are refused with them; everything else is here
    expect(waarom(oz.hier(zaken[1]!.zio.url))).toBeDefined();
    expect(waarom(oz.hier(zaken[2]!.zio.url))).toBeDefined();
    expect([await here(zaken[1]!.doc.url), await here(zaken[2]!.doc.url), await here(zaken[2]!.zio.url)]).toEqual([404, 404, 404]);
    for (const z of zaken) for (const url of [z.zaak.url, z.rol.url, z.statussen[1]!.url]) expect([url, await here(url)]).toEqual([url, 200]);
    expect([await here(zaken[0]!.doc.url), await here(zaken[0]!.zio.url)]).toEqual([200, 200]);
    expect(view.tellingen['zaken/zaken']).toMatchObject({ nieuw: 3, mislukt: 0 });
  } finally {
    oz.fout = () => undefined;
  }
}, 120_000);

test('a source unreachable for longer than the retry window ends the run mislukt, saying so', async () => {
  const view = await run({ bron: 'http://127.0.0.1:9' });
  expect(view.status).toBe('mislukt');
  expect(view.fout).toMatch(/niet bereikbaar/);
}, 120_000);

test('a zaak made by Open Zaak\'s ORM ("" for its vertrouwelijkheidaanduiding) comes in with its zaaktype\'s', async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-ORM');
  const zaken = [await zaakMetDelen(t, 0), await zaakMetDelen(t, 1)];
  oz.ormZaken.add(zaken[1]!.zaak.uuid as string);
  try {
    const gezien = (await (
      await fetch(oz.hier(zaken[1]!.zaak.url), { headers: { authorization: `Bearer ${token('verhuizer', 'verhuizer-secret')}`, ...CRS } })
    ).json()) as Record<string, unknown>;
    expect(gezien.vertrouwelijkheidaanduiding).toBe('');
    const view = await run({ zaaktypen: ['ZT-ORM'] });
    expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
    expect(view.tellingen['zaken/zaken']).toMatchObject({ nieuw: 2, mislukt: 0 });
    const zaaktype = (await bron.call('GET', t.zaaktype)).json();
    const hier = (await doel.call('GET', ours(zaken[1]!.zaak.url), undefined, { headers: CRS })).json();
    expect(hier.vertrouwelijkheidaanduiding).toBe(zaaktype.vertrouwelijkheidaanduiding);
  } finally {
    oz.ormZaken.clear();
  }
}, 120_000);

/** A new version of a document at the source, with this content. */
async function nieuweVersie(url: string, inhoud: string): Promise<void> {
  const lock = (await bron.call('POST', `${url}/lock`)).json().lock as string;
  const res = await bron.call('PATCH', url, { inhoud: Buffer.from(inhoud).toString('base64'), lock });
  expect(res.statusCode).toBe(200);
  expect((await bron.call('POST', `${url}/unlock`, { lock })).statusCode).toBe(204);
}

test("documents of one and of three versions come in whole when the source's list names every one's content with the first's ?versie=", async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-VERSIES');
  const zaken = [await zaakMetDelen(t, 0), await zaakMetDelen(t, 1)];
  for (const v of [2, 3]) await nieuweVersie(zaken[0]!.doc.url as string, `versie ${v}`);
  oz.lijstInhoud = true;
  try {
    const lijst = (await (
      await fetch(`${oz.url}/documenten/api/v1/enkelvoudiginformatieobjecten`, {
        headers: { authorization: `Bearer ${token('verhuizer', 'verhuizer-secret')}` },
      })
    ).json()) as { results: { versie: number; inhoud: string }[] };
    expect(lijst.results.some((d) => !d.inhoud.endsWith(`?versie=${d.versie}`))).toBe(true);
    const view = await run({});
    expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
    expect(view.inhoudVerificatie).toMatchObject({ aantalAfwijkend: 0 });
    for (const [doc, versies] of [
      [zaken[0]!.doc.url, ['inhoud 0', 'versie 2', 'versie 3']],
      [zaken[1]!.doc.url, ['inhoud 1']],
    ] as const)
      for (const [i, inhoud] of versies.entries()) {
        const res = await doel.call('GET', `${ours(doc)}/download?versie=${i + 1}`);
        expect([doc, i + 1, res.statusCode, res.body]).toEqual([doc, i + 1, 200, inhoud]);
      }
  } finally {
    oz.lijstInhoud = false;
  }
}, 180_000);

test('a dry run finds the documents it would make for their gebruiksrechten', async () => {
  const t = await typen(bron, sl, '000000000', 'ZT-PROEF');
  const zaak = await zaakMetDelen(t, 1);
  await post('/documenten/api/v1/gebruiksrechten', {
    informatieobject: zaak.doc.url,
    startdatum: '2021-03-01T00:00:00Z',
    omschrijvingVoorwaarden: 'alleen intern',
  });
  const view = await run({ zaaktypen: ['ZT-PROEF'], dryRun: true });
  expect([view.status, view.fout, view.fouten]).toEqual(['afgerond', undefined, []]);
  expect(view.tellingen['documenten/gebruiksrechten']).toMatchObject({ gelezen: 1, nieuw: 1, mislukt: 0 });
  expect(await here(zaak.doc.url)).toBe(404);
}, 120_000);
