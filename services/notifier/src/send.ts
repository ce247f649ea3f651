import http from 'node:http';
import https from 'node:https';
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
 * the notification id (NOTIFICATION_ID_HEADER), over kept-alive connections (node:http: a fraction of fetch's cost
 * per request, which counts at thousands of deliveries a second). Any 2xx is a delivery; anything else, a redirect
 * included (not followed), no complete answer within `timeoutMs`, or no connection, is a failed attempt. The error
 * names what went wrong, never the header or the body.
 */
export function httpSender(clock: Clock, timeoutMs: number): Sender {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  return (target, notificationId, body) =>
    new Promise<Attempt>((resolve) => {
      const at = new Date(clock.now());
      const started = performance.now();
      let settled = false;
      const done = (status: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const ok = status !== null && status >= 200 && status <= 299 && error === null;
        resolve({ at, status, durationMs: Math.round(performance.now() - started), ok, error: ok ? null : (error ?? `HTTP ${status}`) });
      };
      let url: URL;
      try {
        url = new URL(target.callbackUrl);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
      } catch (err) {
        settled = true;
        resolve({ at, status: null, durationMs: 0, ok: false, error: `invalid callback URL: ${(err as Error).message}`.slice(0, 300) });
        return;
      }
      const lib = url.protocol === 'https:' ? https : http;
      const req = lib.request(url, {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          Authorization: target.auth,
          [NOTIFICATION_ID_HEADER]: notificationId,
        },
      });
      const timer = setTimeout(() => {
        req.destroy(new Error('timeout'));
        done(null, `timeout after ${timeoutMs} ms`);
      }, timeoutMs);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        // The answer's body is not needed, but reading it to the end frees the connection for the next delivery.
        res.resume();
        res.on('end', () => done(status, null));
        res.on('error', (err) => done(null, describe(err)));
        res.on('aborted', () => done(null, 'answer aborted'));
      });
      req.on('error', (err) => done(null, describe(err)));
      req.end(body);
    });
}

function describe(err: Error & { code?: string }): string {
  return (err.code ? `${err.code}: ${err.message}` : err.message).slice(0, 300);
}
