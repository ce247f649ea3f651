import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createLogger, loadConfig, type Config } from '@zgw/shared';
import { startAuditWorker, type AuditWorker } from '../../audit/src/worker';
import { startNotifier, type Notifier } from '../../notifier/src/worker';
import { Receiver } from '../../notifier/test/receivers';
import { ensureAllRights } from '../src/bootstrap';
import { routeTable } from '../src/common/http/errors';
import { iotBody, publish, startReferentielijsten, zaaktypeBody, type Referentielijsten } from './catalogi.fixtures';
import { ADMIN, eventually, token, type TestApp } from './harness';
import { LogLines, OVERDRACHTEN, afgelopen, startListeningApp, startWorker, stopWorker, typen } from './overdrachten.fixtures';
import { as as asHolder } from './tenants.fixtures';
import { CRS, ZRC } from './zaken.fixtures';

/**
 * Two organisations on one installation, each with an administrator (all rights) and a limited client, and A attacking
 * B as an outside attacker would with A's own credentials.
 *
 * (a) Every route of the app, taken from its route table at run time (a route added later is covered the day it is
 *     added), is called by A's administrator (with and without naming B in `Zgw-Tenant`) and by A's limited client with
 *     B's ids in its path, B's URLs, ids, client ids and names in its query and body: each answer is below 500 and holds
 *     nothing of B's that A did not send itself. B's objects are as they were afterwards. A name unique on the whole
 *     platform (a client id) taken by B is refused as any other taken one.
 * (b) A differential: B's workload run alone, then again while A runs the same workload and every attack (the sweep,
 *     resends, audit exclusions naming B's clients, walks over the same deep pages, concurrent reads of zaaktypen):
 *     B's answers, its audit trail of reads and the notifications it receives are the same once generated UUIDs,
 *     identificaties and times are placeholders (notifications as a multiset), and nothing of B's reaches A (answers,
 *     its callback, its trail, its admin listings, metrics).
 *
 * Counts its cases and prints `tenants-adversarial: N passed, N failed` (to ZGW_ADVERSARIAL_SUMMARY when set).
 */
const A = '123456782';
const B = '111222333';
const RUNS = ['2031-01-01', '2031-01-02'];
/** More zaken than two pages, so that page 3 is a deep page (PAGE_SKIP_LIMIT 100: seeks from remembered positions). */
const ZAKEN = 205;
const silent = createLogger('adversarial', 'silent');

interface Org {
  rsin: string;
  admin: string;
  limited: string;
  adminToken: string;
  limitedToken: string;
  receiver: Receiver;
  abonnement: string;
  /** Every value of this organisation's that must never reach the other: ids, URLs, client ids, BSNs, identificaties. */
  markers: Set<string>;
  /** Its objects' URLs (what a path parameter of the other may name). */
  urls: string[];
}

let t: TestApp;
let sl: Referentielijsten;
let notifier: Notifier;
let audit: AuditWorker;
let a: Org;
let b: Org;
let cases = 0;
const failures: string[] = [];

function check(ok: boolean, what: string): void {
  cases++;
  if (!ok) failures.push(what);
}

/** The app as one organisation's client sees it. */
const as = (tok: string, extra: Record<string, string> = {}) => ({
  call: (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    t.call(method, url, body, { token: tok, headers: { ...CRS, ...extra, ...headers } }),
});
type Caller = ReturnType<typeof as>;

const uuidOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);
const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function remember(org: Org, value: unknown): void {
  if (typeof value !== 'string') return;
  org.markers.add(value);
  for (const u of value.match(UUID_RE) ?? []) org.markers.add(u);
}

/** A BSN of its own (it passes the eleven test) for each seed: the first from seed x 1,000 on. */
function bsn(seed: number): string {
  for (let n = 100_000_000 + seed * 1000; ; n++) {
    const d = String(n).split('').map(Number);
    if ((d.slice(0, 8).reduce((s, x, i) => s + x * (9 - i), 0) - d[8]!) % 11 === 0) return String(n);
  }
}

