import { execFile, execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type { Admin } from 'kafkajs';
import type { Db } from 'mongodb';
import {
  AUDIT_READS_TOPIC,
  AUDIT_TOPIC,
  createKafka,
  createLogger,
  inTenant,
  loadConfig,
  PLATFORM_COLLECTIONS,
  platformDb,
  TENANT_FIELD,
  TENANT_HEADER,
  topicName,
  VERNIETIGINGSLIJSTEN_COLLECTION,
  vernietigingWorkflowId,
} from '@zgw/shared';
import { startAuditWorker, groupId as auditGroup, type AuditWorker } from '../../audit/src/worker';
import { startNotifier, type Notifier } from '../../notifier/src/worker';
import { PLATFORM_HOLDINGS, unhandledPlatformCollections } from '../src/admin/tenant-removal';
import { AdminSessions } from '../src/admin/ui/sessions';
import { AdminUsers } from '../src/admin/ui/users';
import { ensureAllRights } from '../src/bootstrap';
import { besluittypeBody, create, iotBody, publish, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { besluitBody, createB } from './besluiten.fixtures';
import { S3Inhoud } from '../src/components/documenten/inhoud-s3';
import { createEio, eioBody, informatieobjecttype } from './documenten.fixtures';
import { eventually, startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

/**
 * An organisation leaves (issue 62): two organisations with the same workload, then A is removed through the admin
 * endpoint; nothing in any collection of the database (listed at run time, so a collection added later is checked
 * too), in GridFS or in Temporal mentions A any more, and B's data is what it was. A third, C, is removed with the
 * command line tool, its catalogus exported first.
 */
const A = '123456782';
const B = '111222333';
const C = '100000009';
const UNKNOWN = '200000007';
const BSN = '999993653';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let t: TestApp;
let sl: Referentielijsten;
let receiver: Server;
let callbackUrl: string;
let notifier: Notifier;
let audit: AuditWorker;
let kafkaAdmin: Admin;
let temporal: Client;
const taskQueue = `test-remove-${Date.now()}`;

const tokenOf = (rsin: string) => token(`client-${rsin}`, `client-${rsin}-secret`);
const as = (rsin: string, app = t): TestApp => ({
  ...app,
  call: (method, url, body, opts = {}) => app.call(method, url, body, { ...opts, token: opts.token === undefined ? tokenOf(rsin) : opts.token }),
});

interface Workload {
  rsin: string;
  /** Objects of the tenant a client reads (each must stay readable with the same body, for B). */
  urls: string[];
  zaak: string;
  catalogus: string;
  abonnement: string;
  workflows: string[];
}

async function tenant(rsin: string, naam: string, app = t): Promise<void> {
  expect((await app.call('POST', '/admin/api/v1/tenants', { rsin, naam })).statusCode).toBe(201);
  const client = `client-${rsin}`;
  expect((await app.call('POST', '/admin/api/v1/credentials', { identifier: client, secret: `${client}-secret`, tenant: rsin })).statusCode).toBe(
    201,
  );
  await ensureAllRights(app.deps.db, client, rsin);
}

/** Everything an organisation does: zaken with rollen and statussen, catalogi, documents with content, besluiten, ... */
async function workload(rsin: string): Promise<Workload> {
  const app = as(rsin);
  const uuid = (url: string) => url.slice(url.lastIndexOf('/') + 1);
  // an abonnement first, so the notifications of what follows are delivered to it
  const abonnement = await app.call('POST', '/notificaties/api/v1/abonnement', {
    callbackUrl,
    auth: 'Bearer x',
    kanalen: [{ naam: 'zaken', filters: { bronorganisatie: rsin } }],
  });
  expect(abonnement.statusCode).toBe(201);
  await notifier.refresh();
  const s = await zaaktypeMetOnderdelen(app, sl);
  const own = { bronorganisatie: rsin, verantwoordelijkeOrganisatie: rsin };
  const zaak = await createZ(app, 'zaken', zaakBody(s.zaaktype, { ...own, identificatie: 'ZAAK-1' }));
  const rol = await createZ(app, 'rollen', {
    zaak: zaak.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'initiator',
    betrokkeneIdentificatie: { inpBsn: BSN },
  });
  const status = await createZ(app, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-01T10:00:00Z' });
  const catalogus = (await app.call('GET', s.zaaktype)).json().catalogus as string;
  const iot = await create(app, 'informatieobjecttypen', iotBody(catalogus, { omschrijving: 'bijlage' }));
  await publish(app, iot.url);
  await create(app, 'zaaktype-informatieobjecttypen', { zaaktype: s.zaaktype, informatieobjecttype: 'bijlage', volgnummer: 1, richting: 'inkomend' });
  const eio = await createEio(app, eioBody(iot.url, { bronorganisatie: rsin, identificatie: 'DOC-1' }));
  // a second version with new content: two files
  const lock = (await app.call('POST', `${eio.url}/lock`)).json().lock as string;
  const patched = await app.call('PATCH', eio.url, { inhoud: Buffer.from('tweede versie').toString('base64'), lock });
  expect(patched.statusCode).toBe(200);
  expect((await app.call('POST', `${eio.url}/unlock`, { lock })).statusCode).toBe(204);
  const zio = await createZ(app, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: eio.url });
  const gebruiksrecht = await app.call('POST', '/documenten/api/v1/gebruiksrechten', {
    informatieobject: eio.url,
    startdatum: '2024-03-01T00:00:00Z',
    omschrijvingVoorwaarden: 'geen',
  });
  expect(gebruiksrecht.statusCode).toBe(201);
  const bt = await create(app, 'besluittypen', besluittypeBody(catalogus, { omschrijving: 'vergunning', informatieobjecttypen: ['bijlage'] }));
  await publish(app, bt.url);
  const besluit = await createB(app, 'besluiten', besluitBody(bt.url, { verantwoordelijkeOrganisatie: rsin, identificatie: 'BESLUIT-1' }));
  const bio = await createB(app, 'besluitinformatieobjecten', { besluit: besluit.url, informatieobject: eio.url });
  // reads leave entries in the audit trail of reads
  for (const url of [zaak.url, eio.url, besluit.url]) expect((await app.call('GET', url, undefined, { headers: CRS })).statusCode).toBe(200);
  // its administrators' settings: audit read exclusions, an administrator of the screens with a session
  expect((await app.call('PUT', '/admin/api/v1/audit/exclusions', { clientIds: ['batch.*'] })).statusCode).toBe(200);
  await new AdminUsers(t.mongo.db).create(`beheer-${rsin}`, 'een wachtwoord van de beheerder', rsin);
  await new AdminSessions(t.mongo.db, 60_000, 60_000).create(`beheer-${rsin}`, { tenant: rsin, platform: false });
  // a transfer (its workflow runs: no worker serves this task queue) and an import (its workflow ended)
  const reg = await app.call('POST', '/admin/api/v1/doelregistraties', {
    naam: `elders-${rsin}`,
    route: 'intern',
    rsin: '000000000',
    catalogus,
    zaaktypen: [{ bron: 'ZT-1', doel: 'ZT-1' }],
    bron: 'openlaten',
  });
  expect(reg.statusCode).toBe(201);
  const overdracht = await app.call('POST', '/overdrachten/api/v1/overdrachten', {
    zaak: zaak.url,
    doelregistratie: `elders-${rsin}`,
    toelichting: 'vertrek',
  });
  expect(overdracht.statusCode).toBe(201);
  const run = await t.call(
    'POST',
    '/admin/api/v1/importen',
    { bron: 'http://127.0.0.1:9', clientId: 'bron', secret: 'bron-geheim' },
    { headers: { [TENANT_HEADER]: rsin } },
  );
  expect(run.statusCode).toBe(201);
  // a destruction list carried out (its record as the admin API keeps it; its workflow runs: no worker serves its queue)
  const lijst = randomUUID();
  const uitvoering = { workflowId: vernietigingWorkflowId(lijst), gestart: new Date(), door: `client-${rsin}` };
  await inTenant(rsin, () =>
    t.deps.db
      .collection<Record<string, unknown> & { _id: string }>(VERNIETIGINGSLIJSTEN_COLLECTION)
      .insertOne({ _id: lijst, naam: 'weg', status: 'bezig', uitvoering }),
  );
  await temporal.workflow.start('vernietigen', {
    taskQueue: `zonder-worker-${rsin}`,
    workflowId: uitvoering.workflowId,
    args: [{ lijst, tenant: rsin, hartslagSeconden: 5, gelijktijdig: 1 }],
  });
  const workflows = [`overdracht-${uuid(overdracht.json().url)}`, `import-${run.json().id}`, uitvoering.workflowId];
  expect(await eventually(async () => (await Promise.all(workflows.map(described))).every(Boolean), 30_000)).toBe(true);
  await temporal.workflow.getHandle(workflows[1]!).terminate('een beëindigde import');
  const urls = [zaak.url, rol.url, status.url, zio.url, eio.url, iot.url, catalogus, s.zaaktype, bt.url, besluit.url, bio.url, abonnement.json().url];
  return { rsin, urls, zaak: zaak.url, catalogus, abonnement: uuid(abonnement.json().url), workflows };
}

async function described(id: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(id).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Whether the audit worker has stored everything published so far (and nothing more arrives meanwhile). */
async function auditCaughtUp(): Promise<boolean> {
  const state = async () => {
    let behind = 0;
    let high = 0;
    for (const topic of [AUDIT_TOPIC, AUDIT_READS_TOPIC].map((x) => topicName(t.topicPrefix, x))) {
      const offsets = await kafkaAdmin.fetchTopicOffsets(topic);
      const [committed] = await kafkaAdmin.fetchOffsets({ groupId: auditGroup(t.topicPrefix), topics: [topic] });
      for (const p of offsets) {
        const c = Number(committed?.partitions.find((x) => x.partition === p.partition)?.offset ?? -1);
        behind += Math.max(0, Number(p.high) - Math.max(c, 0));
        high += Number(p.high);
      }
    }
    return { behind, high };
  };
  const first = await state();
  if (first.behind) return false;
  await new Promise((r) => setTimeout(r, 700));
  const second = await state();
  return !second.behind && second.high === first.high && (await platformDb(t.mongo.db).collection('outbox').countDocuments({})) === 0;
}

const quiet = async () => expect(await eventually(auditCaughtUp, 60_000)).toBe(true);

const collectionsOf = async (db: Db) => (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();

/**
 * What marks a tenant's data anywhere: its RSIN, the uuids of its documents (in every collection that carries the
 * tenant), its clients, administrators, import runs, workflows and content files.
 */
async function needlesOf(rsin: string, w: Workload | undefined): Promise<{ needles: string[]; files: string[] }> {
  const db = platformDb(t.mongo.db);
  const ids = new Set<string>([rsin, `client-${rsin}`, `beheer-${rsin}`, ...(w?.workflows ?? [])]);
  const files = new Set<string>();
  for (const name of await collectionsOf(db)) {
    if (name.startsWith('inhoud.')) continue;
    for (const d of await db
      .collection(name)
      .find({ [TENANT_FIELD]: rsin })
      .toArray()) {
      if (UUID.test(String(d._id))) ids.add(String(d._id));
      for (const f of [d._inhoud].flat()) if (typeof f === 'string') files.add(f);
    }
  }
  for (const r of await db.collection('importen').find({ tenant: rsin }).toArray()) ids.add(String(r._id));
  for (const f of files) ids.add(f);
  return { needles: [...ids], files: [...files] };
}

/** Per collection of the database now: the documents that mention the tenant (its field, or any needle in their JSON). */
async function mentions(rsin: string, marks: { needles: string[]; files: string[] }): Promise<Record<string, number>> {
  const db = platformDb(t.mongo.db);
  const out: Record<string, number> = {};
  for (const name of await collectionsOf(db)) {
    const coll = db.collection(name);
    if (name === 'inhoud.chunks') {
      out[name] = await coll.countDocuments({ files_id: { $in: marks.files as never[] } });
      continue;
    }
    let n = 0;
    for (const d of await coll.find({}).toArray()) {
      const text = JSON.stringify(d);
      if (d[TENANT_FIELD] === rsin || marks.needles.some((x) => text.includes(x))) n++;
    }
    out[name] = n;
  }
  return out;
}

const nonZero = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

let a: Workload;
let b: Workload;

beforeAll(async () => {
  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url, TRANSFER_TASK_QUEUE: taskQueue });
  const workers = loadConfig({
    ...process.env,
    MONGODB_DB: t.config.MONGODB_DB,
    KAFKA_TOPIC_PREFIX: t.topicPrefix,
    LOG_LEVEL: 'silent',
    NRC_REFRESH_MS: '300',
  });
  notifier = await startNotifier(workers, createLogger('notifier', 'silent'));
  audit = await startAuditWorker(workers, createLogger('audit', 'silent'));
  kafkaAdmin = createKafka(t.config.KAFKA_BROKERS, `test-remove-admin-${Date.now()}`).admin();
  await kafkaAdmin.connect();
  temporal = new Client({ connection: await Connection.connect({ address: t.config.TEMPORAL_ADDRESS }), namespace: t.config.TEMPORAL_NAMESPACE });
  await tenant(A, 'Gemeente A');
  await tenant(B, 'Gemeente B');
  a = await workload(A);
  b = await workload(B);
  // the notifier delivered to both abonnementen; the audit worker stored every entry
  const delivered = (w: Workload) => async () =>
    (await platformDb(t.mongo.db).collection('nrc_deliveries').countDocuments({ abonnement: w.abonnement, state: 'delivered' })) > 0;
  expect(await eventually(delivered(a), 30_000)).toBe(true);
  expect(await eventually(delivered(b), 30_000)).toBe(true);
}, 240_000);

afterAll(async () => {
  await notifier?.stop();
  await audit?.stop();
  await kafkaAdmin?.disconnect();
  await temporal?.connection.close();
  await t?.close();
  await sl?.close();
  receiver?.close();
});

describe('an organisation leaves', () => {
  it('knows, for every platform collection, how it keeps an organisation’s data', () => {
    expect(unhandledPlatformCollections()).toEqual([]);
    expect(Object.keys(PLATFORM_HOLDINGS).filter((n) => !PLATFORM_COLLECTIONS.has(n))).toEqual([]);
  });

  it('is for platform administrators only, refuses the default tenant, an unknown one, and erases nothing unconfirmed', async () => {
    const own = await as(A).call('DELETE', `/admin/api/v1/tenants/${A}`, { bevestig: A });
    expect([own.statusCode, own.json().code]).toEqual([403, 'platform-admin']);
    expect((await as(A).call('GET', `/admin/api/v1/tenants/${A}/export`)).statusCode).toBe(403);
    const standaard = await t.call('DELETE', `/admin/api/v1/tenants/${t.config.ZGW_DEFAULT_TENANT}`, { bevestig: t.config.ZGW_DEFAULT_TENANT });
    expect([standaard.statusCode, standaard.json().code]).toEqual([409, 'default-tenant']);
    for (const rsin of [UNKNOWN, '123456789', 'abc']) {
      const res = await t.call('DELETE', `/admin/api/v1/tenants/${rsin}`, { bevestig: rsin });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    const unconfirmed = await t.call('DELETE', `/admin/api/v1/tenants/${A}`);
    expect(unconfirmed.statusCode).toBe(400);
    expect(unconfirmed.json().invalidParams).toEqual([expect.objectContaining({ name: 'bevestig', code: 'required' })]);
    const typo = await t.call('DELETE', `/admin/api/v1/tenants/${A}`, { bevestig: B });
    expect(typo.json().invalidParams).toEqual([expect.objectContaining({ name: 'bevestig', code: 'invalid' })]);
    expect((await as(A).call('GET', a.zaak, undefined, { headers: CRS })).statusCode).toBe(200);
  });

  it('lists the catalogus exports to take first, each a ZIP', async () => {
    const res = await t.call('GET', `/admin/api/v1/tenants/${A}/export`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ rsin: A, naam: 'Gemeente A', headers: { [TENANT_HEADER]: A } });
    expect(body.catalogussen.map((c: { url: string }) => c.url)).toEqual([a.catalogus]);
    const zip = await t.call('GET', body.catalogussen[0].export, undefined, { headers: body.headers });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    expect(zip.rawPayload.subarray(0, 2).toString()).toBe('PK');
  });

  it('erases everything of A in every collection, GridFS and Temporal, and leaves B as it was', async () => {
    await quiet();
    const marksA = await needlesOf(A, a);
    const marksB = await needlesOf(B, b);
    const before = await mentions(A, marksA);
    // A had data all over the database: documents of its own in many collections, its content in GridFS
    expect(Object.keys(nonZero(before)).length).toBeGreaterThan(30);
    expect(before['inhoud.files']).toBe(2);
    for (const name of [
      'zaken',
      'rollen',
      'statussen',
      'besluiten',
      'audittrail',
      'auditreads',
      'nrc_deliveries',
      'nrc_notificaties',
      'credentials',
      'settings',
    ])
      expect(before[name]).toBeGreaterThan(0);
    const bodiesB = await Promise.all(b.urls.map(async (u) => (await as(B).call('GET', u, undefined, { headers: CRS })).body));
    await quiet();
    const beforeB = await mentions(B, marksB);

    const res = await t.call('DELETE', `/admin/api/v1/tenants/${A}`, { bevestig: A });
    expect(res.statusCode).toBe(200);
    const report = res.json();
    // (running: the transfer and the destruction list's)
    expect(report).toMatchObject({ rsin: A, naam: 'Gemeente A', inhoud: { bestanden: 2 }, workflows: { beeindigd: 2 } });
    expect(report.workflows.verwijderd).toBeGreaterThanOrEqual(3);
    expect(report.verwijderd).toMatchObject({
      zaken: 1,
      rollen: 1,
      besluiten: 1,
      credentials: 1,
      tenants: 1,
      adminusers: 1,
      settings: 1,
      'inhoud.files': 2,
    });
    // every collection of the database is in the report
    expect(Object.keys(report.verwijderd).sort()).toEqual(expect.arrayContaining((await collectionsOf(t.mongo.db)).filter((n) => n !== 'tenants')));

    await quiet();
    expect(nonZero(await mentions(A, marksA))).toEqual({});
    expect(await mentions(B, marksB)).toEqual(beforeB);
    // its workflows are gone from Temporal (B's are there)
    // (Temporal deletes an execution in the background: one closed moments before, as the import was, after a while)
    expect(
      await eventually(async () => {
        for (const id of a.workflows) {
          if (await described(id)) return false;
          for await (const _ of temporal.workflow.list({ query: `WorkflowId STARTS_WITH '${id}'` })) return false;
        }
        return true;
      }, 90_000),
    ).toBe(true);
    for (const id of b.workflows) expect(await described(id)).toBe(true);
    // A's client is unknown now; B reads what it read before
    expect([401, 403]).toContain((await as(A).call('GET', `${ZRC}/zaken`, undefined, { headers: CRS })).statusCode);
    const after = await Promise.all(b.urls.map(async (u) => as(B).call('GET', u, undefined, { headers: CRS })));
    expect(after.map((r) => r.statusCode)).toEqual(b.urls.map(() => 200));
    expect(after.map((r) => r.body)).toEqual(bodiesB);
    expect((await t.call('GET', '/admin/api/v1/tenants')).json().map((x: { rsin: string }) => x.rsin)).not.toContain(A);

    // again: it is unknown, nothing is erased
    const again = await t.call('DELETE', `/admin/api/v1/tenants/${A}`, { bevestig: A });
    expect([again.statusCode, again.json().code]).toEqual([404, 'not_found']);
  }, 150_000);

  it('npm run admin -- tenant-remove: the catalogus ZIPs first, nothing erased without --ja, one JSON line', async () => {
    await tenant(C, 'Gemeente C');
    const app = as(C);
    const s = await zaaktypeMetOnderdelen(app, sl);
    const zaak = await createZ(app, 'zaken', zaakBody(s.zaaktype, { bronorganisatie: C, verantwoordelijkeOrganisatie: C }));
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, [join(__dirname, '../dist/cli/admin.js'), 'tenant-remove', ...args], {
        env: {
          ...process.env,
          MONGODB_DB: t.config.MONGODB_DB,
          KAFKA_TOPIC_PREFIX: t.topicPrefix,
          PUBLIC_BASE_URL: t.config.PUBLIC_BASE_URL,
          LOG_LEVEL: 'silent',
        },
      });
    await expect(run([UNKNOWN, '--ja'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(`Organisatie ${UNKNOWN} bestaat niet`) });
    await expect(run([t.config.ZGW_DEFAULT_TENANT, '--ja'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('standaardorganisatie'),
    });
    // without --ja: the exports, what would go, nothing erased
    const dir = mkdtempSync(join(tmpdir(), 'zgw-vertrek-'));
    const dry = await run([C, '--export', dir]).catch((err: { code: number; stdout: string; stderr: string }) => err);
    expect(dry).toMatchObject({ code: 2, stderr: expect.stringContaining('--ja') });
    const plan = JSON.parse((dry as { stdout: string }).stdout);
    expect(plan.teVerwijderen).toMatchObject({ zaken: 1, catalogussen: 1, zaaktypen: 1 });
    const catalogus = (await app.call('GET', s.zaaktype)).json().catalogus as string;
    const file = `catalogus-${catalogus.slice(catalogus.lastIndexOf('/') + 1)}.zip`;
    expect(readdirSync(dir)).toEqual([file]);
    expect(readFileSync(join(dir, file)).subarray(0, 2).toString()).toBe('PK');
    expect((await app.call('GET', zaak.url, undefined, { headers: CRS })).statusCode).toBe(200);

    const marks = await needlesOf(C, undefined);
    const { stdout } = await run([C, '--export', dir, '--ja']);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    const report = JSON.parse(stdout);
    expect(report).toMatchObject({ rsin: C, verwijderd: { zaken: 1, catalogussen: 1, credentials: 1, tenants: 1 } });
    expect(report.exports).toEqual([expect.objectContaining({ catalogus: catalogus.slice(catalogus.lastIndexOf('/') + 1) })]);
    await quiet();
    expect(nonZero(await mentions(C, marks))).toEqual({});
    await expect(run([C, '--ja'])).rejects.toMatchObject({ code: 2 });
  }, 120_000);
});

describe('an organisation leaves, its content on S3', () => {
  const D = '222222220';
  const E = '333333330';
  let app: TestApp;
  beforeAll(async () => {
    // the platform's own S3 engine (scripts/engines.sh env s3), unless S3_ENDPOINT names one
    const env: Record<string, string> = process.env.S3_ENDPOINT
      ? {}
      : Object.fromEntries(
          [
            ...execFileSync('bash', [join(__dirname, '../../../scripts/engines.sh'), 'env', 's3'], { encoding: 'utf8' }).matchAll(
              /export (\w+)=(\S+)/g,
            ),
          ].map((m) => [m[1]!, m[2]!]),
        );
    for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY']) if (env[k]) process.env[k] = env[k];
    app = await startApp({ ...env, INHOUD_STORE: 's3' });
  }, 120_000);
  afterAll(async () => app?.close());

  it("removes its files from S3, and another organisation's stay", async () => {
    const s3 = new S3Inhoud(app.config, app.deps.log);
    const keys = async () => {
      const page = await s3.client.send(new ListObjectsV2Command({ Bucket: app.config.S3_BUCKET, Prefix: `${app.config.MONGODB_DB}/` }));
      return (page.Contents ?? []).map((o) => o.Key!.slice(app.config.MONGODB_DB.length + 1)).sort();
    };
    const fileOf = async (rsin: string) =>
      String(
        (await platformDb(app.mongo.db)
          .collection('enkelvoudiginformatieobjecten')
          .findOne({ [TENANT_FIELD]: rsin }))!._inhoud,
      );
    for (const rsin of [D, E]) {
      await tenant(rsin, `Gemeente ${rsin}`, app);
      const client = as(rsin, app);
      await createEio(client, eioBody(await informatieobjecttype(client), { bronorganisatie: rsin }));
    }
    const [d, e] = [await fileOf(D), await fileOf(E)];
    expect(await keys()).toEqual([d, e].sort());
    const res = await app.call('DELETE', `/admin/api/v1/tenants/${D}`, { bevestig: D });
    expect(res.statusCode).toBe(200);
    expect(res.json().inhoud).toEqual({ bestanden: 1, stores: ['s3', 'gridfs'] });
    expect(await keys()).toEqual([e]);
    s3.client.destroy();
  });
});
