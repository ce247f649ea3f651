import { RateLimiter, parseRateLimit } from '../src/common/auth/rate-limit';
import { AdminBrowser, PASSWORD } from './admin-ui.helpers';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC } from './zaken.fixtures';

/**
 * RATE_LIMIT: requests per client id in fixed windows, each instance its share; over it a 429 in the ZGW problem
 * format with Retry-After and the RateLimit headers, while other clients go on and /health, /ready and /metrics are
 * never limited.
 */
describe('the rule and its counting', () => {
  it('reads <requests>/<window> with the window in s, m or h, and refuses anything else', () => {
    expect(parseRateLimit('40/1s')).toEqual({ limit: 40, windowMs: 1_000 });
    expect(parseRateLimit('600/1m')).toEqual({ limit: 600, windowMs: 60_000 });
    expect(parseRateLimit('5000/2h')).toEqual({ limit: 5000, windowMs: 7_200_000 });
    expect(parseRateLimit('')).toBeUndefined();
    for (const bad of ['40', '40/s', '0/1s', '40/0s', '40/1d', '-1/1s', '40 / 1s']) expect(() => parseRateLimit(bad)).toThrow(/RATE_LIMIT/);
  });

  it('counts per client per window, and each of several instances takes its share', () => {
    let now = 10_000;
    const limiter = new RateLimiter({ limit: 3, windowMs: 1_000 }, 1, () => now);
    expect([1, 2, 3, 4].map(() => limiter.take('a')?.allowed)).toEqual([true, true, true, false]);
    expect(limiter.take('b')).toMatchObject({ allowed: true, remaining: 2 });
    now += 400;
    expect(limiter.take('a')).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1 });
    now += 600; // the next window
    expect(limiter.take('a')).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(limiter.refused).toBe(2);
    const shared = new RateLimiter({ limit: 10, windowMs: 60_000 }, 4, () => now);
    expect([1, 2, 3].map(() => shared.take('a')?.allowed)).toEqual([true, true, false]); // 10 / 4 instances: 2 each
    // an applicatie's own limit in place of RATE_LIMIT, also where RATE_LIMIT is off
    const off = new RateLimiter(undefined, 1, () => now);
    expect(off.take('a')).toBeUndefined();
    expect([1, 2].map(() => off.take('a', { limit: 1, windowMs: 1_000 })?.allowed)).toEqual([true, false]);
  });
});

describe('an API with RATE_LIMIT', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ RATE_LIMIT: '5/1m', ADMIN_INITIAL_USER: 'beheerder', ADMIN_INITIAL_PASSWORD: PASSWORD });
    await t.client('ander', 'ander-geheim');
  });
  afterAll(async () => t.close());

  it('answers 429 in the ZGW problem format once a client used its window, and no one else is slowed', async () => {
    const get = (tok?: string) => t.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS, ...(tok ? { token: tok } : {}) });
    const first = await get();
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({ 'ratelimit-limit': '5', 'ratelimit-remaining': '4' });
    for (let i = 0; i < 4; i++) expect((await get()).statusCode).toBe(200);
    const over = await get();
    expect(over.statusCode).toBe(429);
    expect(over.headers['content-type']).toContain('application/problem+json');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect(over.json()).toMatchObject({ status: 429, code: 'throttled', title: 'Te veel verzoeken.' });
    // another client is not slowed (its applicatie gives it no rights to zaken: 403, not 429)
    const other = await get(token('ander', 'ander-geheim'));
    expect(other.statusCode).toBe(403);
    expect(other.headers['ratelimit-remaining']).toBe('4');
    // health, readiness and metrics are never limited; the refusal is counted
    for (const path of ['/health', '/ready']) expect((await t.call('GET', path, undefined, { token: null })).statusCode).toBe(200);
    const metrics = await t.call('GET', '/metrics', undefined, { token: null });
    expect(metrics.body).toMatch(/^zgw_rate_limited_total 1$/m);
  });

  it("takes an applicatie's own limit from its admin screen, refuses one that is no limit, and falls back to RATE_LIMIT", async () => {
    const b = new AdminBrowser(t);
    expect((await b.login('beheerder', PASSWORD)).statusCode).toBe(303);
    await b.get('/admin/applicaties/nieuw');
    const form = { actie: 'opslaan', label: 'Begrensd', clientIds: 'begrensd', heeftAlleAutorisaties: '1', rows: '0' };
    const refused = await b.post('/admin/applicaties/nieuw', { ...form, rateLimit: 'heel veel' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Rate limit: gebruik');
    const made = await b.post('/admin/applicaties/nieuw', { ...form, rateLimit: '2/1m' });
    expect(made.statusCode).toBe(200);
    const secret = /data-secret>([^<]+)</.exec(made.body)![1]!;
    const uuid = /\/admin\/applicaties\/([0-9a-f-]{36})/.exec(made.body)![1]!;
    const get = () => t.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS, token: token('begrensd', secret) });
    expect((await get()).headers['ratelimit-limit']).toBe('2');
    expect((await get()).statusCode).toBe(200);
    expect((await get()).statusCode).toBe(429);
    // the screen shows it; emptied, RATE_LIMIT governs again (the same window: 2 of its 5 used)
    expect((await b.get(`/admin/applicaties/${uuid}`)).body).toContain('value="2/1m"');
    expect((await b.post(`/admin/applicaties/${uuid}`, { ...form, rateLimit: '' })).statusCode).toBe(303);
    const again = await get();
    expect(again.statusCode).toBe(200);
    expect(again.headers).toMatchObject({ 'ratelimit-limit': '5', 'ratelimit-remaining': '2' });
  });
});
