import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Consumer } from 'kafkajs';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createKafka, type Notificatie } from '@zgw/shared';
import { create, startReferentielijsten, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import { eventually, startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ } from './zaken.fixtures';
import { EIO, lock } from './documenten.fixtures';
import {
  LogLines,
  Netwerk,
  OVERDRACHTEN,
  Ontvanger,
  afgelopen,
  startListeningApp,
  startWorker,
  stopWorker,
  typen,
  type Typen,
} from './overdrachten.fixtures';

/**
 * ZSDMS transfers on the internal route, against the real engines: the API over HTTP, the transfer worker as its own
 * process on a Temporal dev server, the copy checked part by part, the source linked and closed, every log line of
 * the transfer carrying the same ZaakIdentificatie. Refusals end `geweigerd` with their code, reason and log line.
 */
const BSN = '111222333';
const logs = new LogLines();
let t: TestApp;
let sl: Referentielijsten;
let bron: Typen;
let doel: Typen;
let worker: ChildProcess | undefined;
let ontvanger: Ontvanger;
let net: Netwerk;

beforeAll(async () => {
  sl = await startReferentielijsten();
  // Bestandsdelen of 1 MiB: a large document travels in several parts.
  t = await startListeningApp({ REFERENTIELIJSTEN_URL: sl.url, DRC_BESTANDSDEEL_BYTES: String(1024 * 1024) }, logs);
  bron = await typen(t, sl, '000000000', 'BRON-1');
  doel = await typen(t, sl, '111111111', 'DOEL-1');
  const reg = await t.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'gemeente-b',
    route: 'intern',
    rsin: '111111111',
    catalogus: doel.catalogus,
    zaaktypen: [{ bron: 'BRON-1', doel: 'DOEL-1', afsluitResultaat: 'Afgehandeld' }],
    bron: 'afsluiten',
  });
  expect(reg.statusCode).toBe(201);
  const leeg = await t.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'zonder-koppeling',
    route: 'intern',
    rsin: '111111111',
    catalogus: doel.catalogus,
    zaaktypen: [{ bron: 'ANDERS', doel: 'DOEL-1' }],
    bron: 'openlaten',
  });
  expect(leeg.statusCode).toBe(201);
  // A doelzaaktype that exists only as a concept (never published).
  await create(t, 'zaaktypen', zaaktypeBody(doel.catalogus, { identificatie: 'DOEL-CONCEPT', selectielijstProcestype: sl.procestype }));
  const concept = await t.call('POST', '/admin/api/v1/doelregistraties', {
    naam: 'concept',
    route: 'intern',
    rsin: '111111111',
    catalogus: doel.catalogus,
    zaaktypen: [{ bron: 'BRON-1', doel: 'DOEL-CONCEPT' }],
    bron: 'openlaten',
  });
  expect(concept.statusCode).toBe(201);
  ontvanger = await new Ontvanger().start();
  net = new Netwerk(t);
  worker = startWorker(t, logs);
}, 120_000);
afterAll(async () => {
  await ontvanger?.close();
  await stopWorker(worker);
  await t?.close();
  await sl?.close();
});

