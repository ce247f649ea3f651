import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { ZgwCallError, ZgwClient } from '../src/zgw-client';

/** A ZGW system that answers each path with the JSON given for it. */
function system(answers: Record<string, unknown>): Promise<{ base: string; server: Server }> {
  const server = createServer((req, res) => {
    const body = answers[req.url ?? ''];
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body ?? { detail: 'niet gevonden' }));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })),
  );
}

const Rol = z.looseObject({ url: z.string(), roltype: z.string() });

describe('ZgwClient parses the answers of another system where they enter', () => {
  let base: string;
  let server: Server;
  const answers: Record<string, unknown> = {};
  const client = new ZgwClient({ clientId: 'test', secret: 'geheim' });

  beforeAll(async () => {
    ({ base, server } = await system(answers));
    Object.assign(answers, {
      '/rollen/1': { url: 'r1', roltype: 't1', betrokkeneType: 'natuurlijk_persoon' },
      '/rollen/kapot': { url: 'r2', roltype: 42 },
      '/rollen': { count: 3, next: `${base}/rollen?page=2`, results: [{ url: 'r1', roltype: 't1' }] },
      '/rollen?page=2': {
        count: 3,
        next: null,
        results: [
          { url: 'r2', roltype: 't2' },
          { url: 'r3', roltype: 't3' },
        ],
      },
      '/rollen-half': { count: 2, next: null, results: [{ url: 'r1', roltype: 't1' }, { url: 'r2' }] },
      '/plat': [{ url: 'r1', roltype: 't1' }],
      '/geen-lijst': { detail: 'iets anders' },
    });
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('answers the typed object and keeps the fields the schema does not name', async () => {
    const rol = await client.get(`${base}/rollen/1`, Rol);
    expect(rol).toEqual({ url: 'r1', roltype: 't1', betrokkeneType: 'natuurlijk_persoon' });
  });

  it('refuses an answer that does not fit as a permanent error naming the field', async () => {
    const err = await client.get(`${base}/rollen/kapot`, Rol).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZgwCallError);
    expect((err as ZgwCallError).technisch).toBe(false);
    expect((err as ZgwCallError).message).toMatch(/voldoet niet aan de standaard; roltype/);
    expect(await client.find(`${base}/rollen/weg`, Rol)).toBeNull();
  });

  it('parses every item of every page of a list, and a plain array as one page', async () => {
    expect((await client.all(`${base}/rollen`, Rol)).map((r) => r.url)).toEqual(['r1', 'r2', 'r3']);
    expect(await client.all(`${base}/plat`, Rol)).toEqual([{ url: 'r1', roltype: 't1' }]);
    // an item that does not fit is named with its place in the page
    await expect(client.all(`${base}/rollen-half`, Rol)).rejects.toThrow(/results\.1\.roltype/);
    await expect(client.all(`${base}/geen-lijst`, Rol)).rejects.toThrow(/geen ZGW-lijst/);
  });
});
