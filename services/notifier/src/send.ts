import { NOTIFICATION_ID_HEADER, type Attempt } from '@zgw/shared';
import type { Clock } from './clock';

export interface Target {
  callbackUrl: string;
  auth: string;
}

/** Sends one notification; never throws: every outcome is an attempt. */
export type Sender = (target: Target, notificationId: string, body: string) => Promise<Attempt>;

/**
 * POSTs the notification (the NRC message as JSON) to the callback with the abonnement's Authorization header and
 * the notification id (NOTIFICATION_ID_HEADER). Any 2xx is a delivery; anything else, a redirect included (not
 * followed), no answer within `timeoutMs`, or no connection, is a failed attempt. The error names what went wrong,
 * never the header or the body.
 */
export function httpSender(clock: Clock, timeoutMs: number): Sender {
  return async (target, notificationId, body) => {
    const at = new Date(clock.now());
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const res = await fetch(target.callbackUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: target.auth, [NOTIFICATION_ID_HEADER]: notificationId },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      // The answer's body is not needed, but reading it frees the connection for the next delivery.
      await res.arrayBuffer().catch(() => undefined);
      const ok = res.status >= 200 && res.status <= 299;
      return { at, status: res.status, durationMs: took(), ok, error: ok ? null : `HTTP ${res.status}` };
    } catch (err) {
      return { at, status: null, durationMs: took(), ok: false, error: describe(err, timeoutMs) };
    }
  };
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `timeout after ${timeoutMs} ms`;
  const cause = e.cause?.code ?? e.cause?.message;
  return (cause ? `${e.message ?? 'fetch failed'}: ${cause}` : (e.message ?? String(err))).slice(0, 300);
}