/** A zaak with two rollen (one a citizen by BSN), a status, an eigenschap, a zaakobject, a klantcontact, two documents and a besluit. */
async function volleZaak(): Promise<Record<string, any>> {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: bron.zaaktype,
    startdatum: '2024-03-01',
    omschrijving: 'Melding',
  });
  await createZ(t, 'rollen', {
    zaak: zaak.url,
    roltype: bron.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'melder',
    betrokkeneIdentificatie: { inpBsn: BSN, geslachtsnaam: 'Jansen' },
  });
  await createZ(t, 'rollen', {
    zaak: zaak.url,
    roltype: bron.roltype,
    betrokkeneType: 'medewerker',
    roltoelichting: 'behandelaar',
    betrokkeneIdentificatie: { identificatie: 'mw-1', achternaam: 'De Vries' },
  });
  await createZ(t, 'statussen', { zaak: zaak.url, statustype: bron.statustypen.begin, datumStatusGezet: '2024-03-01T10:00:00Z' });
  await createZ(t, `zaken/${zaak.uuid}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: bron.eigenschap, waarde: 'blauw' });
  await createZ(t, 'zaakobjecten', {
    zaak: zaak.url,
    objectType: 'overige',
    objectTypeOverige: 'boom',
    relatieomschrijving: 'betreft',
    objectIdentificatie: { overigeData: { soort: 'eik' } },
  });
  await createZ(t, 'klantcontacten', {
    zaak: zaak.url,
    datumtijd: '2024-03-02T09:00:00Z',
    kanaal: 'telefoon',
    onderwerp: 'vraag',
    toelichting: 'belde',
  });
  const docs = [];
  for (const [i, inhoud] of ['eerste document', 'tweede document, iets langer'].entries()) {
    const res = await t.call('POST', EIO, {
      bronorganisatie: '000000000',
      identificatie: `DOC-${zaak.uuid.slice(0, 8)}-${i}`,
      creatiedatum: '2024-03-01',
      titel: `bijlage ${i}`,
      auteur: 'J. de Vries',
      taal: 'dut',
      indicatieGebruiksrecht: false,
      inhoud: Buffer.from(inhoud).toString('base64'),
      informatieobjecttype: bron.iot,
    });
    expect(res.statusCode).toBe(201);
    docs.push(res.json());
    await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: res.json().url });
  }
  const besluit = await t.call('POST', '/besluiten/api/v1/besluiten', {
    verantwoordelijkeOrganisatie: '000000000',
    besluittype: bron.besluittype,
    zaak: zaak.url,
    datum: '2024-03-05',
    ingangsdatum: '2024-03-06',
  });
  expect(besluit.statusCode).toBe(201);
  expect(
    (await t.call('POST', '/besluiten/api/v1/besluitinformatieobjecten', { besluit: besluit.json().url, informatieobject: docs[0].url })).statusCode,
  ).toBe(201);
  return (await t.call('GET', zaak.url, undefined, { headers: CRS })).json();
}

const overdracht = async (url: string) => (await t.call('GET', url)).json();
async function until(url: string, statussen: string[]): Promise<Record<string, any>> {
  let last: Record<string, any> = {};
  const done = (o: Record<string, any>) => afgelopen(o, statussen);
  const ok = await eventually(async () => done((last = await overdracht(url))), 90_000);
  if (!ok) throw new Error(`overdracht bleef ${last.status}: ${JSON.stringify(last)}`);
  return last;
}
const list = async (path: string) => (await t.call('GET', path, undefined, { headers: CRS })).json().results as Record<string, any>[];

test('an internal transfer copies the zaak with every part, verifies it, links and closes the source, and logs each step with the ZaakIdentificatie', async () => {
  const zaak = await volleZaak();
  const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'gemeente-b', toelichting: 'fusie' });
  expect(res.statusCode).toBe(201);
  const o = res.json();
  expect(o).toMatchObject({
    zaak: zaak.url,
    zaakIdentificatie: zaak.identificatie,
    doelregistratie: 'gemeente-b',
    richting: 'intern',
    status: 'ontvangen',
    workflowId: `overdracht-${o.uuid}`,
    doelZaak: null,
    weigering: null,
  });

  const klaar = await until(o.url, ['afgerond', 'mislukt', 'geweigerd']);
  expect(klaar.fout).toBe('');
  expect(klaar.status).toBe('afgerond');
  expect(klaar.stappen.map((s: { stap: string }) => s.stap)).toEqual([
    'ontvangen',
    'gevalideerd',
    'doelzaak_aangemaakt',
    'onderdelen_gekopieerd',
    'documenten_gekopieerd',
    'besluiten_gekopieerd',
    'geverifieerd',
    'bron_gekoppeld',
    'bron_afgesloten',
    'antwoord_verstuurd',
  ]);
  for (const s of klaar.stappen) expect(s.einde).not.toBeNull();

  // The copy: target organisation and zaaktype, same identificatie, our kenmerk, the source as vervolg.
  const copy = (await t.call('GET', klaar.doelZaak, undefined, { headers: CRS })).json();
  expect(copy.identificatie).not.toBe('');
  expect(copy).toMatchObject({ bronorganisatie: '111111111', verantwoordelijkeOrganisatie: '111111111', zaaktype: doel.zaaktype });
  expect(copy.kenmerken).toContainEqual({ kenmerk: o.uuid, bron: 'overdracht' });
  expect(copy.relevanteAndereZaken).toContainEqual({ url: zaak.url, aardRelatie: 'vervolg' });
  const rollen = await list(`${ZRC}/rollen?zaak=${encodeURIComponent(copy.url)}`);
  expect(rollen.map((r) => r.betrokkeneIdentificatie.inpBsn ?? r.betrokkeneIdentificatie.identificatie).sort()).toEqual([BSN, 'mw-1']);
  expect(rollen.every((r) => r.roltype === doel.roltype)).toBe(true);
  expect((await list(`${ZRC}/statussen?zaak=${encodeURIComponent(copy.url)}`)).map((s) => [s.statustype, s.datumStatusGezet])).toEqual([
    [doel.statustypen.begin, '2024-03-01T10:00:00Z'],
  ]);
  expect((await t.call('GET', `${ZRC}/zaken/${copy.uuid}/zaakeigenschappen`)).json().map((e: any) => [e.eigenschap, e.waarde])).toEqual([
    [doel.eigenschap, 'blauw'],
  ]);
  expect((await list(`${ZRC}/zaakobjecten?zaak=${encodeURIComponent(copy.url)}`)).map((z) => z.objectTypeOverige)).toEqual(['boom']);
  expect((await list(`${ZRC}/klantcontacten?zaak=${encodeURIComponent(copy.url)}`)).map((k) => k.onderwerp)).toEqual(['vraag']);
  const zios = (await t.call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(copy.url)}`)).json() as any[];
  expect(zios).toHaveLength(2);
  const inhoud = [];
  for (const zio of zios) {
    const d = (await t.call('GET', zio.informatieobject)).json();
    expect(d).toMatchObject({ bronorganisatie: '111111111', informatieobjecttype: doel.iot });
    inhoud.push((await t.call('GET', `${zio.informatieobject}/download`)).body);
  }
  expect(inhoud.sort()).toEqual(['eerste document', 'tweede document, iets langer']);
  const besluiten = await list(`/besluiten/api/v1/besluiten?zaak=${encodeURIComponent(copy.url)}`);
  expect(besluiten.map((b) => [b.besluittype, b.verantwoordelijkeOrganisatie])).toEqual([[doel.besluittype, '111111111']]);
  expect((await t.call('GET', `/besluiten/api/v1/besluitinformatieobjecten?besluit=${encodeURIComponent(besluiten[0]!.url)}`)).json()).toHaveLength(
    1,
  );

  // The source: names the copy, closed with the configured resultaat and its zaaktype's last statustype.
  const source = (await t.call('GET', zaak.url, undefined, { headers: CRS })).json();
  expect(source.relevanteAndereZaken).toContainEqual({ url: copy.url, aardRelatie: 'bijdrage' });
  expect(source.einddatum).not.toBeNull();
  expect((await t.call('GET', source.resultaat)).json().resultaattype).toBe(bron.resultaattype);

  // Logging: receipt (API), every step's start and end, the reply: all with the same ZaakIdentificatie and the uuid.
  const mine = logs.of(zaak.identificatie);
  const msgs = mine.map((l) => String(l.msg));
  expect(msgs).toContain('overdracht ontvangen');
  for (const stap of [
    'gevalideerd',
    'doelzaak_aangemaakt',
    'onderdelen_gekopieerd',
    'documenten_gekopieerd',
    'besluiten_gekopieerd',
    'geverifieerd',
    'bron_gekoppeld',
    'bron_afgesloten',
    'antwoord_verstuurd',
  ]) {
    expect(msgs).toContain(`overdracht: stap ${stap} begonnen`);
    expect(msgs).toContain(`overdracht: stap ${stap} afgerond`);
  }
  expect(msgs.some((m) => m.startsWith('overdracht: antwoord verstuurd'))).toBe(true);
  expect(mine.every((l) => l.level === 'info' && l.overdracht === o.uuid)).toBe(true);
  expect(JSON.stringify(logs.lines)).not.toContain(BSN);

  // The copy's audit trail starts with the transfer's writes, under its own client id.
  const trail = (await t.call('GET', `${copy.url}/audittrail`)).json() as any[];
  expect(trail[0]).toMatchObject({ actie: 'create', applicatieId: t.config.TRANSFER_CLIENT_ID });
  expect(trail.filter((e) => e.actie !== 'retrieve' && e.actie !== 'list').every((e) => e.applicatieId === t.config.TRANSFER_CLIENT_ID)).toBe(true);

  // Temporal finds the transfer by its zaak (search attribute ZaakIdentificatie).
  const connection = await Connection.connect({ address: t.config.TEMPORAL_ADDRESS });
  try {
    const client = new Client({ connection });
    const found: string[] = [];
    const listed = await eventually(async () => {
      found.length = 0;
      for await (const w of client.workflow.list({ query: `ZaakIdentificatie="${zaak.identificatie}"` })) found.push(w.workflowId);
      return found.includes(`overdracht-${o.uuid}`);
    }, 30_000);
    expect(listed).toBe(true);
    // What the transfer handed Temporal is sealed in its history (read here without the codec): the zaak's URL and
    // the BSN of its rol are in none of its bytes; its payloads are `binary/encrypted`.
    const history = await client.workflow.getHandle(`overdracht-${o.uuid}`).fetchHistory();
    const bytes = Buffer.from(temporal.api.history.v1.History.encode(history).finish());
    expect(bytes.includes(Buffer.from('binary/encrypted'))).toBe(true);
    for (const secret of [BSN, zaak.url, copy.url]) expect(bytes.includes(Buffer.from(String(secret)))).toBe(false);
    // an administrator reads them through the codec endpoint (what Temporal's UI and CLI call): the workflow's input
    const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
    const b64 = (b?: Uint8Array | null) => Buffer.from(b ?? []).toString('base64');
    const payloads = input.map((p) => ({
      metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
      data: b64(p.data),
    }));
    const opened = await t.call('POST', '/admin/api/v1/temporal-codec/decode', { payloads });
    expect(opened.statusCode).toBe(200);
    const data = (opened.json() as { payloads: { data: string }[] }).payloads.map((p) => Buffer.from(p.data, 'base64').toString()).join();
    expect(data).toContain(zaak.url);
  } finally {
    await connection.close();
  }
}, 150_000);

