import { randomUUID } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import type { Consumer } from 'kafkajs';
import {
  AUDIT_EXCLUSIONS_SETTING,
  AUDIT_READS_COLLECTION,
  AUDIT_READS_TOPIC,
  EVENT_ID_HEADER,
  createKafka,
  ensureTopics,
  shownObjects,
  topicName,
  type ReadEntry,
} from '@zgw/shared';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';
import { EIO, createEio, eioBody, informatieobjecttype } from './documenten.fixtures';

// Every successful read of zaken (detail, list, _zoek) leaves a read entry on Kafka topic audit-reads, with no BSN in
// it; reads by excluded client ids (environment, or the administrator's list that every instance follows) leave none.
// An instance's entries arrive in the order of its reads, so a marker read tells that everything before it arrived.
const BSN = '111222333';
const ADMIN_AUDIT = '/admin/api/v1/audit';
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
let consumer: Consumer;
const received: { id: string; entry: ReadEntry }[] = [];
const others: TestApp[] = [];

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({
    REFERENTIELIJSTEN_URL: sl.url,
    AUDIT_EXCLUDE_CLIENT_IDS: 'batch.*, *-SYNC ,Nachtelijke-Export',
    AUDIT_SETTINGS_POLL_MS: '200',
  });
  s = await zaaktypeMetOnderdelen(t, sl);
  const kafka = createKafka(t.config.KAFKA_BROKERS, 'audit-reads-test');
  await ensureTopics(kafka, t.topicPrefix, [AUDIT_READS_TOPIC]);
  consumer = kafka.consumer({ groupId: `${t.topicPrefix}audit-reads-test` });
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(t.topicPrefix, AUDIT_READS_TOPIC), fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) =>
      void received.push({ id: message.headers![EVENT_ID_HEADER]!.toString(), entry: JSON.parse(message.value!.toString()) as ReadEntry }),
  });
});
afterAll(async () => {
  await consumer?.disconnect();
  for (const o of others) await closeShared(o);
  await t.close();
  await sl.close();
});

/** Closes an instance that shares the first one's database without dropping it. */
async function closeShared(o: TestApp): Promise<void> {
  await o.relay.stop();
  await o.app.close();
  await o.mongo.client.close();
  rmSync(o.config.AUDIT_SPOOL_DIR, { recursive: true, force: true });
}

const tokens = new Map<string, string>();
/** A client with every right (its token carries a user). */
async function as(clientId: string, user = { user_id: 'u-1', user_representation: 'Gebruiker' }): Promise<string> {
  if (!tokens.has(clientId)) {
    await t.client(clientId, `${clientId}-secret`);
    const res = await t.call('POST', '/autorisaties/api/v1/applicaties', { clientIds: [clientId], label: clientId, heeftAlleAutorisaties: true });
    if (res.statusCode !== 201) throw new Error(res.body);
    tokens.set(clientId, '');
  }
  return token(clientId, `${clientId}-secret`, user);
}

async function get(url: string, tok: string, on: TestApp = t, headers: Record<string, string> = {}) {
  const res = await on.call('GET', url, undefined, { token: tok, headers: { ...CRS, ...headers } });
  if (res.statusCode >= 400) throw new Error(`GET ${url}: ${res.statusCode} ${res.body}`);
  return res;
}

let markerZaak: string | undefined;
/**
 * The entries `on` recorded since `from` (an index into `received`), up to a marker read made now on the same
 * instance: once the marker's entry has arrived, every entry recorded before it has too.
 */
async function since(from: number, on: TestApp = t): Promise<ReadEntry[]> {
  const zaakUrl = (markerZaak ??= String((await createZ(t, 'zaken', zaakBody(s.zaaktype))).url));
  const marker = `marker-${randomUUID()}`;
  await get(zaakUrl, await as('marker', { user_id: marker, user_representation: 'marker' }), on);
  expect(await eventually(async () => received.some((r) => r.entry.gebruikersId === marker), 60_000)).toBe(true);
  const at = received.findIndex((r) => r.entry.gebruikersId === marker);
  return received.slice(from, at).map((r) => r.entry);
}

