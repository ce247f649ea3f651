import { AUDIT_TOPIC, AUDITTRAIL_COLLECTION, EVENT_ID_HEADER, createKafka, topicName, type AuditEntry } from '@zgw/shared';
import type { Consumer } from 'kafkajs';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { eventually, startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

// Every write of a zaak and its parts leaves an audit trail entry: stored with the write's outbox (so it reaches the
// audit service through Kafka even if the API stops right after the write) and in the trail at once (read-your-writes).
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
let consumer: Consumer;
const published = new Map<string, { key: string; entry: AuditEntry }>();

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
  await t.client('audit-writer', 'audit-writer-secret');
  const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: ['audit-writer'],
    label: 'Zaaksysteem Noord',
    heeftAlleAutorisaties: true,
  });
  expect(res.statusCode).toBe(201);
  consumer = createKafka(t.config.KAFKA_BROKERS, 'audit-test').consumer({ groupId: `${t.topicPrefix}audit-test` });
  await consumer.connect();
  await consumer.subscribe({ topic: topicName(t.topicPrefix, AUDIT_TOPIC), fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const entry = JSON.parse(message.value!.toString()) as AuditEntry;
      published.set(message.headers![EVENT_ID_HEADER]!.toString(), { key: message.key!.toString(), entry });
    },
  });
});
afterAll(async () => {
  await consumer?.disconnect();
  await t.close();
  await sl.close();
});

const writer = token('audit-writer', 'audit-writer-secret', { user_id: 'u-123', user_representation: 'J. de Vries' });
const send = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  t.call(method, url, body, { token: writer, headers: { ...CRS, ...headers } });
const trail = async (zaakUrl: string) => {
  const res = await t.call('GET', `${zaakUrl}/audittrail`);
  expect(res.statusCode).toBe(200);
  return res.json() as AuditEntry[];
};