test('a zaaktype without mapping is refused: geweigerd with its code and reason, nothing made, an INFO line with the reason', async () => {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: bron.zaaktype,
    startdatum: '2024-03-01',
  });
  const o = (await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'zonder-koppeling' })).json();
  const klaar = await until(o.url, ['geweigerd', 'afgerond', 'mislukt']);
  expect(klaar).toMatchObject({ status: 'geweigerd', doelZaak: null, weigering: { code: 'zaaktype_niet_gekoppeld' } });
  expect(klaar.weigering.reden).toContain('BRON-1');
  expect(klaar.stappen.map((s: { stap: string }) => s.stap)).toEqual(['ontvangen', 'gevalideerd', 'antwoord_verstuurd']);
  const line = logs.of(zaak.identificatie).find((l) => l.weigering === 'zaaktype_niet_gekoppeld');
  expect(line).toMatchObject({ level: 'info', overdracht: o.uuid });
}, 120_000);

test('who may ask is answered at once: 400 bad-url for a zaak that is not ours, 400 for an unknown doelregistratie, 403 without zaken.overdragen for the zaaktype', async () => {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: bron.zaaktype,
    startdatum: '2024-03-01',
  });
  const bad = await t.call('POST', OVERDRACHTEN, {
    zaak: 'http://elders.example/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000000',
    doelregistratie: 'gemeente-b',
  });
  expect(bad.statusCode).toBe(400);
  expect(bad.json().invalidParams[0]).toMatchObject({ name: 'zaak', code: 'bad-url' });
  const onbekend = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'bestaat-niet' });
  expect(onbekend.statusCode).toBe(400);
  expect(onbekend.json().invalidParams[0]).toMatchObject({ name: 'doelregistratie', code: 'does_not_exist' });

  await t.client('alleen-lezen', 'alleen-lezen-secret');
  await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: ['alleen-lezen'],
    label: 'l',
    autorisaties: [
      { component: 'zrc', scopes: ['zaken.lezen', 'zaken.overdragen'], zaaktype: doel.zaaktype, maxVertrouwelijkheidaanduiding: 'geheim' },
    ],
  });
  const forbidden = await t.call(
    'POST',
    OVERDRACHTEN,
    { zaak: zaak.url, doelregistratie: 'gemeente-b' },
    { token: token('alleen-lezen', 'alleen-lezen-secret') },
  );
  expect(forbidden.statusCode).toBe(403);
  const line = logs.of(zaak.identificatie).find((l) => String(l.msg).includes('(403)'));
  expect(line).toMatchObject({ level: 'info' });
  expect(
    logs.lines.find((l) => l.ZaakIdentificatie === 'http://elders.example/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000000'),
  ).toBeDefined();
});