describe('read entries', () => {
  it('records a detail read of a zaak and of a part: who, what, its hoofdObject; a 304 too', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const status = await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-02T10:00:00' });
    const from = received.length;
    const tok = await as('zaaksysteem', { user_id: 'u-42', user_representation: 'A. Jansen' });
    const before = new Date().toISOString();
    const first = await get(zaak.url, tok);
    await get(status.url, tok);
    expect(
      (await t.call('GET', zaak.url, undefined, { token: tok, headers: { ...CRS, 'if-none-match': first.headers.etag as string } })).statusCode,
    ).toBe(304);
    const entries = await since(from);
    const who = {
      bron: 'ZRC',
      clientId: 'zaaksysteem',
      applicatieWeergave: 'zaaksysteem',
      gebruikersId: 'u-42',
      gebruikersWeergave: 'A. Jansen',
      actie: 'retrieve',
      tenant: t.config.ZGW_DEFAULT_TENANT,
    };
    const path = (url: string) => new URL(url).pathname;
    const one = (resource: string, url: string) => ({
      resourceUrl: url,
      hoofdObject: zaak.url,
      hoofdObjecten: [zaak.url],
      // the zaak is its own main object: named by its index alone
      getoond: [url === zaak.url ? 0 : [resource, url, 0]],
    });
    expect(entries).toEqual([
      {
        ...who,
        uuid: expect.any(String),
        aanmaakdatum: expect.any(String),
        resource: 'zaak',
        request: path(zaak.url),
        ...one('zaak', zaak.url),
        resultaat: 200,
      },
      {
        ...who,
        uuid: expect.any(String),
        aanmaakdatum: expect.any(String),
        resource: 'status',
        request: path(status.url),
        ...one('status', status.url),
        resultaat: 200,
      },
      {
        ...who,
        uuid: expect.any(String),
        aanmaakdatum: expect.any(String),
        resource: 'zaak',
        request: path(zaak.url),
        ...one('zaak', zaak.url),
        resultaat: 304,
      },
    ]);
    // The event id is the entry's uuid; the time is when it was read.
    for (const e of entries) {
      expect(received.find((r) => r.entry.uuid === e.uuid)!.id).toBe(e.uuid);
      expect(e.aanmaakdatum >= before && e.aanmaakdatum <= new Date().toISOString()).toBe(true);
    }
    expect(new Set(entries.map((e) => e.uuid)).size).toBe(3);
  });

  it('records lists with their query and how many results they matched', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    for (const [st, at] of [
      [s.statustypen.begin, '2024-03-02T10:00:00'],
      [s.statustypen.eind, '2024-03-03T10:00:00'],
    ] as const) {
      await createZ(t, 'statussen', { zaak: zaak.url, statustype: st, datumStatusGezet: at });
    }
    await createZ(t, `${zaak.url}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: s.eigenschap, waarde: 'rood' });
    const from = received.length;
    const tok = await as('zaaksysteem');
    const zaken = await get(`${ZRC}/zaken?zaaktype=${encodeURIComponent(s.zaaktype)}&ordering=-startdatum`, tok);
    const statussen = await get(`${ZRC}/statussen?zaak=${encodeURIComponent(zaak.url)}`, tok);
    await get(`${zaak.url}/zaakeigenschappen`, tok);
    const entries = await since(from);
    expect(entries.map((e) => [e.actie, e.resource, e.aantal, e.hoofdObject])).toEqual([
      ['list', 'zaak', zaken.json().count, undefined],
      ['list', 'status', 2, zaak.url],
      ['list', 'zaakeigenschap', 1, zaak.url],
    ]);
    expect(zaken.json().count).toBeGreaterThanOrEqual(2);
    expect(statussen.json().count).toBe(2);
    expect(entries[0]!.request).toBe(`${ZRC}/zaken?zaaktype=${encodeURIComponent(s.zaaktype)}&ordering=-startdatum`);
    expect(entries[1]).not.toHaveProperty('resourceUrl');
    // every object a list showed, each under its main object (the trail that shows the read)
    const shown = (e: ReadEntry) => shownObjects(e)!.map(([resource, url, i]) => [resource, url, e.hoofdObjecten![i]]);
    expect(shown(entries[0]!)).toEqual(zaken.json().results.map((z: { url: string }) => ['zaak', z.url, z.url]));
    // each zaak of the list is its own main object: its URL is in the entry once, in hoofdObjecten
    expect(entries[0]!.getoond).toEqual(entries[0]!.hoofdObjecten!.map((_, i) => i));
    expect(shown(entries[1]!)).toEqual(statussen.json().results.map((x: { url: string }) => ['status', x.url, zaak.url]));
    expect(entries[1]!.hoofdObjecten).toEqual([zaak.url]);
  });

  it('records _zoek with its filters and lists filtered on a BSN or A-nummer, the identifier never in the entry', async () => {
    const A_NUMMER = '2345678901';
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    await createZ(t, 'rollen', {
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'natuurlijk_persoon',
      roltoelichting: 't',
      betrokkeneIdentificatie: { inpBsn: BSN, inpA_nummer: A_NUMMER, geslachtsnaam: 'Jansen' },
    });
    const from = received.length;
    const tok = await as('zaaksysteem');
    const filter = 'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn';
    const zoek = await t.call('POST', `${ZRC}/zaken/_zoek`, { [filter]: BSN, zaaktype: s.zaaktype, expand: 'rollen' }, { token: tok, headers: CRS });
    expect(zoek.statusCode).toBe(200);
    expect(zoek.json().count).toBe(1);
    await get(`${ZRC}/zaken?${filter}=${BSN}`, tok);
    await get(`${ZRC}/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=${[...BSN].map((d) => `%3${d}`).join('')}`, tok);
    await get(`${zaak.url}?expand=rollen`, tok);
    await get(`${ZRC}/rollen?betrokkeneIdentificatie__natuurlijkPersoon__inpA_nummer=${A_NUMMER}`, tok);
    const entries = await since(from);
    expect(entries.map((e) => [e.actie, e.resource, e.aantal])).toEqual([
      ['zoek', 'zaak', 1],
      ['list', 'zaak', 1],
      ['list', 'rol', 1],
      ['retrieve', 'zaak', undefined],
      ['list', 'rol', 1],
    ]);
    expect(entries[0]).toMatchObject({ request: `${ZRC}/zaken/_zoek`, zoek: { [filter]: '*********', zaaktype: s.zaaktype, expand: 'rollen' } });
    // what the expand showed is in the entry too: the zaak, then its rol
    const rol = zoek.json().results[0]._expand.rollen[0].url;
    expect(entries[0]!.getoond).toEqual([0, ['rol', rol, 0]]);
    expect(entries[3]!.getoond).toEqual([0, ['rol', rol, 0]]);
    expect(entries[0]!.hoofdObjecten).toEqual([zaak.url]);
    expect(entries[1]!.request).toBe(`${ZRC}/zaken?${filter}=*********`);
    expect(entries[2]!.request).toMatch(/inpBsn=\*+$/);
    expect(entries[4]!.request).toMatch(/inpA_nummer=\*+$/);
    for (const id of [BSN, A_NUMMER])
      expect(entries.filter((e) => JSON.stringify(e).includes(id) || decodeURIComponent(JSON.stringify(e)).includes(id))).toEqual([]);
  });

  it('records the reads of documents too: detail, download and list (bron DRC)', async () => {
    const eio = await createEio(t, eioBody(await informatieobjecttype(t)));
    const from = received.length;
    const tok = await as('zaaksysteem');
    await get(eio.url, tok);
    const download = await get(`${eio.url}/download`, tok);
    expect(download.body).toBe('hallo wereld');
    await get(`${EIO}?bronorganisatie=000000000`, tok);
    const entries = await since(from);
    expect(entries.map((e) => [e.bron, e.actie, e.resource, e.resourceUrl, e.hoofdObject])).toEqual([
      ['DRC', 'retrieve', 'enkelvoudiginformatieobject', eio.url, eio.url],
      ['DRC', 'download', 'enkelvoudiginformatieobject', eio.url, eio.url],
      ['DRC', 'list', 'enkelvoudiginformatieobject', undefined, undefined],
    ]);
    expect(entries[1]!.request).toBe(`${new URL(eio.url).pathname}/download`);
    expect(entries[2]!.aantal).toBeGreaterThanOrEqual(1);
  });

  it('records no HEAD, no failed read, no audit trail read and no write', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const from = received.length;
    const tok = await as('zaaksysteem');
    expect((await t.call('HEAD', zaak.url, undefined, { token: tok, headers: CRS })).statusCode).toBe(200);
    expect((await t.call('GET', `${ZRC}/zaken/${randomUUID()}`, undefined, { token: tok, headers: CRS })).statusCode).toBe(404);
    expect((await t.call('GET', `${zaak.url}/audittrail`, undefined, { token: tok })).statusCode).toBe(200);
    expect((await t.call('PATCH', zaak.url, { omschrijving: 'anders' }, { token: tok, headers: CRS })).statusCode).toBe(200);
    expect(await since(from)).toEqual([]);
  });
});

describe('exclusions', () => {
  it('records no reads by client ids on AUDIT_EXCLUDE_CLIENT_IDS: exact or with *, whole id, any case', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const from = received.length;
    for (const clientId of ['batch.nacht', 'Archief-Sync', 'NACHTELIJKE-export', 'batchXnacht', 'archief-sync-2', 'nachtelijke-export-2']) {
      await get(zaak.url, await as(clientId), t);
    }
    expect((await since(from)).map((e) => e.clientId)).toEqual(['batchXnacht', 'archief-sync-2', 'nachtelijke-export-2']);
  });

  it("follows the administrator's list at once on this instance, within a poll on another, and after a restart", async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const other = await startApp({ AUDIT_EXCLUDE_CLIENT_IDS: '', AUDIT_SETTINGS_POLL_MS: '200' }, { shareWith: t });
    others.push(other);
    expect(await eventually(async () => (await other.call('GET', '/')).statusCode === 200)).toBe(true);
    const lezer = await as('lezer-2');
    let from = received.length;
    await get(zaak.url, lezer, other);
    expect((await since(from, other)).map((e) => e.clientId)).toEqual(['lezer-2']);

    const put = await t.call('PUT', `${ADMIN_AUDIT}/exclusions`, { clientIds: [' Lezer-* ', 'rapportage', 'rapportage'] });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ clientIds: ['Lezer-*', 'rapportage'], updatedBy: 'test-admin', bron: 'beheer' });
    expect(await t.mongo.db.collection('settings').findOne({ _id: AUDIT_EXCLUSIONS_SETTING as never })).toMatchObject({
      clientIds: ['Lezer-*', 'rapportage'],
      updatedBy: 'test-admin',
      updatedAt: expect.any(String),
    });

    // This instance at once: the stored list replaces the environment's (batch.* no longer excluded).
    from = received.length;
    await get(zaak.url, lezer, t);
    await get(zaak.url, await as('batch.nacht'), t);
    expect((await since(from)).map((e) => e.clientId)).toEqual(['batch.nacht']);

    // The other instance within its poll.
    expect(await eventually(async () => other.deps.reads!.excluded('lezer-2'))).toBe(true);
    from = received.length;
    await get(zaak.url, lezer, other);
    await get(zaak.url, await as('zaaksysteem'), other);
    expect((await since(from, other)).map((e) => e.clientId)).toEqual(['zaaksysteem']);

    // A new instance (a restart) starts with the stored list, whatever its environment says.
    const restarted = await startApp({ AUDIT_EXCLUDE_CLIENT_IDS: 'zaaksysteem', AUDIT_SETTINGS_POLL_MS: '60000' }, { shareWith: t });
    others.push(restarted);
    const shown = await restarted.call('GET', `${ADMIN_AUDIT}/exclusions`);
    expect(shown.json()).toMatchObject({ clientIds: ['Lezer-*', 'rapportage'], bron: 'beheer' });
    from = received.length;
    await get(zaak.url, await as('LEZER-3'), restarted);
    await get(zaak.url, await as('rapportage'), restarted);
    await get(zaak.url, await as('zaaksysteem'), restarted);
    expect((await since(from, restarted)).map((e) => e.clientId)).toEqual(['zaaksysteem']);

    // DELETE returns to the environment's list.
    expect((await t.call('DELETE', `${ADMIN_AUDIT}/exclusions`)).statusCode).toBe(204);
    expect((await t.call('GET', `${ADMIN_AUDIT}/exclusions`)).json()).toEqual({
      clientIds: ['batch.*', '*-SYNC', 'Nachtelijke-Export'],
      bron: 'AUDIT_EXCLUDE_CLIENT_IDS',
      updatedAt: null,
      updatedBy: null,
    });
    from = received.length;
    await get(zaak.url, await as('batch.nacht'), t);
    await get(zaak.url, lezer, t);
    expect((await since(from)).map((e) => e.clientId)).toEqual(['lezer-2']);
  });

  it('refuses bad exclusion lists and non-administrators with a ZGW error', async () => {
    const put = (body: unknown, tok?: string) => t.call('PUT', `${ADMIN_AUDIT}/exclusions`, body, tok ? { token: tok } : {});
    const invalid = async (body: unknown, name: string, code?: string) => {
      const res = await put(body);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      const problem = res.json();
      expect(problem).toMatchObject({ status: 400, code: 'invalid', title: expect.any(String), instance: expect.stringMatching(/^urn:uuid:/) });
      expect(problem.invalidParams).toEqual(expect.arrayContaining([expect.objectContaining({ name, ...(code ? { code } : {}) })]));
    };
    await invalid({}, 'clientIds', 'required');
    await invalid({ clientIds: 'batch.*' }, 'clientIds', 'not_a_list');
    await invalid({ clientIds: ['ok', '  '] }, 'clientIds.1', 'blank');
    await invalid({ clientIds: [42] }, 'clientIds.0');
    await invalid({ clientIds: ['a,b'] }, 'clientIds.0');
    await invalid({ clientIds: ['x'.repeat(256)] }, 'clientIds.0', 'max_length');
    await invalid({ clientIds: Array.from({ length: 501 }, (_, i) => `c${i}`) }, 'clientIds', 'max_length');
    await invalid([], 'nonFieldErrors');
    expect((await put({ clientIds: ['x'] }, await as('zaaksysteem'))).statusCode).toBe(200); // all rights: an administrator
    await t.client('alleen-lezen', 'alleen-lezen-secret');
    await t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: ['alleen-lezen'],
      label: 'l',
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'geheim' }],
    });
    const reader = token('alleen-lezen', 'alleen-lezen-secret');
    expect((await put({ clientIds: [] }, reader)).statusCode).toBe(403);
    expect((await t.call('GET', `${ADMIN_AUDIT}/exclusions`, undefined, { token: reader })).statusCode).toBe(403);
    expect((await t.call('GET', `${ADMIN_AUDIT}/reads?clientId=x`, undefined, { token: reader })).statusCode).toBe(403);
    expect((await t.call('GET', `${ADMIN_AUDIT}/exclusions`, undefined, { token: null })).statusCode).toBe(401);
    // Nothing bad was stored.
    expect((await t.mongo.db.collection('settings').findOne({ _id: AUDIT_EXCLUSIONS_SETTING as never }))?.clientIds).toEqual(['x']);
    expect((await t.call('DELETE', `${ADMIN_AUDIT}/exclusions`)).statusCode).toBe(204);
  });
});

describe("the auditor's list of reads", () => {
  it("lists one client's reads, or one zaak's, in a period, oldest first, page by page", async () => {
    const coll = t.mongo.db.collection(AUDIT_READS_COLLECTION);
    const start = Date.parse('2024-01-01T00:00:00.000Z');
    const entry = (i: number, clientId: string, hoofdObject: string) => {
      const uuid = randomUUID();
      return {
        _id: uuid,
        uuid,
        bron: 'ZRC',
        clientId,
        gebruikersId: 'u',
        gebruikersWeergave: 'U',
        actie: 'retrieve',
        resource: 'zaak',
        request: '/x',
        resourceUrl: hoofdObject,
        hoofdObject,
        hoofdObjecten: [hoofdObject],
        getoond: [['zaak', hoofdObject, 0]],
        resultaat: 200,
        aanmaakdatum: new Date(start + i * 60_000).toISOString(),
        _tenant: t.config.ZGW_DEFAULT_TENANT,
      };
    };
    const zaakA = `${ZRC}/zaken/${randomUUID()}`;
    // As services/audit stores them: 150 reads by `auditee` (every other one of zaak A), 30 by someone else of zaak A.
    await coll.insertMany([
      ...Array.from({ length: 150 }, (_, i) => entry(i, 'auditee', i % 2 ? `${ZRC}/zaken/${randomUUID()}` : zaakA)),
      ...Array.from({ length: 30 }, (_, i) => entry(i, 'iemand-anders', zaakA)),
    ] as never[]);
    const list = async (query: string) => {
      const res = await t.call('GET', `${ADMIN_AUDIT}/reads?${query}`);
      expect(res.statusCode).toBe(200);
      return res.json() as { count: number; next: string | null; previous: string | null; results: (ReadEntry & { _id?: string })[] };
    };
    const first = await list('clientId=auditee&vanaf=2024-01-01T00:10:00Z&tot=2024-01-01T02:10:00%2B00:00');
    expect(first.count).toBe(120);
    expect(first.results).toHaveLength(100);
    expect(first.results[0]).toMatchObject({ clientId: 'auditee', aanmaakdatum: '2024-01-01T00:10:00.000Z' });
    expect(first.results[0]).not.toHaveProperty('_id');
    const second = await list(first.next!.split('?')[1]!);
    expect(second.results.map((r) => r.aanmaakdatum)).toEqual(
      Array.from({ length: 20 }, (_, i) => new Date(start + (110 + i) * 60_000).toISOString()),
    );
    expect(second.next).toBeNull();
    expect(new Set([...first.results, ...second.results].map((r) => r.uuid)).size).toBe(120);

    const ofZaak = await list(`hoofdObject=${encodeURIComponent(zaakA)}&tot=2024-01-01T00:20:00Z`);
    expect(ofZaak.count).toBe(10 + 20); // auditee's 0, 2, ..., 18 and the other client's 0..19
    expect(ofZaak.results.map((r) => r.aanmaakdatum)).toEqual([...ofZaak.results.map((r) => r.aanmaakdatum)].sort());
    expect((await list('clientId=auditee&vanaf=2025-01-01')).count).toBe(0);
  });

  it('serves the reads that reached the trail, and refuses a query without one client or one object', async () => {
    // The entries of real reads, stored as services/audit stores what it receives.
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const from = received.length;
    await get(zaak.url, await as('zaaksysteem'));
    await get(`${ZRC}/statussen?zaak=${encodeURIComponent(zaak.url)}`, await as('zaaksysteem'));
    const entries = await since(from);
    expect(entries).toHaveLength(2);
    for (const e of entries)
      await t.mongo.db
        .collection(AUDIT_READS_COLLECTION)
        .updateOne({ _id: e.uuid as never }, { $setOnInsert: { ...e, _tenant: e.tenant } }, { upsert: true });
    const res = await t.call('GET', `${ADMIN_AUDIT}/reads?hoofdObject=${encodeURIComponent(zaak.url)}`);
    expect(res.json().results.map((r: ReadEntry) => [r.actie, r.uuid])).toEqual([['retrieve', entries[0]!.uuid]]);

    for (const q of [
      '',
      'vanaf=2024-01-01',
      `clientId=a&hoofdObject=${encodeURIComponent(zaak.url)}`,
      'clientId=a&vanaf=gisteren',
      'clientId=a&vanaf=2024-02-01&tot=2024-01-01',
    ]) {
      const bad = await t.call('GET', `${ADMIN_AUDIT}/reads?${q}`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'invalid', invalidParams: expect.any(Array) });
    }
  });
});

describe('AUDIT_READS=off', () => {
  it('writes no spool at all', async () => {
    const off = await startApp({ AUDIT_READS: 'off' }, { shareWith: t });
    others.push(off);
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    await get(zaak.url, await as('zaaksysteem'), off);
    await get(`${ZRC}/zaken`, await as('zaaksysteem'), off);
    expect(off.deps.reads!.spoolDir).toBeUndefined();
    expect(
      (() => {
        try {
          return readdirSync(off.config.AUDIT_SPOOL_DIR);
        } catch {
          return [];
        }
      })(),
    ).toEqual([]);
  });
});