async function organisation(rsin: string, naam: string): Promise<Org> {
  expect((await t.call('POST', '/admin/api/v1/tenants', { rsin, naam })).statusCode).toBe(201);
  const admin = `beheer-${rsin}`;
  const limited = `lezer-${rsin}`;
  for (const id of [admin, limited]) {
    const res = await t.call('POST', '/admin/api/v1/credentials', { identifier: id, secret: `${id}-secret-of-32-characters-or-more`, tenant: rsin });
    expect(res.statusCode).toBe(201);
  }
  await ensureAllRights(t.deps.db, admin, rsin);
  const adminToken = token(admin, `${admin}-secret-of-32-characters-or-more`);
  const limitedToken = token(limited, `${limited}-secret-of-32-characters-or-more`);
  const app = await as(adminToken).call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [limited],
    label: `lezer ${naam}`,
    heeftAlleAutorisaties: false,
    autorisaties: [{ component: 'nrc', scopes: ['notificaties.consumeren'] }],
  });
  expect(app.statusCode).toBe(201);
  const receiver = await Receiver.start();
  const abonnement = await as(adminToken).call('POST', '/notificaties/api/v1/abonnement', {
    callbackUrl: receiver.url,
    auth: `Bearer ${rsin}`,
    kanalen: [
      { naam: 'zaken', filters: {} },
      { naam: 'documenten', filters: {} },
    ],
  });
  expect(abonnement.statusCode).toBe(201);
  await notifier.refresh();
  const org: Org = {
    rsin,
    admin,
    limited,
    adminToken,
    limitedToken,
    receiver,
    abonnement: abonnement.json().url,
    markers: new Set([admin, limited, app.json().url]),
    urls: [abonnement.json().url, app.json().url],
  };
  remember(org, abonnement.json().url);
  remember(org, app.json().url);
  return org;
}

interface Transcript {
  answers: string[];
  zaak: string;
  zaaktype: string;
}

/**
 * One organisation's day: a catalogus with a published zaaktype and its parts, ZAKEN zaken of the run's date, a rol
 * with a BSN, statussen, a document with content linked to the zaak; then reads: details with expand, the three pages
 * of the day's list, a _zoek by BSN with expand, the zaaktype (its parts read in batches), the content, the trail.
 */
