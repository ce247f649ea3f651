import { randomUUID } from 'node:crypto';
import { Receivers } from './receivers';
import { NRC, eventually, receivedAtLeast, urlsOf, world, type World } from './world';

// End to end on the engines: notifications published through the API travel the outbox, Kafka and the notifier to
// the callbacks of the abonnementen whose kanaal and filters they match.
let w: World;
const receivers = new Receivers();
const receiver = () => receivers.start();

beforeAll(async () => {
  w = await world();
});
afterAll(async () => {
  await w?.close();
  await receivers.closeAll();
});

describe('fan-out', () => {
  it('delivers to the abonnementen whose kanaal and filters match, with their Authorization header and one id per notification', async () => {
    const org = randomUUID().slice(0, 9);
    const other = randomUUID().slice(0, 9);
    const [a, b, all, docs] = [await receiver(), await receiver(), await receiver(), await receiver()];
    await w.abonnement(a, [{ naam: 'zaken', filters: { bronorganisatie: org } }], 'Bearer token-a');
    await w.abonnement(b, [{ naam: 'zaken', filters: { bronorganisatie: org, zaaktype: 'https://example.com/zaaktypen/1' } }], 'Token b');
    await w.abonnement(
      all,
      [
        { naam: 'zaken', filters: { bronorganisatie: org, zaaktype: '*' } },
        { naam: 'documenten', filters: { bronorganisatie: org } },
      ],
      'Bearer all',
    );
    await w.abonnement(docs, [{ naam: 'documenten', filters: { bronorganisatie: org } }], 'Bearer docs');

    const z1 = await w.publish({ bronorganisatie: org, zaaktype: 'https://example.com/zaaktypen/1' });
    const z2 = await w.publish({ bronorganisatie: org, zaaktype: 'https://example.com/zaaktypen/2' });
    const zOther = await w.publish({ bronorganisatie: other, zaaktype: 'https://example.com/zaaktypen/1' });
    const d1 = await w.publish({ bronorganisatie: org }, 'documenten');

    expect(await receivedAtLeast(a, 2)).toBe(true);
    expect(await receivedAtLeast(b, 1)).toBe(true);
    expect(await receivedAtLeast(all, 3)).toBe(true);
    expect(await receivedAtLeast(docs, 1)).toBe(true);
    // What matches nothing more was published before the last one each got; let the notifier finish what it has.
    await w.notifier.deliverer.settle();

    expect(urlsOf(a).sort()).toEqual([z1, z2].sort());
    expect(urlsOf(b)).toEqual([z1]);
    expect(urlsOf(all).sort()).toEqual([z1, z2, d1].sort());
    expect(urlsOf(docs)).toEqual([d1]);
    for (const r of [a, b, all, docs]) expect(urlsOf(r)).not.toContain(zOther);

    expect(new Set(a.received.filter((x) => x.body.kanaal !== 'test').map((x) => x.auth))).toEqual(new Set(['Bearer token-a']));
    expect(new Set(b.received.map((x) => x.auth))).toEqual(new Set(['Token b']));
    // The message as published, and one id per notification whoever receives it.
    const first = a.received.find((x) => x.body.resourceUrl === z1)!;
    expect(first.body).toMatchObject({
      kanaal: 'zaken',
      resource: 'zaak',
      actie: 'create',
      resourceUrl: z1,
      hoofdObject: z1,
      kenmerken: { bronorganisatie: org },
    });
    expect(first.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.received.find((x) => x.body.resourceUrl === z1)!.id).toBe(first.id);
    expect(all.received.find((x) => x.body.resourceUrl === z1)!.id).toBe(first.id);
    expect(new Set(a.ids()).size).toBe(2);
  });

  it("delivers the platform's own events (an applicatie created in the Autorisaties API)", async () => {
    const r = await receiver();
    await w.abonnement(r, [{ naam: 'autorisaties' }]);
    const created = await w.t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: [`nrc-${randomUUID()}`],
      label: 'NRC',
      heeftAlleAutorisaties: true,
    });
    expect(created.statusCode).toBe(201);
    expect(await eventually(async () => urlsOf(r).includes(created.json().url))).toBe(true);
    expect(r.received.find((x) => x.body.resourceUrl === created.json().url)!.body).toMatchObject({
      kanaal: 'autorisaties',
      resource: 'applicatie',
      actie: 'create',
    });
  });

  it('records every delivery with its attempt (time, status, duration) and the abonnement state', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    r.behaviour = { status: 200 };
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    await w.publish({ bronorganisatie: org });
    expect(await receivedAtLeast(r, 1)).toBe(true);
    await w.notifier.deliverer.settle();
    const [d] = await w.deliveries(url);
    expect(d).toMatchObject({ state: 'delivered', tries: 1, notificatie: r.ids()[0] });
    expect(d!.attempts).toHaveLength(1);
    expect(d!.attempts[0]).toMatchObject({ status: 200, ok: true, error: null, at: new Date(w.clock.now()) });
    expect(typeof d!.attempts[0]!.durationMs).toBe('number');
    const s = await w.status(url);
    expect(s).toMatchObject({ state: 'active', delivered: 1, failedAttempts: 0, failingSince: null });
    expect(s!.lastAttempts[0]).toMatchObject({ status: 200, ok: true, notificatie: r.ids()[0], kanaal: 'zaken' });
  });

  it('consumes the topic of a kanaal registered while it runs', async () => {
    const naam = `extern-${randomUUID().slice(0, 8)}`;
    const k = await w.t.call('POST', `${NRC}/kanaal`, { naam, filters: ['soort'] });
    expect(k.statusCode).toBe(201);
    const r = await receiver();
    await w.abonnement(r, [{ naam, filters: { soort: 'a' } }]);
    const yes = await w.publish({ soort: 'a' }, naam);
    await w.publish({ soort: 'b' }, naam);
    expect(await eventually(async () => urlsOf(r).includes(yes), 40_000)).toBe(true);
    await w.notifier.deliverer.settle();
    expect(urlsOf(r)).toEqual([yes]);
  });

  it('drops the queue of a deleted abonnement', async () => {
    const org = randomUUID().slice(0, 9);
    const r = await receiver();
    const url = await w.abonnement(r, [{ naam: 'zaken', filters: { bronorganisatie: org } }]);
    r.behaviour = 'hold';
    await w.publish({ bronorganisatie: org });
    await r.untilHolding(1);
    expect((await w.t.call('DELETE', url)).statusCode).toBe(204);
    await w.notifier.refresh();
    r.release();
    await w.notifier.deliverer.settle();
    expect(await w.deliveries(url)).toEqual([]);
    expect(await w.status(url)).toBeNull();
    expect(w.notifier.deliverer.lane(url.slice(url.lastIndexOf('/') + 1))).toBeUndefined();
  });
});
