import type { ChildProcess } from 'node:child_process';
import { openSecret } from '@zgw/shared';
import { ensureAllRights } from '../src/bootstrap';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, type TestApp } from './harness';
import { CRS, ZRC, createZ } from './zaken.fixtures';
import { EIO } from './documenten.fixtures';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import {
  LogLines,
  Netwerk,
  OVERDRACHTEN,
  afgelopen,
  apisOf,
  startListeningApp,
  startWorker,
  stopWorker,
  typen,
  type Typen,
} from './overdrachten.fixtures';

/**
 * What a transfer survives, against the real engines: a target that is away for a while, a target away beyond the
 * retry limit (compensation leaves nothing behind), an operator's cancel and retry, and a worker killed with
 * SIGKILL in the middle of copying documents (the next worker completes it, each object exactly once).
 */
const logs = new LogLines();
let sl: Referentielijsten;
let a: TestApp;
let b: TestApp;
let netB: Netwerk;
let netA: Netwerk;
let typenA: Typen;
let typenB: Typen;
let typenIntern: Typen;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  sl = await startReferentielijsten();
  // Three attempts per step, one to two seconds apart; a dead worker's step is taken over after three seconds.
  a = await startListeningApp(
    {
      REFERENTIELIJSTEN_URL: sl.url,
      TRANSFER_ATTEMPTS: '3',
      TRANSFER_BACKOFF_SECONDS: '1',
      TRANSFER_MAX_BACKOFF_SECONDS: '2',
      TRANSFER_HEARTBEAT_SECONDS: '3',
      ADMIN_INITIAL_USER: 'beheerder',
      ADMIN_INITIAL_PASSWORD: PASSWORD,
    },
    logs,
  );
  b = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url }, new LogLines());
  netA = new Netwerk(a);
  netB = new Netwerk(b);
  typenA = await typen(a, sl, '000000000', 'ZT-A');
  typenB = await typen(b, sl, '222222222', 'ZT-B');
  typenIntern = await typen(a, sl, '333333333', 'ZT-I');
  await b.client('platform-a', 'secret-of-a-at-b');
  await ensureAllRights(b.mongo.db, 'platform-a', b.config.ZGW_DEFAULT_TENANT);
  await a.client('platform-b', 'secret-of-b-at-a');
  await ensureAllRights(a.mongo.db, 'platform-b', a.config.ZGW_DEFAULT_TENANT);
  for (const [t, body] of [
    [
      a,
      {
        naam: 'b',
        route: 'extern',
        rsin: '222222222',
        catalogus: typenB.catalogus,
        bron: 'openlaten',
        zaaktypen: [{ bron: 'ZT-A', doel: 'ZT-B' }],
        ...apisOf(b),
        clientId: 'platform-a',
        secret: 'secret-of-a-at-b',
      },
    ],
    [
      b,
      {
        naam: 'a',
        route: 'extern',
        rsin: '000000000',
        catalogus: typenA.catalogus,
        bron: 'openlaten',
        zaaktypen: [{ bron: 'ZT-B', doel: 'ZT-A' }],
        ...apisOf(a),
        clientId: 'platform-b',
        secret: 'secret-of-b-at-a',
      },
    ],
    [
      a,
      {
        naam: 'intern',
        route: 'intern',
        rsin: '333333333',
        catalogus: typenIntern.catalogus,
        bron: 'openlaten',
        zaaktypen: [{ bron: 'ZT-A', doel: 'ZT-I' }],
      },
    ],
  ] as [TestApp, Record<string, unknown>][]) {
    expect((await t.call('POST', '/admin/api/v1/doelregistraties', body)).statusCode).toBe(201);
  }
  worker = startWorker(a, logs);
}, 120_000);
afterAll(async () => {
  await stopWorker(worker, 'SIGKILL');
  await a?.close();
  await b?.close();
  await sl?.close();
});
afterEach(() => {
  netA.aan();
  netB.aan();
  netA.vertraging = undefined;
});

async function zaak(documenten: number, bytes = 2000): Promise<Record<string, any>> {
  const z = await createZ(a, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: typenA.zaaktype,
    startdatum: '2024-06-01',
  });
  await createZ(a, 'rollen', {
    zaak: z.url,
    roltype: typenA.roltype,
    betrokkeneType: 'medewerker',
    roltoelichting: 'behandelaar',
    betrokkeneIdentificatie: { identificatie: 'mw-7' },
  });
  for (let i = 0; i < documenten; i++) {
    const inhoud = Buffer.alloc(bytes, `${z.uuid}-${i}-`).toString('base64');
    const doc = await a.call('POST', EIO, {
      bronorganisatie: '000000000',
      creatiedatum: '2024-06-01',
      titel: `stuk ${i}`,
      auteur: 'A',
      taal: 'dut',
      indicatieGebruiksrecht: false,
      inhoud,
      informatieobjecttype: typenA.iot,
    });
    expect(doc.statusCode).toBe(201);
    await createZ(a, 'zaakinformatieobjecten', { zaak: z.url, informatieobject: doc.json().url });
  }
  return (await a.call('GET', z.url, undefined, { headers: CRS })).json();
}

