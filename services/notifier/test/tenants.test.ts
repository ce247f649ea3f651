import { randomUUID } from 'node:crypto';
import { ensureAllRights } from '../../api/src/bootstrap';
import { token } from '../../api/test/harness';
import { Receivers } from './receivers';
import { NRC, receivedAtLeast, urlsOf, world, type World } from './world';

// Kanalen are shared by all tenants; abonnementen are a tenant's, and receive that tenant's notifications only.
let w: World;
const receivers = new Receivers();
const OTHER = '123456782';

beforeAll(async () => {
  w = await world();
  expect((await w.t.call('POST', '/admin/api/v1/tenants', { rsin: OTHER, naam: 'Andere gemeente' })).statusCode).toBe(201);
  expect((await w.t.call('POST', '/admin/api/v1/credentials', { identifier: 'andere', secret: 'andere-secret', tenant: OTHER })).statusCode).toBe(
    201,
  );
  await ensureAllRights(w.t.deps.db, 'andere', OTHER);
});
afterAll(async () => {
  await w?.close();
  await receivers.closeAll();
});

it("delivers a tenant's notifications to its own abonnementen only, on the same kanaal", async () => {
  const andere = token('andere', 'andere-secret');
  const [mine, theirs] = [await receivers.start(), await receivers.start()];
  await w.abonnement(mine, [{ naam: 'zaken' }], 'Bearer mine');
  const res = await w.t.call(
    'POST',
    `${NRC}/abonnement`,
    { callbackUrl: theirs.url, auth: 'Bearer theirs', kanalen: [{ naam: 'zaken' }] },
    { token: andere },
  );
  expect(res.statusCode).toBe(201);
  await w.notifier.refresh();
  const published = async (tok?: string) => {
    const resourceUrl = `https://example.com/zaken/${randomUUID()}`;
    const body = {
      kanaal: 'zaken',
      hoofdObject: resourceUrl,
      resource: 'zaak',
      resourceUrl,
      actie: 'create',
      aanmaakdatum: new Date().toISOString(),
      kenmerken: {},
    };
    expect((await w.t.call('POST', `${NRC}/notificaties`, body, tok ? { token: tok } : {})).statusCode).toBe(201);
    return resourceUrl;
  };
  const ours = await published();
  const others = await published(andere);
  expect(await receivedAtLeast(mine, 1)).toBe(true);
  expect(await receivedAtLeast(theirs, 1)).toBe(true);
  await w.notifier.deliverer.settle();
  expect(urlsOf(mine)).toEqual([ours]);
  expect(urlsOf(theirs)).toEqual([others]);
  // each tenant sees its own abonnement only
  const list = (await w.t.call('GET', `${NRC}/abonnement`, undefined, { token: andere })).json();
  expect(list.map((a: { callbackUrl: string }) => a.callbackUrl)).toEqual([theirs.url]);
});