async function workload(org: Org, run: number, record: boolean): Promise<Transcript> {
  const c = as(org.adminToken);
  const tag = `${org.rsin}-${run}`;
  const day = RUNS[run]!;
  const person = bsn(Number(org.rsin.slice(0, 4)) + run);
  org.markers.add(person);
  const answers: string[] = [];
  const made = async (url: string, body: unknown) => {
    const res = await c.call('POST', url, body);
    if (res.statusCode !== 201) throw new Error(`POST ${url} gave ${res.statusCode}: ${res.body}`);
    const json = res.json();
    remember(org, json.url);
    org.urls.push(json.url);
    return json;
  };
  const read = async (method: string, url: string, body?: unknown) => {
    const res = await c.call(method, url, body);
    if (record) answers.push(`${method} ${normalise(url, tag, day, person)} ${res.statusCode} ${normalise(res.body, tag, day, person)}`);
    return res;
  };
  const cat = await made('/catalogi/api/v1/catalogussen', { domein: `D${run}`, rsin: org.rsin, contactpersoonBeheerNaam: 'Beheer' });
  const zt = await made('/catalogi/api/v1/zaaktypen', zaaktypeBody(cat.url, { selectielijstProcestype: sl.procestype, identificatie: `ZT-${tag}` }));
  const part = (collection: string, body: Record<string, unknown>) => made(`/catalogi/api/v1/${collection}`, { zaaktype: zt.url, ...body });
  const begin = await part('statustypen', { omschrijving: 'begin', volgnummer: 1 });
  await part('statustypen', { omschrijving: 'eind', volgnummer: 2 });
  const roltype = await part('roltypen', { omschrijving: 'Initiator', omschrijvingGeneriek: 'initiator' });
  await publish(t, zt.url).catch(async () => expect((await c.call('POST', `${zt.url}/publish`)).statusCode).toBe(200));
  const iot = await made('/catalogi/api/v1/informatieobjecttypen', iotBody(cat.url, { omschrijving: 'bijlage' }));
  expect((await c.call('POST', `${iot.url}/publish`)).statusCode).toBe(200);
  await made('/catalogi/api/v1/zaaktype-informatieobjecttypen', {
    zaaktype: zt.url,
    informatieobjecttype: 'bijlage',
    volgnummer: 1,
    richting: 'inkomend',
  });

  const zaken: string[] = [];
  for (let i = 0; i < ZAKEN; i++) {
    const identificatie = `Z-${tag}-${String(i).padStart(3, '0')}`;
    org.markers.add(identificatie);
    const zaak = await made(`${ZRC}/zaken`, {
      identificatie,
      bronorganisatie: org.rsin,
      verantwoordelijkeOrganisatie: org.rsin,
      zaaktype: zt.url,
      startdatum: day,
      omschrijving: `Melding ${i}`,
    });
    zaken.push(zaak.url);
  }
  const zaak = zaken[0]!;
  await made(`${ZRC}/rollen`, {
    zaak,
    roltype: roltype.url,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'initiator',
    betrokkeneIdentificatie: { inpBsn: person, geslachtsnaam: 'Jansen' },
  });
  await made(`${ZRC}/statussen`, { zaak, statustype: begin.url, datumStatusGezet: `${day}T10:00:00Z` });
  const eio = await made('/documenten/api/v1/enkelvoudiginformatieobjecten', {
    identificatie: `D-${tag}`,
    bronorganisatie: org.rsin,
    creatiedatum: day,
    titel: `Aanvraag ${tag}`,
    auteur: 'J. de Vries',
    taal: 'dut',
    inhoud: Buffer.from(`inhoud van ${tag}`).toString('base64'),
    informatieobjecttype: iot.url,
  });
  org.markers.add(`D-${tag}`);
  await made(`${ZRC}/zaakinformatieobjecten`, { zaak, informatieobject: eio.url });

  await read('GET', `${zaak}?expand=rollen,status`);
  // the deep page first, straight away (from the positions remembered for this list), then page by page
  for (const page of [3, 1, 2, 3]) await read('GET', `${ZRC}/zaken?startdatum=${day}&page=${page}`);
  await read('POST', `${ZRC}/zaken/_zoek`, { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: person, expand: 'rollen' });
  await read('GET', `/catalogi/api/v1/zaaktypen?catalogus=${encodeURIComponent(cat.url)}&datumGeldigheid=2024-06-01`);
  await read('GET', zt.url);
  await read('GET', `${eio.url}/download`);
  // the trail shows the reads of the zaak once the audit worker has them: their three (detail, list, _zoek) first
  await readsOf(org, zaak, 3);
  await read('GET', `${zaak}/audittrail`);

  // a transfer of its second zaak to a zaaktype of another catalogus of its own (ZSDMS, route intern), last: its copy
  // is a zaak of the day too
  const doel = await typen(asHolder(t, org.adminToken), sl, org.rsin, `DOEL-${tag}`);
  const naam = `intern-${tag}`;
  const route = {
    naam,
    route: 'intern',
    rsin: org.rsin,
    catalogus: doel.catalogus,
    zaaktypen: [{ bron: `ZT-${tag}`, doel: `DOEL-${tag}` }],
    bron: 'openlaten',
  };
  expect((await c.call('POST', '/admin/api/v1/doelregistraties', route)).statusCode).toBe(201);
  const overdracht = await made(OVERDRACHTEN, { zaak: zaken[1], doelregistratie: naam, toelichting: 'verhuizing' });
  await eventually(async () => afgelopen((await c.call('GET', overdracht.url)).json()), 120_000);
  await read('GET', overdracht.url);
  return { answers, zaak, zaaktype: zt.url };
}