const get = async (url: string) => (await a.call('GET', url)).json();
async function wacht(url: string, check: (o: Record<string, any>) => boolean, ms = 90_000): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  if (!(await eventually(async () => check((last = await get(url))), ms))) {
    // What the worker's Temporal runtime said last (failed attempts), to see why.
    const said = logs.lines.filter((l) => l.temporal && l.level !== 'info').slice(-5);
    throw new Error(
      `overdracht: ${JSON.stringify({ status: last.status, stappen: last.stappen, fout: last.fout })}\nworker: ${JSON.stringify(said)}`,
    );
  }
  return last;
}
const klaar = (o: Record<string, any>) => afgelopen(o);
const begonnen = (stap: string) => (o: Record<string, any>) => o.stappen.some((s: any) => s.stap === stap);
/** What the target organisation holds: zaken of the target zaaktype, and documents. */
async function inB(): Promise<{ zaken: number; documenten: number }> {
  const zaken = (await b.call('GET', `${ZRC}/zaken?zaaktype=${encodeURIComponent(typenB.zaaktype)}`, undefined, { headers: CRS })).json().count;
  const documenten = (await b.call('GET', `${EIO}?bronorganisatie=222222222`)).json().count;
  return { zaken, documenten };
}

test('a target away for a while: the transfer waits, retrying, and completes once it is back', async () => {
  const z = await zaak(1);
  netB.uit();
  const o = (await a.call('POST', OVERDRACHTEN, { zaak: z.url, doelregistratie: 'b' })).json();
  expect(await eventually(async () => netB.geknipt > 0, 30_000)).toBe(true);
  await new Promise((r) => setTimeout(r, 1500));
  expect((await get(o.url)).status).toBe('bezig');
  netB.aan();
  const done = await wacht(o.url, klaar);
  expect(done).toMatchObject({ status: 'afgerond', fout: '' });
}, 120_000);

test('a target away beyond the retry limit: compensation waits for it and removes everything the transfer made; mislukt with the reason; retried by an operator, it completes', async () => {
  const before = await inB();
  const z = await zaak(3);
  // The target goes away when the first document arrives: the copy and its parts are there by then.
  netB.breekBij = (req) => req.method === 'POST' && String(req.url).includes('/enkelvoudiginformatieobjecten');
  const o = (await a.call('POST', OVERDRACHTEN, { zaak: z.url, doelregistratie: 'b' })).json();
  await wacht(o.url, begonnen('gecompenseerd'));
  expect((await inB()).zaken).toBe(before.zaken + 1);
  netB.aan();
  const done = await wacht(o.url, klaar);
  expect(done.status).toBe('mislukt');
  expect(done.fout).toMatch(/geen antwoord/);
  expect(done.stappen.find((s: any) => s.stap === 'gecompenseerd').einde).not.toBeNull();
  expect(await inB()).toEqual(before);
  expect(logs.of(z.identificatie).find((l) => l.status === 'mislukt' && l.fout)).toMatchObject({ level: 'info', overdracht: o.uuid });

  const retry = await a.call('POST', `/admin/api/v1/overdrachten/${o.uuid}/opnieuw`);
  expect(retry.statusCode).toBe(202);
  const again = await wacht(o.url, (x) => klaar(x) && x.stappen.some((s: any) => s.stap === 'geverifieerd'));
  expect(again.status).toBe('afgerond');
  expect((await inB()).documenten).toBe(before.documenten + 3);
  expect((await a.call('POST', `/admin/api/v1/overdrachten/${o.uuid}/opnieuw`)).statusCode).toBe(409);
}, 150_000);

test('an operator cancels a running transfer: what it made is removed, status geannuleerd', async () => {
  const before = await inB();
  const z = await zaak(2);
  netB.breekBij = (req) => req.method === 'POST' && String(req.url).includes('/enkelvoudiginformatieobjecten');
  const o = (await a.call('POST', OVERDRACHTEN, { zaak: z.url, doelregistratie: 'b' })).json();
  await wacht(o.url, begonnen('documenten_gekopieerd'));
  const cancel = await a.call('POST', `/admin/api/v1/overdrachten/${o.uuid}/annuleren`);
  expect(cancel.statusCode).toBe(202);
  netB.aan();
  const done = await wacht(o.url, klaar);
  expect(done.status).toBe('geannuleerd');
  expect(done.stappen.map((s: any) => s.stap)).toContain('gecompenseerd');
  expect(await inB()).toEqual(before);
  expect((await a.call('POST', `/admin/api/v1/overdrachten/${o.uuid}/annuleren`)).statusCode).toBe(409);
}, 120_000);

