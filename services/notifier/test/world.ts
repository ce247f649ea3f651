import { randomUUID } from 'node:crypto';
import { createLogger, loadConfig, NRC_DELIVERIES, NRC_STATUS, type Config, type DeliveryDoc, type StatusDoc } from '@zgw/shared';
import { eventually, startApp, type TestApp } from '../../api/test/harness';
import { startNotifier, type Notifier } from '../src/worker';
import { ManualClock, Receiver } from './receivers';

export const NRC = '/notificaties/api/v1';
export const ADMIN_NRC = '/admin/api/v1/notificaties';
export const silent = createLogger('notifier', 'silent');
export { eventually };

/**
 * The API (in-process, as its own tests start it) and a notifier on its database and topics, with a clock the test
 * moves. Each test uses its own bronorganisatie as kenmerk, so abonnementen of other tests never match.
 */
export interface World {
  t: TestApp;
  clock: ManualClock;
  /** The clock the lease of the notifiers started here measures on (it moves only when the test moves it). */
  leaseClock: ManualClock;
  notifier: Notifier;
  env: Record<string, string>;
  config(): Config;
  /** Starts a notifier (again) on the same database, topics and clock. */
  startNotifier(): Promise<Notifier>;
  abonnement(r: Receiver, kanalen: { naam: string; filters?: Record<string, string> }[], auth?: string): Promise<string>;
  /** Publishes a notification through `POST /notificaties` (as an external producer); returns its resourceUrl. */
  publish(kenmerken: Record<string, string>, kanaal?: string): Promise<string>;
  status(abonnementUrl: string): Promise<StatusDoc | null>;
  deliveries(abonnementUrl: string): Promise<DeliveryDoc[]>;
  admin(method: string, path: string, body?: unknown): Promise<{ statusCode: number; json(): any }>;
  close(): Promise<void>;
}

export const uuidOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

export async function world(env: Record<string, string> = {}): Promise<World> {
  const t = await startApp({ NRC_DELIVERY_TIMEOUT_MS: '5000', ...env });
  const clock = new ManualClock();
  const leaseClock = new ManualClock(0);
  const nrcEnv = { NRC_REFRESH_MS: '300', NRC_DELIVERY_TIMEOUT_MS: '5000', ...env };
  const config = () =>
    loadConfig({ ...process.env, MONGODB_DB: t.config.MONGODB_DB, KAFKA_TOPIC_PREFIX: t.topicPrefix, LOG_LEVEL: 'silent', ...nrcEnv });
  const w: World = {
    t,
    clock,
    leaseClock,
    env: nrcEnv,
    notifier: undefined as never,
    config,
    startNotifier: async () => (w.notifier = await startNotifier(config(), silent, { clock, leaseClock })),
    abonnement: async (r, kanalen, auth = `Bearer ${randomUUID()}`) => {
      const res = await t.call('POST', `${NRC}/abonnement`, { callbackUrl: r.url, auth, kanalen });
      if (res.statusCode !== 201) throw new Error(`abonnement: ${res.statusCode} ${res.body}`);
      const url = res.json().url as string;
      // The notifier knows it before anything is published for it.
      await w.notifier.refresh();
      return url;
    },
    publish: async (kenmerken, kanaal = 'zaken') => {
      const resourceUrl = `https://example.com/zaken/${randomUUID()}`;
      const res = await t.call('POST', `${NRC}/notificaties`, {
        kanaal,
        hoofdObject: resourceUrl,
        resource: 'zaak',
        resourceUrl,
        actie: 'create',
        aanmaakdatum: new Date(clock.now()).toISOString(),
        kenmerken,
      });
      if (res.statusCode !== 201) throw new Error(`publish: ${res.statusCode} ${res.body}`);
      return resourceUrl;
    },
    status: (url) => t.mongo.db.collection<StatusDoc>(NRC_STATUS).findOne({ _id: uuidOf(url) }),
    deliveries: (url) =>
      t.mongo.db
        .collection<DeliveryDoc>(NRC_DELIVERIES)
        .find({ abonnement: uuidOf(url) })
        .sort({ createdAt: -1, _id: -1 })
        .toArray(),
    admin: (method, path, body) => t.call(method, `${ADMIN_NRC}${path}`, body),
    close: async () => {
      await w.notifier?.stop();
      await t.close();
    },
  };
  await w.startNotifier();
  return w;
}

/** Waits until the receiver has `n` deliveries (test notifications of the callback check not counted). */
export async function receivedAtLeast(r: Receiver, n: number, timeoutMs = 20_000): Promise<boolean> {
  return eventually(async () => r.ids().length >= n, timeoutMs);
}

/** The resourceUrls a receiver got, in order. */
export const urlsOf = (r: Receiver) => r.received.filter((x) => x.body.kanaal !== 'test').map((x) => String(x.body.resourceUrl));
