import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { catalogus, startReferentielijsten, zaaktypeBody, create, publish, type Referentielijsten } from './catalogi.fixtures';
import { eventually, token, type TestApp } from './harness';
import { freePort } from './local-store.helpers';
import { CRS, zaakBody, ZRC } from './zaken.fixtures';

// Traces across the processes, as they run in production: the API and the notifier (services/*/dist) export to a
// test OTLP receiver over HTTP (http/json); a zaak create is followed from the request to the delivery POST.
const ROOT = join(__dirname, '..', '..', '..');
const BSN = '111222333';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}
interface Received {
  service: string;
  span: OtlpSpan;
}

const listen = async (server: Server) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
};
const bodyOf = (req: IncomingMessage) =>
  new Promise<string>((r) => {
    let b = '';
    req.on('data', (d) => (b += d));
    req.on('end', () => r(b));
  });

let otlp: Server;
const bodies: string[] = [];
const spans: Received[] = [];
let receiver: Server;
const delivered: { traceparent?: string; body: any }[] = [];
let sl: Referentielijsten;
const processes: ChildProcess[] = [];
let api: TestApp;
let apiPort: number;

beforeAll(async () => {
  const receive = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await bodyOf(req);
    bodies.push(text);
    const doc = JSON.parse(text) as {
      resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
    };
    for (const rs of doc.resourceSpans ?? []) {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
      for (const ss of rs.scopeSpans ?? []) for (const span of ss.spans ?? []) spans.push({ service, span });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  };
  otlp = createServer((req, res) => void receive(req, res));
  const otlpPort = await listen(otlp);
  const deliver = async (req: IncomingMessage, res: ServerResponse) => {
    const text = await bodyOf(req);
    delivered.push({ traceparent: req.headers.traceparent as string | undefined, body: text ? JSON.parse(text) : undefined });
    res.writeHead(204).end();
  };
  receiver = createServer((req, res) => void deliver(req, res));
  await listen(receiver);
  sl = await startReferentielijsten();

  const id = randomUUID().slice(0, 8);
  apiPort = await freePort();
  const env = {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpPort}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    MONGODB_DB: `zgw_test_trace_${id}`,
    KAFKA_TOPIC_PREFIX: `test-trace-${id}-`,
    PORT: String(apiPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    ZGW_CLIENTS: 'trace-client:trace-secret:all',
    REFERENTIELIJSTEN_URL: sl.url,
    AUDIT_SPOOL_DIR: mkdtempSync(join(tmpdir(), 'zgw-trace-spool-')),
    NOTIFIER_METRICS_PORT: '0',
    NRC_REFRESH_MS: '300',
    LOG_LEVEL: 'warn',
  };
  for (const service of ['api', 'notifier']) {
    const child = spawn(process.execPath, [join(ROOT, 'services', service, 'dist', 'main.js')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    processes.push(child);
  }
  const bearer = `Bearer ${token('trace-client', 'trace-secret')}`;
  api = {
    call: async (method: string, url: string, body?: unknown, opts: { headers?: Record<string, string> } = {}) => {
      const full = url.startsWith('http') ? url : `http://127.0.0.1:${apiPort}${url}`;
      const res = await fetch(full, {
        method,
        headers: { authorization: bearer, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(opts.headers ?? {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { statusCode: res.status, body: text, json: () => JSON.parse(text) };
    },
  } as unknown as TestApp;
  expect(await eventually(async () => (await fetch(`http://127.0.0.1:${apiPort}/ready`).catch(() => undefined))?.status === 200, 60_000)).toBe(true);
}, 120_000);

afterAll(async () => {
  for (const p of processes) p.kill('SIGTERM');
  await Promise.all(processes.map((p) => new Promise((r) => (p.exitCode === null ? p.once('exit', r) : r(null)))));
  await sl?.close();
  otlp?.close();
  receiver?.close();
});

const attr = (s: OtlpSpan, key: string) => s.attributes?.find((a) => a.key === key)?.value;
const ofTrace = (traceId: string) => spans.filter((s) => s.span.traceId === traceId);

test("one zaak create: the API request, its MongoDB write, the Kafka publish, the notifier's consume and the delivery POST share one trace id", async () => {
  const cat = await catalogus(api, 'TRC');
  const zt = await create(api, 'zaaktypen', zaaktypeBody(cat, { selectielijstProcestype: sl.procestype }));
  await publish(api, zt.url);
  const org = '123456782';
  const ab = await api.call('POST', '/notificaties/api/v1/abonnement', {
    callbackUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`,
    auth: 'Bearer x',
    kanalen: [{ naam: 'zaken', filters: { bronorganisatie: org } }],
  });
  expect(ab.statusCode).toBe(201);
  await new Promise((r) => setTimeout(r, 1000)); // the notifier re-reads abonnementen every NRC_REFRESH_MS
  const zaak = await api.call('POST', `${ZRC}/zaken`, zaakBody(zt.url, { bronorganisatie: org, verantwoordelijkeOrganisatie: org }), {
    headers: CRS,
  });
  expect(zaak.statusCode).toBe(201);
  const url = zaak.json().url as string;

  expect(await eventually(async () => delivered.some((d) => d.body?.resourceUrl === url && d.body?.actie === 'create'), 30_000)).toBe(true);
  const traceparent = delivered.find((d) => d.body?.resourceUrl === url)!.traceparent!;
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
  const traceId = traceparent.split('-')[1]!;

  const want = {
    request: (r: Received) =>
      r.service === 'api' && r.span.kind === 2 && String(attr(r.span, 'http.route')?.stringValue ?? r.span.name).includes('/zaken/api/v1/zaken'),
    // the write of the zaak (and its outbox event) itself, not just a read
    mongodb: (r: Received) =>
      r.service === 'api' &&
      (attr(r.span, 'db.system')?.stringValue === 'mongodb' || attr(r.span, 'db.system.name')?.stringValue === 'mongodb') &&
      /insert|update|bulkWrite|findAndModify/i.test(
        `${r.span.name} ${attr(r.span, 'db.operation')?.stringValue ?? ''} ${attr(r.span, 'db.operation.name')?.stringValue ?? ''}`,
      ),
    publish: (r: Received) => r.service === 'api' && r.span.kind === 4 && r.span.name === 'send zaken',
    consume: (r: Received) => r.service === 'notifier' && r.span.kind === 5 && r.span.name.endsWith('zaken'),
    delivery: (r: Received) => r.service === 'notifier' && r.span.kind === 3 && r.span.name.startsWith('POST'),
  };
  expect(await eventually(async () => Object.values(want).every((w) => ofTrace(traceId).some(w)), 30_000)).toBe(true);
  const found = Object.fromEntries(Object.entries(want).map(([k, w]) => [k, ofTrace(traceId).find(w)!.span]));
  // parent links: the publish is a child within the request's trace, the consume a child of the publish
  expect(found.consume!.parentSpanId).toBe(found.publish!.spanId);
  expect(traceparent.split('-')[2]).toBe(found.delivery!.spanId);
});

test('a _zoek and a list filtered by BSN leave the BSN in no span', async () => {
  const zoek = await api.call('POST', `${ZRC}/zaken/_zoek`, { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: BSN }, { headers: CRS });
  expect(zoek.statusCode).toBe(200);
  const list = await api.call('GET', `${ZRC}/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=${BSN}`, undefined, { headers: CRS });
  expect(list.statusCode).toBe(200);
  const traced = (route: string) =>
    spans.some((r) => r.service === 'api' && r.span.kind === 2 && String(attr(r.span, 'http.route')?.stringValue ?? '').endsWith(route));
  expect(
    await eventually(
      async () => traced('/zaken/_zoek') && spans.some((r) => r.span.kind === 2 && JSON.stringify(r.span.attributes).includes('inpBsn')),
      20_000,
    ),
  ).toBe(true);
  await new Promise((r) => setTimeout(r, 500)); // whatever else those requests caused is exported too
  expect(bodies.join('\n')).not.toContain(BSN);
});