test('a second transfer of a zaak whose transfer still runs is refused: overdracht_loopt_al, with the reason and an INFO line; the first completes', async () => {
  const z = await zaak(2);
  netA.vertraging = { match: (req) => req.method === 'POST' && String(req.url).includes('/enkelvoudiginformatieobjecten'), ms: 1500 };
  const first = (await a.call('POST', OVERDRACHTEN, { zaak: z.url, doelregistratie: 'intern' })).json();
  await wacht(first.url, begonnen('documenten_gekopieerd'));
  const second = (await a.call('POST', OVERDRACHTEN, { zaak: z.url, doelregistratie: 'b' })).json();
  const refused = await wacht(second.url, klaar);
  expect(refused).toMatchObject({ status: 'geweigerd', weigering: { code: 'overdracht_loopt_al' } });
  expect(refused.weigering.reden).toContain(first.uuid);
  expect(logs.of(z.identificatie).find((l) => l.weigering === 'overdracht_loopt_al')).toMatchObject({ level: 'info', overdracht: second.uuid });
  expect((await wacht(first.url, klaar)).status).toBe('afgerond');
}, 120_000);

test('the worker killed (SIGKILL) while copying documents: a new worker completes the transfer, each object exactly once in the target', async () => {
  const intern = async () => ({
    documenten: (await a.call('GET', `${EIO}?bronorganisatie=333333333`)).json().count as number,
    zaken: (await a.call('GET', `${ZRC}/zaken?zaaktype=${encodeURIComponent(typenIntern.zaaktype)}`, undefined, { headers: CRS })).json()
      .count as number,
  });
  const before = await intern();
  const z = await zaak(12, 100_000);
  netA.vertraging = { match: (req) => req.method === 'POST' && String(req.url).includes('/enkelvoudiginformatieobjecten'), ms: 300 };
  const o = (await a.call('POST', OVERDRACHTEN, { zaak: z.url, doelregistratie: 'intern' })).json();
  expect(await eventually(async () => logs.of(z.identificatie).filter((l) => l.msg === 'overdracht: document gekopieerd').length >= 3, 60_000)).toBe(
    true,
  );
  await stopWorker(worker, 'SIGKILL');
  worker = startWorker(a, logs);
  const done = await wacht(o.url, klaar);
  expect(done).toMatchObject({ status: 'afgerond', fout: '' });
  const copy = done.doelZaak as string;
  const zios = (await a.call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(copy)}`)).json() as any[];
  expect(zios).toHaveLength(12);
  expect(new Set(zios.map((x) => x.informatieobject)).size).toBe(12);
  expect(await intern()).toEqual({ documenten: before.documenten + 12, zaken: before.zaken + 1 });
  expect((await a.call('GET', `${ZRC}/rollen?zaak=${encodeURIComponent(copy)}`)).json().count).toBe(1);
}, 180_000);

test('the admin screen Overdrachten: every transfer with its status, steps, reason and workflow link; the doelregistraties; a failed one retried from the screen', async () => {
  const z = await zaak(1);
  netB.breekBij = (req) => req.method === 'POST' && String(req.url).includes('/enkelvoudiginformatieobjecten');
  const o = (await a.call('POST', OVERDRACHTEN, { zaak: z.url, doelregistratie: 'b' })).json();
  await wacht(o.url, begonnen('gecompenseerd'));
  netB.aan();
  await wacht(o.url, klaar);

  const browser = new AdminBrowser(a);
  expect((await browser.login('beheerder', PASSWORD)).statusCode).toBe(303);
  const list = await browser.get('/admin/overdrachten?status=mislukt');
  expect(list.statusCode).toBe(200);
  expect(list.body).toContain(`href="/admin/overdrachten/${o.uuid}"`);
  expect(list.body).toContain(z.identificatie);
  expect(list.body).toMatch(/<table id="doelregistraties">[\s\S]*>b<\/a><\/td><td>extern<\/td>[\s\S]*>intern<\/a><\/td><td>intern<\/td>/);
  expect(list.body).not.toContain('secret-of-a-at-b');

  const detail = await browser.get(`/admin/overdrachten/${o.uuid}`);
  expect(detail.statusCode).toBe(200);
  expect(detail.body).toContain('data-status="mislukt"');
  expect(detail.body).toMatch(/<td id="fout">[^<]*geen antwoord/);
  expect(detail.body).toContain(`href="http://127.0.0.1:8233/namespaces/default/workflows/overdracht-${o.uuid}"`);
  expect(detail.body).toMatch(/<table id="stappen">[\s\S]*<td>gecompenseerd<\/td>/);
  expect(detail.body).toContain(`action="/admin/overdrachten/${o.uuid}/opnieuw"`);
  expect(detail.body).not.toContain(`action="/admin/overdrachten/${o.uuid}/annuleren"`);

  const retry = await browser.post(`/admin/overdrachten/${o.uuid}/opnieuw`);
  expect(retry.statusCode).toBe(303);
  expect(retry.headers.location).toBe(`/admin/overdrachten/${o.uuid}?gedaan=opnieuw`);
  const done = await wacht(o.url, (x) => klaar(x) && x.stappen.some((s: any) => s.stap === 'geverifieerd'));
  expect(done.status).toBe('afgerond');
  expect((await browser.get(`/admin/overdrachten/${o.uuid}`)).body).toContain('data-status="afgerond"');
  expect((await browser.post(`/admin/overdrachten/${o.uuid}/opnieuw`)).statusCode).toBe(409);
}, 150_000);

test('the admin screen manages doelregistraties: create, change (a stored secret kept and never shown), refuse with the reasons, delete', async () => {
  const browser = new AdminBrowser(a);
  expect((await browser.login('beheerder', PASSWORD)).statusCode).toBe(303);
  expect((await browser.get('/admin/overdrachten/doelregistraties/nieuw')).statusCode).toBe(200);
  const created = await browser.post('/admin/overdrachten/doelregistraties/nieuw', {
    naam: 'scherm',
    route: 'extern',
    rsin: '444444444',
    catalogus: typenB.catalogus,
    bron: 'afsluiten',
    zaaktypen: 'ZT-A; ZT-B; Afgehandeld',
    zakenApi: 'http://elders.example/zaken/api/v1',
    catalogiApi: 'http://elders.example/catalogi/api/v1',
    documentenApi: 'http://elders.example/documenten/api/v1',
    besluitenApi: 'http://elders.example/besluiten/api/v1',
    clientId: 'platform-a',
    secret: 'een-geheim-secret',
  });
  expect(created.statusCode).toBe(303);
  const stored = (await a.call('GET', '/admin/api/v1/doelregistraties/scherm')).json();
  expect(stored).toMatchObject({
    route: 'extern',
    rsin: '444444444',
    bron: 'afsluiten',
    zaaktypen: [{ bron: 'ZT-A', doel: 'ZT-B', afsluitResultaat: 'Afgehandeld' }],
    secretOpgeslagen: true,
  });

  const edit = await browser.get('/admin/overdrachten/doelregistraties/scherm');
  expect(edit.statusCode).toBe(200);
  expect(edit.body).not.toContain('een-geheim-secret');
  expect(edit.body).toContain('opgeslagen; leeg laten om het te houden');
  const changed = await browser.post('/admin/overdrachten/doelregistraties/scherm', {
    route: 'extern',
    rsin: '444444444',
    catalogus: typenB.catalogus,
    bron: 'openlaten',
    zaaktypen: 'ZT-A; ZT-B',
    zakenApi: 'http://elders.example/zaken/api/v1',
    catalogiApi: 'http://elders.example/catalogi/api/v1',
    documentenApi: 'http://elders.example/documenten/api/v1',
    besluitenApi: 'http://elders.example/besluiten/api/v1',
    clientId: 'platform-a',
    secret: '',
  });
  expect(changed.statusCode).toBe(303);
  expect((await a.call('GET', '/admin/api/v1/doelregistraties/scherm')).json()).toMatchObject({ bron: 'openlaten', secretOpgeslagen: true });
  const kept = await a.mongo.db.collection('zsdms_doelregistraties').findOne({ _id: 'scherm' as never });
  expect(openSecret(a.deps.pii, 'doelregistratie', String(kept?.secret))).toBe('een-geheim-secret'); // kept, sealed
  expect(JSON.stringify(kept)).not.toContain('een-geheim-secret');

  const refused = await browser.post('/admin/overdrachten/doelregistraties/nieuw', {
    naam: 'kapot',
    route: 'extern',
    rsin: '12',
    catalogus: 'geen url',
    bron: 'afsluiten',
    zaaktypen: 'ZT-A; ZT-B',
  });
  expect(refused.statusCode).toBe(400);
  expect(refused.body).toContain('rsin');
  expect((await a.call('GET', '/admin/api/v1/doelregistraties/kapot')).statusCode).toBe(404);

  expect((await browser.post('/admin/overdrachten/doelregistraties/scherm/verwijderen')).statusCode).toBe(303);
  expect((await a.call('GET', '/admin/api/v1/doelregistraties/scherm')).statusCode).toBe(404);
});
