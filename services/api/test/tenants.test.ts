import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TENANT_HEADER } from '@zgw/shared';
import { ensureAllRights } from '../src/bootstrap';
import { create, iotBody, publish, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { createEio, eioBody } from './documenten.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen } from './zaken.fixtures';

/**
 * Tenants, tried as an attacker would: two organisations with the same workload (the same identificaties, the same
 * BSN, an abonnement on the same kanaal); then every operation of every served OpenAPI document (read from the
 * documents) on B's objects with A's client finds nothing of B's.
 */
const A = '123456782';
const B = '111222333';
const BSN = '111222333';
const COMPONENTS = ['zaken', 'catalogi', 'documenten', 'besluiten', 'autorisaties', 'notificaties'];

let t: TestApp;
let sl: Referentielijsten;
/** The receiver of both tenants' abonnementen (it answers every notification 204). */
let receiver: Server;
let callbackUrl: string;

/** The app as one tenant's client sees it: every call with that client's token unless another is given. */
function as(tok: string): TestApp {
  return { ...t, call: (method, url, body, opts = {}) => t.call(method, url, body, { ...opts, token: opts.token === undefined ? tok : opts.token }) };
}

interface Workload {
  app: TestApp;
  urls: string[];
  zaak: string;
  zaaktype: string;
  document: string;
}

async function workload(app: TestApp): Promise<Workload> {
  const s = await zaaktypeMetOnderdelen(app, sl);
  const zaak = await createZ(app, 'zaken', zaakBody(s.zaaktype, { identificatie: 'ZAAK-1' }));
  const rol = await createZ(app, 'rollen', {
    zaak: zaak.url,
    roltype: s.roltype,
    betrokkeneType: 'natuurlijk_persoon',
    roltoelichting: 'initiator',
    betrokkeneIdentificatie: { inpBsn: BSN },
  });
  const status = await createZ(app, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-01T10:00:00Z' });
  const { catalogus: cat } = (await app.call('GET', s.zaaktype)).json();
  const iot = await create(app, 'informatieobjecttypen', iotBody(cat, { omschrijving: 'bijlage' }));
  await publish(app, iot.url);
  await create(app, 'zaaktype-informatieobjecttypen', { zaaktype: s.zaaktype, informatieobjecttype: 'bijlage', volgnummer: 1, richting: 'inkomend' });
  const eio = await createEio(app, eioBody(iot.url, { identificatie: 'DOC-1' }));
  const zio = await createZ(app, 'zaakinformatieobjecten', { zaak: zaak.url, informatieobject: eio.url });
  const abonnement = await app.call('POST', '/notificaties/api/v1/abonnement', {
    callbackUrl,
    auth: 'Bearer x',
    kanalen: [{ naam: 'zaken', filters: {} }],
  });
  if (abonnement.statusCode !== 201) throw new Error(`abonnement: ${abonnement.body}`);
  const gebruiksrecht = await app.call('POST', '/documenten/api/v1/gebruiksrechten', {
    informatieobject: eio.url,
    startdatum: '2024-03-01T00:00:00Z',
    omschrijvingVoorwaarden: 'geen',
  });
  if (gebruiksrecht.statusCode !== 201) throw new Error(`gebruiksrecht: ${gebruiksrecht.body}`);
  const urls = [
    zaak.url,
    rol.url,
    status.url,
    zio.url,
    eio.url,
    iot.url,
    cat,
    s.zaaktype,
    s.roltype,
    s.resultaattype,
    s.eigenschap,
    s.statustypen.begin,
    abonnement.json().url,
    gebruiksrecht.json().url,
  ];
  return { app, urls, zaak: zaak.url, zaaktype: s.zaaktype, document: eio.url };
}

/** The operations of a served document whose path names one object (`.../{uuid}`), with their path templates. */
async function objectOperations(component: string): Promise<{ method: string; template: RegExp; path: string }[]> {
  const doc = (await t.call('GET', `/${component}/api/v1/schema/openapi.json`)).json();
  const out: { method: string; template: RegExp; path: string }[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    if (!/\{uuid\}$/.test(path)) continue;
    const template = new RegExp(`/${component}/api/v1${path.replace(/\{[^}]+\}/g, '[0-9a-f-]{36}')}$`);
    for (const method of Object.keys(item)) if (['get', 'head', 'put', 'patch', 'delete'].includes(method)) out.push({ method, template, path });
  }
  return out;
}

let a: Workload;
let b: Workload;

beforeAll(async () => {
  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  for (const [rsin, naam] of [
    [A, 'Gemeente A'],
    [B, 'Gemeente B'],
  ]) {
    const res = await t.call('POST', '/admin/api/v1/tenants', { rsin, naam });
    expect(res.statusCode).toBe(201);
    const client = `client-${rsin}`;
    expect((await t.call('POST', '/admin/api/v1/credentials', { identifier: client, secret: `${client}-secret`, tenant: rsin })).statusCode).toBe(
      201,
    );
    await ensureAllRights(t.deps.db, client, rsin);
  }
  a = await workload(as(token(`client-${A}`, `client-${A}-secret`)));
  b = await workload(as(token(`client-${B}`, `client-${B}-secret`)));
}, 120_000);

afterAll(async () => {
  await t?.close();
  await sl?.close();
  receiver?.close();
});

describe('tenants', () => {
  it('refuses an RSIN that fails the eleven test, a tenant twice, and a client of an unknown tenant', async () => {
    expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: '123456789', naam: 'x' })).statusCode).toBe(400);
    expect((await t.call('POST', '/admin/api/v1/tenants', { rsin: A, naam: 'again' })).statusCode).toBe(409);
    const res = await t.call('POST', '/admin/api/v1/credentials', { identifier: 'nowhere', secret: 'nowhere-secret', tenant: '100000009' });
    expect(res.statusCode).toBe(400);
    // a client id is unique across the installation: another tenant cannot take it
    const taken = await t.call('POST', '/admin/api/v1/credentials', { identifier: `client-${A}`, secret: 'another-secret', tenant: B });
    expect(taken.statusCode).toBe(400);
  });

  it("gives 404 on every operation of every served document on another tenant's object", async () => {
    const checked: string[] = [];
    for (const component of COMPONENTS) {
      for (const op of await objectOperations(component)) {
        for (const url of b.urls.filter((u) => op.template.test(u))) {
          // B's own representation as the body (its content a download link there), so that nothing but the tenant refuses it
          const shown = ['put', 'patch'].includes(op.method) ? (await b.app.call('GET', url, undefined, { headers: CRS })).json() : undefined;
          const body = shown && { ...shown, inhoud: undefined, ...(url.includes('/enkelvoudiginformatieobjecten/') ? { lock: 'een-slot' } : {}) };
          const res = await a.app.call(op.method.toUpperCase(), url, body, { headers: CRS });
          if (res.statusCode !== 404) throw new Error(`${op.method.toUpperCase()} ${op.path} on B's ${url} as A gave ${res.statusCode}: ${res.body}`);
          checked.push(`${op.method} ${op.path}`);
        }
      }
    }
    expect(checked.length).toBeGreaterThan(40);
    // B's objects are all still there for B
    for (const url of b.urls) expect((await b.app.call('GET', url, undefined, { headers: CRS })).statusCode).toBe(200);
  });

  it("shows none of another tenant's objects or counts in any list of any served document", async () => {
    for (const component of COMPONENTS) {
      const doc = (await t.call('GET', `/${component}/api/v1/schema/openapi.json`)).json();
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
        if (path.includes('{') || !('get' in item) || path.includes('schema')) continue;
        const url = `/${component}/api/v1${path}`;
        const mine = await a.app.call('GET', url, undefined, { headers: CRS });
        const theirs = await b.app.call('GET', url, undefined, { headers: CRS });
        if (mine.statusCode !== 200) continue; // a list that needs a filter
        for (const u of b.urls) expect(mine.body).not.toContain(u.split('/').pop());
        // the same workload: the same counts on both sides, each its own
        const count = (r: { json: () => unknown }) => (r.json() as { count?: number }).count;
        expect(count(mine)).toBe(count(theirs));
      }
    }
  });

  it('keeps identificaties unique within a tenant only, and _zoek by BSN finds only its own zaken', async () => {
    // both created ZAAK-1 and DOC-1 in the same bronorganisatie: each within its own tenant
    for (const w of [a, b]) {
      const res = await w.app.call(
        'POST',
        `${ZRC}/zaken/_zoek`,
        { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: BSN, expand: 'rollen' },
        { headers: CRS },
      );
      expect(res.statusCode).toBe(200);
      expect(res.json().results.map((z: { url: string }) => z.url)).toEqual([w.zaak]);
    }
    const again = await a.app.call('POST', `${ZRC}/zaken`, zaakBody(a.zaaktype, { identificatie: 'ZAAK-1' }), { headers: CRS });
    expect(again.statusCode).toBe(400);
  });

  it('numbers generated identificaties per tenant, and refuses a doelregistratie name another tenant holds', async () => {
    for (const w of [a, b, a, b]) {
      const res = await w.app.call('POST', `${ZRC}/zaken`, zaakBody(w.zaaktype), { headers: CRS });
      if (res.statusCode !== 201) throw new Error(res.body);
      // (the later tests count each tenant's zaken as the workload made them)
      expect((await w.app.call('DELETE', res.json().url)).statusCode).toBe(204);
    }
    const reg = async (w: Workload) =>
      w.app.call('POST', '/admin/api/v1/doelregistraties', {
        naam: 'buurgemeente',
        route: 'intern',
        rsin: A,
        catalogus: (await w.app.call('GET', w.zaaktype)).json().catalogus,
        zaaktypen: [{ bron: 'ZT-1', doel: 'ZT-1' }],
        bron: 'openlaten',
      });
    const mine = await reg(a);
    expect(mine.statusCode).toBe(201);
    const taken = await reg(b);
    expect(taken.statusCode).toBe(400);
    expect(taken.json().invalidParams[0].name).toBe('naam');
  });

  it("does not resolve another tenant's objects as references in a body", async () => {
    const zaak = await a.app.call('POST', `${ZRC}/zaken`, zaakBody(b.zaaktype), { headers: CRS });
    expect(zaak.statusCode).toBe(400);
    expect(JSON.stringify(zaak.json().invalidParams)).toContain('zaaktype');
    const zio = await a.app.call('POST', `${ZRC}/zaakinformatieobjecten`, { zaak: a.zaak, informatieobject: b.document }, { headers: CRS });
    expect(zio.statusCode).toBe(400);
    const rol = await a.app.call(
      'POST',
      `${ZRC}/rollen`,
      { zaak: b.zaak, betrokkeneType: 'natuurlijk_persoon', roltoelichting: 'x' },
      { headers: CRS },
    );
    expect(rol.statusCode).toBe(400);
  });

  it("shows an audit trail of its own objects only, and B's through A's URL not at all", async () => {
    expect((await a.app.call('GET', `${a.zaak}/audittrail`)).statusCode).toBe(200);
    expect((await a.app.call('GET', `${b.zaak}/audittrail`)).statusCode).toBe(404);
  });

  it("ignores the tenant header of the platform's worker from any other client", async () => {
    const res = await a.app.call('GET', b.zaak, undefined, { headers: { ...CRS, [TENANT_HEADER]: B } });
    expect(res.statusCode).toBe(404);
    const list = await a.app.call('GET', `${ZRC}/zaken`, undefined, { headers: { ...CRS, [TENANT_HEADER]: B } });
    expect(list.json().results.map((z: { url: string }) => z.url)).toEqual([a.zaak]);
  });

  it('refuses a token of a client whose tenant is unknown, before reading anything of it', async () => {
    await t.deps.tenants.coll.deleteOne({ _id: B });
    t.deps.caches.clear('tenants');
    const res = await b.app.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('tenant-unknown');
    await t.deps.tenants.add(B, 'Gemeente B');
  });

  it('lists the tenants with their counts for platform administrators only', async () => {
    const list = await t.call('GET', '/admin/api/v1/tenants');
    expect(list.statusCode).toBe(200);
    const byRsin = Object.fromEntries(list.json().map((x: { rsin: string }) => [x.rsin, x]));
    expect(byRsin[A].aantallen).toEqual({ zaken: 1, documenten: 1, clients: 1 });
    // its storage: the content of its document's one version
    const document = (await a.app.call('GET', a.document)).json();
    expect(document.bestandsomvang).toBeGreaterThan(0);
    expect(byRsin[A].opslag).toBe(document.bestandsomvang);
    expect(byRsin[B].aantallen.zaken).toBe(1);
    expect((await a.app.call('GET', '/admin/api/v1/tenants')).statusCode).toBe(403);
    // an organisation's administrator sees its own clients only
    const creds = (await a.app.call('GET', '/admin/api/v1/credentials')).json();
    expect(creds.map((c: { identifier: string }) => c.identifier)).toEqual([`client-${A}`]);
  });
});
