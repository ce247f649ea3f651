import { ApplicationFailure, Context } from '@temporalio/activity';
import { ZgwCallError } from '@zgw/shared';
import { PERMANENT } from './context';

/** Every activity of every feature as the worker registers it: kept alive by heartbeats, a 4xx of a ZGW API permanent. */
export function workerActivities<T extends Record<string, Fn>>(activities: T): T {
  return alive(permanent4xx(activities));
}

/**
 * Every activity heartbeats while it runs (three times per heartbeat timeout), so a long step (a large document)
 * lives as long as its worker does, and a worker that dies is noticed within the timeout and the step retried
 * elsewhere. Calls that hang end by their own timeouts.
 */
function alive<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  return wrap(activities, async (fn, args) => {
    const ctx = Context.current();
    const every = ctx.info.heartbeatTimeoutMs ? Math.max(200, ctx.info.heartbeatTimeoutMs / 3) : 0;
    const timer = every ? setInterval(() => ctx.heartbeat(), every) : undefined;
    try {
      return await fn(...args);
    } finally {
      clearInterval(timer);
    }
  });
}

/**
 * A 4xx of a ZGW API is an answer, not an outage: the same request gets it again. It ends the step at once (type
 * Permanent: compensated, `mislukt` with the target's reason) instead of being retried up to the limit.
 */
function permanent4xx<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  return wrap(activities, async (fn, args) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (err instanceof ZgwCallError && !err.technisch)
        throw ApplicationFailure.create({ type: PERMANENT, message: err.message, nonRetryable: true });
      throw err;
    }
  });
}

type Fn = (...args: never[]) => Promise<unknown>;

/** Every activity of `activities` run through `around`. */
function wrap<T extends Record<string, Fn>>(activities: T, around: (fn: Fn, args: never[]) => Promise<unknown>): T {
  return Object.fromEntries(Object.entries(activities).map(([name, fn]) => [name, (...args: never[]) => around(fn, args)])) as T;
}