test('the reply: POSTed as JSON to antwoordUrl (retried until the receiver takes it), and a notification on kanaal overdrachten with bronorganisatie, doelregistratie and status', async () => {
  const received: Record<string, any>[] = [];
  let refusals = 1;
  const receiver: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      // The first delivery is refused: the reply is retried.
      if (refusals-- > 0) return void res.writeHead(503).end();
      received.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  let consumer: Consumer | undefined;
  try {
    const antwoordUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/antwoord`;
    const zaak = await createZ(t, 'zaken', {
      bronorganisatie: '000000000',
      verantwoordelijkeOrganisatie: '000000000',
      zaaktype: bron.zaaktype,
      startdatum: '2024-03-01',
    });
    const o = (await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'gemeente-b', antwoordUrl })).json();
    const klaar = await until(o.url, ['afgerond', 'mislukt', 'geweigerd']);
    expect(klaar.status).toBe('afgerond');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      url: o.url,
      status: 'afgerond',
      zaak: zaak.url,
      zaakIdentificatie: zaak.identificatie,
      doelZaak: klaar.doelZaak,
    });
    expect(klaar.stappen.find((s: any) => s.stap === 'antwoord_verstuurd').toelichting).toContain('status 204');

    const seen: Notificatie[] = [];
    consumer = createKafka(t.config.KAFKA_BROKERS, 'overdrachten-notificaties').consumer({ groupId: `${t.topicPrefix}overdrachten-${o.uuid}` });
    await consumer.connect();
    await consumer.subscribe({ topic: `${t.topicPrefix}overdrachten`, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(JSON.parse(message.value!.toString()) as Notificatie) });
    const mine = () => seen.filter((n) => n.resourceUrl === o.url);
    expect(await eventually(async () => mine().some((n) => n.kenmerken.status === 'afgerond'), 60_000)).toBe(true);
    expect(mine().map((n) => n.kenmerken.status)).toEqual(['ontvangen', 'bezig', 'afgerond']);
    for (const n of mine())
      expect(n).toMatchObject({
        kanaal: 'overdrachten',
        resource: 'overdracht',
        kenmerken: { bronorganisatie: '000000000', doelregistratie: 'gemeente-b' },
      });
  } finally {
    await consumer?.disconnect();
    await new Promise((r) => receiver.close(r));
  }
}, 150_000);

test('a client with zaken.overdragen for the zaaktype may transfer; reading the overdracht needs zaken.lezen for that zaaktype', async () => {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: bron.zaaktype,
    startdatum: '2024-03-01',
    vertrouwelijkheidaanduiding: 'openbaar',
  });
  await t.client('overdrager', 'overdrager-secret');
  await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: ['overdrager'],
    label: 'o',
    autorisaties: [{ component: 'zrc', scopes: ['zaken.overdragen'], zaaktype: bron.zaaktype, maxVertrouwelijkheidaanduiding: 'openbaar' }],
  });
  const overdrager = token('overdrager', 'overdrager-secret');
  const res = await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'zonder-koppeling' }, { token: overdrager });
  expect(res.statusCode).toBe(201);
  expect((await t.call('GET', res.json().url, undefined, { token: overdrager })).statusCode).toBe(403);
  await t.client('lezer', 'lezer-secret');
  await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: ['lezer'],
    label: 'l',
    autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: bron.zaaktype, maxVertrouwelijkheidaanduiding: 'openbaar' }],
  });
  const lezer = token('lezer', 'lezer-secret');
  expect((await t.call('GET', res.json().url, undefined, { token: lezer })).statusCode).toBe(200);
  const list = (await t.call('GET', `${OVERDRACHTEN}?zaak=${encodeURIComponent(zaak.url)}`, undefined, { token: lezer })).json();
  expect(list.results.map((o: any) => o.uuid)).toEqual([res.json().uuid]);
  // A reader of another zaaktype sees none of these transfers.
  await t.client('ander', 'ander-secret');
  await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: ['ander'],
    label: 'a',
    autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: doel.zaaktype, maxVertrouwelijkheidaanduiding: 'geheim' }],
  });
  const ander = token('ander', 'ander-secret');
  expect((await t.call('GET', OVERDRACHTEN, undefined, { token: ander })).json().count).toBe(0);
  expect((await t.call('GET', res.json().url, undefined, { token: ander })).statusCode).toBe(403);
  await until(res.json().url, ['geweigerd']);
});

describe('every refusal: status geweigerd, code and reason in the resource and in the reply, an INFO line, nothing made', () => {
  const refused = async (zaak: Record<string, any>, doelregistratie: string, code: string, reden: RegExp) => {
    const o = (await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie, antwoordUrl: ontvanger.url })).json();
    const done = await until(o.url, ['geweigerd', 'afgerond', 'mislukt']);
    expect(done).toMatchObject({ status: 'geweigerd', doelZaak: null, weigering: { code } });
    expect(done.weigering.reden).toMatch(reden);
    expect(ontvanger.voor(o.uuid)).toMatchObject({ status: 'geweigerd', weigering: { code } });
    expect(logs.of(zaak.identificatie).find((l) => l.weigering === code)).toMatchObject({
      level: 'info',
      overdracht: o.uuid,
      reden: done.weigering.reden,
    });
    expect(done.stappen.map((s: any) => s.stap)).not.toContain('doelzaak_aangemaakt');
  };
  const nieuweZaak = () =>
    createZ(t, 'zaken', {
      bronorganisatie: '000000000',
      verantwoordelijkeOrganisatie: '000000000',
      zaaktype: bron.zaaktype,
      startdatum: '2024-03-01',
    });

  test('zaaktype_niet_gekoppeld', async () => refused(await nieuweZaak(), 'zonder-koppeling', 'zaaktype_niet_gekoppeld', /BRON-1/), 120_000);
  test('doelzaaktype_ongeldig (not published)', async () => refused(await nieuweZaak(), 'concept', 'doelzaaktype_ongeldig', /DOEL-CONCEPT/), 120_000);
  test('doelzaaktype_ongeldig (not valid on the startdatum)', async () => {
    const zaak = await createZ(t, 'zaken', {
      bronorganisatie: '000000000',
      verantwoordelijkeOrganisatie: '000000000',
      zaaktype: bron.zaaktype,
      startdatum: '2019-06-01',
    });
    await refused(zaak, 'gemeente-b', 'doelzaaktype_ongeldig', /2019-06-01/);
  }, 120_000);
  test('document_vergrendeld', async () => {
    const zaak = await nieuweZaak();
    const doc = await t.call('POST', EIO, {
      bronorganisatie: '000000000',
      creatiedatum: '2024-03-01',
      titel: 'in bewerking',
      auteur: 'A',
      taal: 'dut',
      inhoud: Buffer.from('x').toString('base64'),
      informatieobjecttype: bron.iot,
    });
    await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: doc.json().url });
    await lock(t, doc.json().url);
    await refused(zaak, 'gemeente-b', 'document_vergrendeld', /vergrendeld/);
  }, 120_000);
});

test('a large document travels in bestandsdelen, streamed part by part, and arrives byte for byte; gebruiksrechten come along', async () => {
  const zaak = await createZ(t, 'zaken', {
    bronorganisatie: '000000000',
    verantwoordelijkeOrganisatie: '000000000',
    zaaktype: bron.zaaktype,
    startdatum: '2024-03-01',
  });
  const groot = randomBytes(2_600_000);
  const doc = await t.call('POST', EIO, {
    bronorganisatie: '000000000',
    creatiedatum: '2024-03-01',
    titel: 'plattegrond',
    auteur: 'A',
    taal: 'dut',
    bestandsnaam: 'plattegrond.bin',
    inhoud: groot.toString('base64'),
    informatieobjecttype: bron.iot,
  });
  expect(doc.statusCode).toBe(201);
  await createZ(t, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: doc.json().url });
  const recht = await t.call('POST', '/documenten/api/v1/gebruiksrechten', {
    informatieobject: doc.json().url,
    startdatum: '2024-03-01T00:00:00Z',
    omschrijvingVoorwaarden: 'alleen intern',
  });
  expect(recht.statusCode).toBe(201);
  const o = (await t.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'gemeente-b' })).json();
  const done = await until(o.url, ['afgerond', 'mislukt', 'geweigerd']);
  expect(done).toMatchObject({ status: 'afgerond', fout: '' });
  const [zio] = (await t.call('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(done.doelZaak)}`)).json();
  const copy = (await t.call('GET', zio.informatieobject)).json();
  expect(copy).toMatchObject({ bestandsomvang: groot.length, bestandsnaam: 'plattegrond.bin', locked: false, indicatieGebruiksrecht: true });
  expect(net.verzoeken.filter((v) => v.startsWith('PUT /documenten/api/v1/bestandsdelen/')).length).toBe(3);
  const download = await t.call('GET', `${zio.informatieobject}/download`);
  expect(createHash('sha256').update(download.rawPayload).digest('hex')).toBe(createHash('sha256').update(groot).digest('hex'));
  const rechten = (await t.call('GET', `/documenten/api/v1/gebruiksrechten?informatieobject=${encodeURIComponent(copy.url)}`)).json();
  expect(rechten.map((r: any) => r.omschrijvingVoorwaarden)).toEqual(['alleen intern']);
}, 150_000);