describe('audit trail of zaken: writes', () => {
  it('shows the trail of a zaak only to a client with audittrails.lezen for its zaaktype and vertrouwelijkheidaanduiding', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { vertrouwelijkheidaanduiding: 'openbaar' }));
    const geheim = await createZ(t, 'zaken', zaakBody(s.zaaktype, { vertrouwelijkheidaanduiding: 'geheim' }));
    const client = async (clientId: string, scopes: string[], zaaktype: string) => {
      await t.client(clientId, `${clientId}-secret`);
      const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
        clientIds: [clientId],
        label: clientId,
        autorisaties: [{ component: 'zrc', scopes, zaaktype, maxVertrouwelijkheidaanduiding: 'zaakvertrouwelijk' }],
      });
      expect(res.statusCode).toBe(201);
      return token(clientId, `${clientId}-secret`);
    };
    const [entry] = await trail(zaak.url);
    const reader = await client('zrc-trail-reader', ['zaken.lezen'], s.zaaktype);
    const auditor = await client('zrc-trail-auditor', ['zaken.lezen', 'audittrails.lezen'], s.zaaktype);
    const elsewhere = await client(
      'zrc-trail-elsewhere',
      ['zaken.lezen', 'audittrails.lezen'],
      `${s.zaaktype.slice(0, -36)}00000000-0000-4000-8000-000000000000`,
    );
    for (const url of [`${zaak.url}/audittrail`, `${zaak.url}/audittrail/${entry!.uuid}`]) {
      expect((await t.call('GET', url, undefined, { token: reader })).statusCode).toBe(403);
      expect((await t.call('GET', url, undefined, { token: auditor })).statusCode).toBe(200);
    }
    // Another zaaktype, or above the client's maxVertrouwelijkheidaanduiding: no trail either.
    expect((await t.call('GET', `${zaak.url}/audittrail`, undefined, { token: elsewhere })).statusCode).toBe(403);
    expect((await t.call('GET', `${geheim.url}/audittrail`, undefined, { token: auditor })).statusCode).toBe(403);
  });

  it('records a create with every field of the standard, visible in the trail right after the write', async () => {
    const res = await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype), { 'x-audit-toelichting': 'Aangemaakt na telefonische melding' });
    expect(res.statusCode).toBe(201);
    const zaak = res.json();
    const [entry, ...rest] = await trail(zaak.url);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      bron: 'zrc',
      applicatieId: 'audit-writer',
      applicatieWeergave: 'Zaaksysteem Noord',
      gebruikersId: 'u-123',
      gebruikersWeergave: 'J. de Vries',
      actie: 'create',
      actieWeergave: 'Object aangemaakt',
      resultaat: 201,
      hoofdObject: zaak.url,
      resource: 'zaak',
      resourceUrl: zaak.url,
      toelichting: 'Aangemaakt na telefonische melding',
      resourceWeergave: zaak.identificatie,
    });
    expect(entry!.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(entry!.aanmaakdatum))).toBe(false);
    expect(entry!.wijzigingen).not.toHaveProperty('oud');
    expect(entry!.wijzigingen.nieuw).toMatchObject({ url: zaak.url, identificatie: zaak.identificatie, omschrijving: 'Melding' });
    const detail = await t.call('GET', `${zaak.url}/audittrail/${entry!.uuid}`);
    expect(detail.statusCode).toBe(200);
    expect(detail.json()).toEqual(entry);
  });

  it('records updates with the old and new state, and part writes under their zaak, in order', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    expect((await send('PATCH', zaak.url, { omschrijving: 'Gewijzigd' })).statusCode).toBe(200);
    const rol = await send('POST', `${ZRC}/rollen`, {
      zaak: zaak.url,
      betrokkeneType: 'natuurlijk_persoon',
      roltype: s.roltype,
      roltoelichting: 'x',
      betrokkeneIdentificatie: { geslachtsnaam: 'Jansen' },
    });
    expect(rol.statusCode).toBe(201);
    expect((await send('DELETE', rol.json().url)).statusCode).toBe(204);

    const entries = await trail(zaak.url);
    expect(entries.map((e) => [e.actie, e.resource, e.resultaat])).toEqual([
      ['create', 'zaak', 201],
      ['partial_update', 'zaak', 200],
      ['create', 'rol', 201],
      ['destroy', 'rol', 204],
    ]);
    const [, patch, rolCreate, rolDelete] = entries;
    expect(patch!.wijzigingen.oud).toMatchObject({ omschrijving: 'Melding' });
    expect(patch!.wijzigingen.nieuw).toMatchObject({ omschrijving: 'Gewijzigd' });
    expect(patch!.actieWeergave).toBe('Object deels bijgewerkt');
    expect(rolCreate!.hoofdObject).toBe(zaak.url);
    expect(rolCreate!.resourceUrl).toBe(rol.json().url);
    expect(rolDelete!.wijzigingen.oud).toMatchObject({ url: rol.json().url });
    expect(rolDelete!.wijzigingen).not.toHaveProperty('nieuw');
    expect(rolDelete!.actieWeergave).toBe('Object verwijderd');
  });

  it('records the deletion of a zaak and of each part it takes along', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    await createZ(t, 'rollen', {
      zaak: zaak.url,
      betrokkeneType: 'natuurlijk_persoon',
      roltype: s.roltype,
      roltoelichting: 'x',
      betrokkeneIdentificatie: { geslachtsnaam: 'Jansen' },
    });
    expect((await send('DELETE', zaak.url)).statusCode).toBe(204);
    const entries = await t.mongo.db
      .collection<AuditEntry>(AUDITTRAIL_COLLECTION)
      .find({ hoofdObject: zaak.url })
      .sort({ aanmaakdatum: 1 })
      .toArray();
    expect(entries.map((e) => [e.actie, e.resource])).toEqual([
      ['create', 'zaak'],
      ['create', 'rol'],
      ['destroy', 'zaak'],
      ['destroy', 'rol'],
    ]);
    expect(entries.slice(2).every((e) => e.applicatieId === 'audit-writer')).toBe(true);
  });

  it('publishes each entry to the audit topic with its uuid as event id, keyed by the hoofdObject', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const [entry] = await trail(zaak.url);
    expect(await eventually(async () => published.has(entry!.uuid))).toBe(true);
    const { key, entry: sent } = published.get(entry!.uuid)!;
    expect(key).toBe(zaak.url);
    // as stored, which the trail shows in the standard's form (lower-case bron, no empty side of wijzigingen)
    expect(sent).toEqual(asStored(entry!));
  });

  it('keeps the entry in the written document until it is published, so a stop right after the write loses nothing', async () => {
    await t.relay.stop(); // nothing is published from now on, as if the process stopped after the write
    const res = await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype));
    expect(res.statusCode).toBe(201);
    const stored = await t.mongo.db.collection('zaken').findOne({ _id: res.json().uuid as never });
    const waiting = (stored!._outbox as { id: string; topic: string; payload: AuditEntry }[]).filter((e) => e.topic === AUDIT_TOPIC);
    expect(waiting).toHaveLength(1);
    const [entry] = await trail(res.json().url);
    expect(waiting[0]!.id).toBe(entry!.uuid);
    expect(waiting[0]!.payload).toEqual(asStored(entry!));
  });
});

/** A create's trail line as the entry that travels and is stored. */
const asStored = (line: AuditEntry): AuditEntry => ({
  ...line,
  bron: line.bron.toUpperCase() as AuditEntry['bron'],
  wijzigingen: { oud: null, nieuw: line.wijzigingen.nieuw },
});
