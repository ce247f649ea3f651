import { connect } from 'node:net';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { startApp, token, type TestApp } from './harness';

// A client that goes away before its request is read whole (a timeout, a closed laptop, a load tool stopping) is no
// fault of the server: it is logged at info, never as an error that would page someone.
const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
    done();
  },
});

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await startApp({ LOG_LEVEL: 'info' }, { logTo: sink });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await t.close();
});

/** Sends a request (a POST: its head and part of its body), then closes the connection before the answer. */
async function abandon(method: string, path: string): Promise<void> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token()}\r\nAccept-Crs: EPSG:4326\r\n`;
  socket.write(
    method === 'GET'
      ? `${head}\r\n`
      : `${head}Content-Type: application/json\r\nContent-Crs: EPSG:4326\r\nContent-Length: 5000\r\n\r\n{"titel": "half`,
  );
  await new Promise((r) => setTimeout(r, method === 'GET' ? 0 : 100));
  socket.destroy();
}

it('logs a request its client abandoned at info, not as an error', async () => {
  await abandon('POST', '/documenten/api/v1/enkelvoudiginformatieobjecten');
  for (let i = 0; i < 5; i++) await abandon('GET', '/zaken/api/v1/zaken');
  const deadline = Date.now() + 5000;
  while (!lines.some((l) => String(l.msg).includes('closed the connection')) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  expect(lines.filter((l) => l.level === 'error' || l.level === 'fatal').map((l) => l.msg)).toEqual([]);
  const abandoned = lines.filter((l) => String(l.msg).includes('closed the connection'));
  expect(abandoned.length).toBeGreaterThanOrEqual(1);
  expect(abandoned.every((l) => l.level === 'info')).toBe(true);
});
