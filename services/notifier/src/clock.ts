/**
 * The notifier's time: when deliveries are due, when an abonnement fails long enough to lock, what is old enough to
 * go. Injected, so tests can pass a week without waiting one.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