/** The answer with what differs from run to run as placeholders: UUIDs, times, the run's tag, date and BSN. */
function normalise(text: string, tag: string, day: string, person: string): string {
  return text
    .split(tag)
    .join('<tag>')
    .split(person)
    .join('<bsn>')
    .replace(UUID_RE, '<uuid>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?/g, '<time>')
    .split(day)
    .join('<day>')
    .replace(/"(uuid|url)":"[^"]*<uuid>"/g, '"$1":"<ref>"')
    .replace(/cursor=[\w-]+/g, 'cursor=<cursor>')
    .replace(new RegExp(Buffer.from('inhoud van ').toString('base64').slice(0, 12), 'g'), '<inhoud>');
}

/** The read entries B's trail holds for a main object (filled by the audit worker; waits for `least`). */
async function readsOf(org: Org, hoofdObject: string, least: number): Promise<string[]> {
  let entries: { clientId: string; resource?: string; actie?: string }[] = [];
  await eventually(async () => {
    const res = await as(org.adminToken).call('GET', `/admin/api/v1/audit/reads?hoofdObject=${encodeURIComponent(hoofdObject)}`);
    entries = res.statusCode === 200 ? res.json().results : [];
    return entries.length >= least;
  }, 30_000);
  return entries.map((e) => `${e.clientId} ${e.actie ?? ''} ${e.resource ?? ''}`).sort();
}

/** Waits until a receiver has had nothing new for two seconds (at most 30). */
async function settled(r: Receiver): Promise<void> {
  let seen = -1;
  for (let waited = 0; waited < 30_000 && r.received.length !== seen; waited += 2000) {
    seen = r.received.length;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/** What a receiver got, normalised, as a sorted list (a multiset). */
function notificationsOf(r: Receiver, from: number, tag: string, day: string, person: string): string[] {
  return r.received
    .slice(from)
    .filter((x) => x.body.kanaal !== 'test')
    .map((x) => normalise(JSON.stringify({ ...x.body, aanmaakdatum: '<time>' }), tag, day, person))
    .sort();
}

/**
 * The markers of `org` in `text` that `sent` does not hold. An organisation's own audit exclusions list the client ids
 * its administrator typed (B's among them: the names are no secret, what B's clients read is), so there client ids
 * are not counted.
 */
function leaked(org: Org, text: string, sent: string, where = ''): string[] {
  const out: string[] = [];
  const names = where.startsWith('/admin/api/v1/audit/exclusions') ? [org.admin, org.limited] : [];
  for (const m of org.markers) if (m.length >= 6 && text.includes(m) && !sent.includes(m) && !names.includes(m)) out.push(m);
  return out;
}

/** One URL of each kind of object the organisation has (its first zaak, its first rol, ...). */
function kinds(org: Org): string[] {
  const byKind = new Map<string, string>();
  for (const url of org.urls) {
    const kind = url.slice(0, url.lastIndexOf('/'));
    if (!byKind.has(kind)) byKind.set(kind, url);
  }
  return [...byKind.values()];
}

/** What each kind of path parameter may be set to from B's side. */
function valuesFor(param: string, victim: Org): string[] {
  const ids = [...new Set(kinds(victim).map(uuidOf))];
  const clients = [victim.admin, victim.limited];
  if (/rsin|tenant/i.test(param)) return [victim.rsin];
  if (/client|identifier/i.test(param)) return clients;
  if (/uuid/i.test(param)) return ids;
  // (`:id`, `:naam` and the like: whatever of B's an id or a name may be)
  return [...ids, ...clients, victim.rsin];
}

const QUERY_KEYS = [
  'zaak',
  'zaaktype',
  'informatieobject',
  'hoofdObject',
  'clientId',
  'identificatie',
  'bronorganisatie',
  'rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn',
  'uuid__in',
  'abonnement',
  'rsin',
  'url',
];

/** What of B's a query parameter is set to (a URL of B's zaak where the key names no other kind). */
function queryValue(key: string, victim: Org, zaak: string, zaaktype: string): string {
  const person = [...victim.markers].find((m) => /^\d{9}$/.test(m) && m !== victim.rsin) ?? '';
  const values: Record<string, string> = {
    rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: person,
    clientId: victim.admin,
    uuid__in: uuidOf(zaak),
    rsin: victim.rsin,
    bronorganisatie: victim.rsin,
    zaaktype,
  };
  return values[key] ?? zaak;
}

/** A body that names B everywhere a body may name another object or client. */
function stuffed(victim: Org, zaak: string, zaaktype: string): Record<string, unknown> {
  return {
    zaak,
    zaaktype,
    hoofdzaak: zaak,
    informatieobject: victim.urls.find((u) => u.includes('/enkelvoudiginformatieobjecten/')),
    object: zaak,
    clientIds: [victim.admin],
    clientId: victim.admin,
    identifier: victim.admin,
    tenant: victim.rsin,
    rsin: victim.rsin,
    abonnement: victim.abonnement,
    kanaal: 'zaken',
    // (an address nobody answers: A may subscribe any address, B's receiver included, which is no leak)
    callbackUrl: 'http://127.0.0.1:9/callback',
    uuid: uuidOf(zaak),
    zaken: [zaak],
    bronorganisatie: victim.rsin,
  };
}

/**
 * Every route of the route table, called as `attacker` with the victim's values: returns the routes it called.
 * The admin screens' pages answer without a session by sending to the login page: a refusal like any other.
 */
async function sweep(attacker: Caller, victim: Org, victimZaak: string, victimZaaktype: string, label: string): Promise<Set<string>> {
  const covered = new Set<string>();
  const body = stuffed(victim, victimZaak, victimZaaktype);
  for (const route of routeTable(t.app)) {
    if (route.method === 'OPTIONS') {
      covered.add(`${route.method} ${route.url}`);
      continue;
    }
    const params = [...route.url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
    const requests: { url: string; body?: unknown }[] = [];
    if (!params.length) {
      for (const key of QUERY_KEYS) {
        const value = queryValue(key, victim, victimZaak, victimZaaktype);
        requests.push({
          url: `${route.url}?${key}=${encodeURIComponent(value)}`,
          body: ['GET', 'HEAD', 'DELETE'].includes(route.method) ? undefined : body,
        });
      }
    } else {
      const first = params[0]!;
      for (const value of first === '*' ? kinds(victim).map((u) => new URL(u).pathname.split('/').slice(2).join('/')) : valuesFor(first, victim)) {
        let url = route.url;
        for (const p of params) url = p === '*' ? url.replace('*', value) : url.replace(`:${p}`, p === first ? value : valuesFor(p, victim)[0]!);
        requests.push({ url, body: ['GET', 'HEAD', 'DELETE'].includes(route.method) ? undefined : body });
      }
    }
    for (const r of requests) {
      const res = await attacker.call(route.method, r.url, r.body);
      const sent = `${r.url} ${JSON.stringify(r.body ?? '')} ${label}`;
      const shown = `${res.body} ${res.headers.location ?? ''}`;
      const leaks = leaked(victim, shown, sent, r.url);
      check(
        res.statusCode < 500 && !leaks.length,
        `${label}: ${route.method} ${route.url} as ${r.url} gave ${res.statusCode}${leaks.length ? ` with B's ${leaks.slice(0, 3).join(', ')}` : ''}: ${res.body.slice(0, 200)}`,
      );
    }
    covered.add(`${route.method} ${route.url}`);
  }
  return covered;
}

/** B's objects as B reads them (to see that nothing of A's changed them). */
async function snapshot(org: Org): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const url of org.urls) {
    const res = await as(org.adminToken).call('GET', url);
    out.set(url, `${res.statusCode} ${res.body.replace(/"(laatstGeopend|lastModified)":"[^"]*"/g, '')}`);
  }
  return out;
}

let config: Config;
const logs = new LogLines();
let worker: ChildProcess | undefined;
beforeAll(async () => {
  sl = await startReferentielijsten();
  // listening on a port of its own, for the transfer worker, which calls the platform as its own client
  t = await startListeningApp(
    {
      REFERENTIELIJSTEN_URL: sl.url,
      NRC_CALLBACK_CHECK: 'off',
      PAGE_SKIP_LIMIT: '100',
      AUDIT_SETTINGS_POLL_MS: '200',
      METRICS_TOKEN: '',
      METRICS_PUBLIC: 'true',
      LOG_LEVEL: 'warn',
    },
    logs,
  );
  worker = startWorker(t, logs, { LOG_LEVEL: 'warn' });
  config = loadConfig({
    ...process.env,
    MONGODB_DB: t.config.MONGODB_DB,
    KAFKA_TOPIC_PREFIX: t.topicPrefix,
    LOG_LEVEL: 'silent',
    NRC_REFRESH_MS: '300',
  });
  notifier = await startNotifier(config, silent);
  audit = await startAuditWorker(config, silent);
  a = await organisation(A, 'Gemeente A');
  b = await organisation(B, 'Gemeente B');
}, 120_000);

afterAll(async () => {
  const line = `tenants-adversarial: ${cases - failures.length} passed, ${failures.length} failed`;
  // (npm test prints the file's line once; run alone, the suite prints it itself)
  if (process.env.ZGW_ADVERSARIAL_SUMMARY) writeFileSync(process.env.ZGW_ADVERSARIAL_SUMMARY, `${line}\n`);
  else process.stdout.write(`\n${line}\n`);
  await stopWorker(worker);
  await audit?.stop();
  await notifier?.stop();
  await a?.receiver.close();
  await b?.receiver.close();
  await t?.close();
  await sl?.close();
});

let alone: Transcript;
let aloneReads: string[];
let aloneNotifications: string[];

it("B's workload alone", async () => {
  const from = b.receiver.received.length;
  alone = await workload(b, 0, true);
  expect(alone.answers.every((x) => / 200 /.test(x))).toBe(true);
  // (its transfer went through: the overdracht read last)
  expect(alone.answers[alone.answers.length - 1]).toContain('"status":"afgerond"');
  await eventually(async () => b.receiver.ids().length - from >= ZAKEN + 4, 30_000);
  await settled(b.receiver);
  aloneNotifications = notificationsOf(b.receiver, from, `${B}-0`, RUNS[0]!, bsn(Number(B.slice(0, 4))));
  aloneReads = await readsOf(b, alone.zaak, 3);
  expect(aloneNotifications.length).toBeGreaterThanOrEqual(ZAKEN + 4);
}, 300_000);

it("A calls every route with B's ids, URLs, client ids and names: nothing of B's comes back, and B's objects stay as they were", async () => {
  const before = await snapshot(b);
  const table = routeTable(t.app);
  const covered = await sweep(as(a.adminToken), b, alone.zaak, alone.zaaktype, "A's administrator");
  await sweep(as(a.adminToken, { 'zgw-tenant': B }), b, alone.zaak, alone.zaaktype, "A's administrator naming B in Zgw-Tenant");
  await sweep(as(a.limitedToken), b, alone.zaak, alone.zaaktype, "A's limited client");
  // every route of the table was called
  expect(covered.size).toBe(new Set(table.map((r) => `${r.method} ${r.url}`)).size);
  const after = await snapshot(b);
  for (const [url, shown] of before) check(after.get(url) === shown, `B's ${url} changed while A attacked: ${after.get(url)?.slice(0, 200)}`);
  expect(failures).toEqual([]);
}, 600_000);

it("refuses B's client id as any other taken client id, without saying where it is taken", async () => {
  const register = async (identifier: string) => {
    const res = await as(a.adminToken).call('POST', '/admin/api/v1/credentials', {
      identifier,
      secret: 'a-secret-of-thirty-two-characters!!',
      tenant: A,
    });
    return `${res.statusCode} ${res.body.split(identifier).join('<id>').replace(UUID_RE, '<uuid>')}`;
  };
  const theirs = await register(b.admin);
  // the default organisation's client: taken elsewhere too (A registering one of its own again changes its secret)
  const ours = await register(ADMIN);
  check(theirs === ours, `B's client id answered "${theirs}", another organisation's taken one "${ours}"`);
  check(!theirs.startsWith('2'), `B's client id was taken over: ${theirs}`);
  expect(failures).toEqual([]);
});

it("B's workload while A runs the same and attacks: B sees the same, A sees nothing of B's", async () => {
  const from = b.receiver.received.length;
  const aFrom = a.receiver.received.length;
  let attacking = true;
  let roundDone!: () => void;
  const firstRound = new Promise<void>((resolve) => (roundDone = resolve));
  const attacks = (async () => {
    const c = as(a.adminToken);
    await workload(a, 1, false);
    while (attacking) {
      await c.call('POST', `/admin/api/v1/notificaties/abonnementen/${uuidOf(a.abonnement)}/resend`, {});
      await c.call('PUT', '/admin/api/v1/audit/exclusions', { clientIds: [b.admin, b.limited, 'beheer-*'] });
      for (const page of [1, 2, 3]) await c.call('GET', `${ZRC}/zaken?startdatum=${RUNS[1]}&page=${page}`);
      await Promise.all([1, 2, 3].map(() => c.call('GET', '/catalogi/api/v1/zaaktypen?datumGeldigheid=2024-06-01')));
      roundDone();
      await sweep(c, b, alone.zaak, alone.zaaktype, "A's administrator during B's run");
    }
  })().finally(() => roundDone());
  // B starts once A has made its zaken of the day, walked their pages and named B's clients in its exclusions
  await firstRound;
  const again = await workload(b, 1, true);
  attacking = false;
  await attacks;
  await eventually(async () => b.receiver.ids().length - from >= aloneNotifications.length, 30_000);
  await settled(b.receiver);
  const person = bsn(Number(B.slice(0, 4)) + 1);
  const notifications = notificationsOf(b.receiver, from, `${B}-1`, RUNS[1]!, person);
  const reads = await readsOf(b, again.zaak, aloneReads.length);

  check(JSON.stringify(again.answers) === JSON.stringify(alone.answers), `B's answers differ under attack:\n${diff(alone.answers, again.answers)}`);
  check(
    JSON.stringify(notifications) === JSON.stringify(aloneNotifications),
    `B's notifications differ under attack:\n${diff(aloneNotifications, notifications)}`,
  );
  check(JSON.stringify(reads) === JSON.stringify(aloneReads), `B's trail of reads differs under attack:\n${diff(aloneReads, reads)}`);

  // nothing of B's reached A: its callback, its trail, its admin listings, metrics
  const received = JSON.stringify(a.receiver.received.slice(aFrom).map((x) => x.body));
  check(!leaked(b, received, '').length, `A's callback received B's ${leaked(b, received, '').slice(0, 3).join(', ')}`);
  for (const url of [
    `/admin/api/v1/audit/reads?clientId=${b.admin}`,
    `/admin/api/v1/audit/reads?clientId=${a.admin}`,
    `/admin/api/v1/notificaties/abonnementen/${uuidOf(a.abonnement)}/deliveries`,
    '/admin/api/v1/notificaties/abonnementen',
    '/admin/api/v1/credentials',
    '/admin/api/v1/tenants',
    '/admin/api/v1/audit/exclusions',
    '/metrics',
  ]) {
    const res = await as(a.adminToken).call('GET', url);
    // (A's trail holds the requests A made: B's zaak and zaaktype it named in its queries)
    const leaks = leaked(b, res.body, `${url} ${alone.zaak} ${alone.zaaktype}`, url);
    check(res.statusCode < 500 && !leaks.length, `A's ${url} gave ${res.statusCode} with B's ${leaks.slice(0, 3).join(', ')}`);
  }
  expect(failures).toEqual([]);
}, 600_000);

/** The first lines that differ, each from a little before the first character that does. */
function diff(x: string[], y: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < Math.max(x.length, y.length) && out.length < 6; i++) {
    const [p, q] = [x[i] ?? '', y[i] ?? ''];
    if (p === q) continue;
    let at = 0;
    while (p[at] === q[at]) at++;
    const from = Math.max(0, at - 120);
    out.push(`  ${p.slice(0, 60)}\n  alone: ...${p.slice(from, at + 200)}\n  under attack: ...${q.slice(from, at + 200)}`);
  }
  return out.join('\n');
}
