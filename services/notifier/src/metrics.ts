import { Counter, Gauge, consumerLagGauge, type KafkaProbe, type Logger, type Registry } from '@zgw/shared';
import type { Lane } from './lane';

/** What the metrics read of a notifier instance. */
export interface Observed {
  readonly active: boolean;
  readonly lease: { readonly holding: boolean };
  readonly deliverer: { allLanes(): Iterable<Lane> };
}

/** Delivery attempts by result: `delivered`, `failed` (an attempt that failed), `given_up` (no more attempts). */
export const deliveries = new Counter({
  name: 'zgw_notifier_deliveries_total',
  help: 'Delivery attempts to abonnementen by result: delivered, failed (an attempt failed), given_up (no attempt follows)',
  labelNames: ['result'],
  registers: [],
});

/** Receivers shown by name in the pending gauge; the rest are summed as `other`. */
const TOP = 10;

/**
 * The notifier's metrics: deliveries by result, pending deliveries of the receivers with the most (by the origin of
 * their callback URL: never an id), failing and locked abonnementen, whether this instance holds the lease, and the
 * consumer lag of its group. The lane gauges have samples only in the instance that holds the lease.
 */
export function registerNotifierMetrics(
  registry: Registry,
  notifier: () => Observed | undefined,
  lag: { probe: KafkaProbe; group: string; topics: string[] },
  log: Logger,
): void {
  registry.registerMetric(deliveries);
  const lanes = () => {
    const n = notifier();
    return n?.active ? [...n.deliverer.allLanes()] : undefined;
  };
  new Gauge({
    name: 'zgw_notifier_lease_held',
    help: '1 while this instance holds the lease (delivers), 0 while it stands by',
    registers: [registry],
    collect() {
      this.set(notifier()?.lease.holding ? 1 : 0);
    },
  });
  for (const state of ['failing', 'locked'] as const) {
    new Gauge({
      name: `zgw_notifier_abonnementen_${state}`,
      help:
        state === 'locked'
          ? 'Abonnementen locked after failing for NRC_LOCK_AFTER_HOURS (nothing is sent to them until unlocked)'
          : 'Abonnementen whose latest attempts failed (retried with backoff)',
      registers: [registry],
      collect() {
        this.reset();
        const all = lanes();
        if (all) this.set(all.filter((l) => l[state]).length);
      },
    });
  }
  new Gauge({
    name: 'zgw_notifier_deliveries_pending',
    help: `Deliveries waiting (queued or in flight) by receiver (origin of the callback URL), the ${TOP} with most by name, the rest as "other"`,
    labelNames: ['receiver'],
    registers: [registry],
    collect() {
      this.reset();
      const all = lanes();
      if (!all) return;
      const byReceiver = new Map<string, number>();
      for (const l of all) {
        const receiver = originOf(l.target.callbackUrl);
        byReceiver.set(receiver, (byReceiver.get(receiver) ?? 0) + l.queue.size + l.inflight);
      }
      const sorted = [...byReceiver].sort((a, b) => b[1] - a[1]);
      for (const [receiver, n] of sorted.slice(0, TOP)) this.set({ receiver }, n);
      if (sorted.length > TOP)
        this.set(
          { receiver: 'other' },
          sorted.slice(TOP).reduce((sum, [, n]) => sum + n, 0),
        );
    },
  });
  consumerLagGauge(registry, lag.probe, lag.group, () => lag.topics, log);
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid';
  }
}
