import { catalogus, ZTC } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { has, parseExposition, total } from './metrics.helpers';

// /metrics and /ready of the API, scraped after a workload as Prometheus would.
let t: TestApp;

beforeAll(async () => {
  t = await startApp({ READY_OUTBOX_MAX_AGE_SECONDS: '1' });
});
afterAll(async () => t?.close());

const scrape = async (app = t) => {
  const res = await app.call('GET', '/metrics', undefined, { token: null });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  return parseExposition(res.body);
};
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

test('requests are counted by route template, method and status; the read caches count hits and misses; no label holds an id', async () => {
  const before = await scrape();
  const list = { route: `${ZTC}/catalogussen`, method: 'GET', status_code: '200' };
  const created = await catalogus(t);
  for (let i = 0; i < 3; i++) expect((await t.call('GET', `${ZTC}/catalogussen`)).statusCode).toBe(200);
  expect((await t.call('GET', created)).statusCode).toBe(200);
  expect((await t.call('GET', '/nergens')).statusCode).toBe(404);
  const after = await scrape();

  const count = 'zgw_http_request_duration_seconds_count';
  expect(total(after, count, list) - total(before, count, list)).toBe(3);
  expect(
    total(after, count, { route: `${ZTC}/catalogussen`, method: 'POST', status_code: '201' }) -
      total(before, count, { route: `${ZTC}/catalogussen`, method: 'POST', status_code: '201' }),
  ).toBe(1);
  expect(total(after, count, { route: `${ZTC}/catalogussen/:uuid`, method: 'GET', status_code: '200' })).toBeGreaterThanOrEqual(1);
  expect(total(after, count, { route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1);
  // the histogram's buckets are cumulative: the last one holds every request of its series
  expect(total(after, 'zgw_http_request_duration_seconds_bucket', { ...list, le: '+Inf' })).toBe(total(after, count, list));
  // every request after the first finds the caller's credentials in the cache
  expect(total(after, 'zgw_read_cache_hits_total') - total(before, 'zgw_read_cache_hits_total')).toBeGreaterThanOrEqual(4);
  expect(total(after, 'zgw_read_cache_misses_total')).toBeGreaterThan(0);
  for (const s of after) for (const v of Object.values(s.labels)) expect(v).not.toMatch(UUID);
  for (const name of [
    'zgw_audit_spool_bytes',
    'zgw_audit_spool_oldest_entry_age_seconds',
    'zgw_outbox_events_waiting',
    'zgw_outbox_oldest_event_age_seconds',
  ])
    expect(has(after, name)).toBe(true);
});

test('the outbox: events waiting and the age of the oldest are measured; /ready says not ready once they wait too long, and ready again when sent', async () => {
  expect((await t.call('GET', '/ready', undefined, { token: null })).json()).toMatchObject({ status: 'ready', mongodb: 'ok', outbox: 'ok' });
  await t.relay.stop();
  for (let i = 0; i < 3; i++)
    expect(
      (
        await t.call('POST', '/autorisaties/api/v1/applicaties', {
          clientIds: [`metrics-${i}-${Date.now()}`],
          label: 'x',
          heeftAlleAutorisaties: true,
        })
      ).statusCode,
    ).toBe(201);
  await new Promise((r) => setTimeout(r, 1500));
  const waiting = await scrape();
  // each applicatie create leaves its notification on kanaal autorisaties in the outbox
  expect(total(waiting, 'zgw_outbox_events_waiting')).toBeGreaterThanOrEqual(3);
  expect(total(waiting, 'zgw_outbox_oldest_event_age_seconds')).toBeGreaterThanOrEqual(1);
  const stuck = await t.call('GET', '/ready', undefined, { token: null });
  expect(stuck.statusCode).toBe(503);
  expect(stuck.json()).toMatchObject({ status: 'not ready', mongodb: 'ok', outbox: expect.stringMatching(/^stuck/) });

  expect(await t.relay.drain()).toBeGreaterThanOrEqual(3);
  const sent = await scrape();
  expect(total(sent, 'zgw_outbox_events_waiting')).toBe(0);
  expect(total(sent, 'zgw_outbox_oldest_event_age_seconds')).toBe(0);
  expect((await t.call('GET', '/ready', undefined, { token: null })).statusCode).toBe(200);
});

test('with METRICS_TOKEN set, /metrics wants it as a bearer token', async () => {
  const other = await startApp({ METRICS_TOKEN: 'scrape-secret' });
  try {
    expect((await other.call('GET', '/metrics', undefined, { token: null })).statusCode).toBe(401);
    expect((await other.call('GET', '/metrics', undefined, { token: 'wrong-secret!' })).statusCode).toBe(401);
    const ok = await other.call('GET', '/metrics', undefined, { token: 'scrape-secret' });
    expect(ok.statusCode).toBe(200);
    expect(has(parseExposition(ok.body), 'zgw_outbox_events_waiting')).toBe(true);
  } finally {
    await other.close();
  }
});