test('the Overdrachten API has its own OpenAPI document, generated from its schemas, and a page in the API reference', async () => {
  const doc = (await t.call('GET', '/overdrachten/api/v1/schema/openapi.json', undefined, { token: null })).json();
  expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/overdrachten', '/overdrachten/{uuid}', '/verzoeken']));
  expect(Object.keys(doc.paths['/overdrachten'])).toEqual(expect.arrayContaining(['get', 'post']));
  const schemas = JSON.stringify(doc);
  for (const word of ['overdracht_loopt_al', 'doelzaak_aangemaakt', 'geannuleerd', 'zaakIdentificatie']) expect(schemas).toContain(word);
  const page = await t.call('GET', '/api-referentie/overdrachten', undefined, { token: null });
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('/verzoeken');
});

test('a transfer asked while Temporal cannot be reached is answered at once, stays ontvangen, and is started by the sweep', async () => {
  // A second instance on the same data whose Temporal address answers nothing.
  const cut = await startApp(
    {
      REFERENTIELIJSTEN_URL: sl.url,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
      PUBLIC_BASE_URL: t.config.PUBLIC_BASE_URL,
      TRANSFER_TASK_QUEUE: t.config.TRANSFER_TASK_QUEUE,
    },
    { shareWith: t },
  );
  try {
    const zaak = await createZ(t, 'zaken', {
      bronorganisatie: '000000000',
      verantwoordelijkeOrganisatie: '000000000',
      zaaktype: bron.zaaktype,
      startdatum: '2024-03-01',
    });
    const res = await cut.call('POST', OVERDRACHTEN, { zaak: zaak.url, doelregistratie: 'gemeente-b' });
    expect(res.statusCode).toBe(201);
    const o = res.json();
    expect(o.status).toBe('ontvangen');
    await new Promise((r) => setTimeout(r, 6000));
    expect((await overdracht(o.url)).status).toBe('ontvangen');
    // The sweep of the instance that reaches Temporal starts it (received more than 10 s ago, checked every 15 s).
    const done = await until(o.url, ['afgerond', 'mislukt', 'geweigerd']);
    expect(done.status).toBe('afgerond');
  } finally {
    // the shared database is t's: close only the other app's own resources
    await cut.relay.stop();
    await cut.app.close();
    await cut.mongo.client.close();
  }
}, 120_000);
