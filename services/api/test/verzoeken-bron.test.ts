import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZgwClient, type Logger } from '@zgw/shared';
import { readSource } from '../src/components/overdrachten/verzoeken';

// An overdrachtverzoek names the sender's zaak: it is read with its zaaktype's identificatie, and when the sender
// cannot be read now the request is kept without them, with a warning that says why (never a silent "no source").

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/zaken/api/v1/zaken/')) {
      res.end(
        JSON.stringify({
          identificatie: 'ZAAK-1',
          bronorganisatie: '002220647',
          vertrouwelijkheidaanduiding: 'openbaar',
          zaaktype: `${base}/catalogi/api/v1/zaaktypen/1`,
        }),
      );
    } else if (req.url === '/catalogi/api/v1/zaaktypen/1') {
      res.end(JSON.stringify({ identificatie: 'ZT-1' }));
    } else {
      res.statusCode = 503;
      res.end('{}');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

function recorder() {
  const warnings: { obj: Record<string, unknown>; msg: string }[] = [];
  return { warnings, log: { warn: (obj: Record<string, unknown>, msg: string) => void warnings.push({ obj, msg }) } as unknown as Logger };
}
const client = () => new ZgwClient({ clientId: 'bron', secret: 'geheim' }, 2000);

test("the sender's zaak is read with its zaaktype's identificatie", async () => {
  const { warnings, log } = recorder();
  const bron = await readSource(client(), `${base}/zaken/api/v1/zaken/00000000-0000-4000-8000-000000000001`, log);
  expect(bron).toEqual({
    identificatie: 'ZAAK-1',
    bronorganisatie: '002220647',
    vertrouwelijkheidaanduiding: 'openbaar',
    zaaktypeIdentificatie: 'ZT-1',
  });
  expect(warnings).toEqual([]);
});

test('a sender that cannot be read leaves the request without a source, with a warning carrying the cause', async () => {
  const { warnings, log } = recorder();
  const url = `${base}/elders/api/v1/zaken/00000000-0000-4000-8000-000000000002?bsn=123456782`;
  expect(await readSource(client(), url, log)).toBeUndefined();
  expect(warnings).toHaveLength(1);
  expect(warnings[0]!.msg).toContain('cannot be read now');
  expect(warnings[0]!.obj.err).toBeInstanceOf(Error);
  expect(String(warnings[0]!.obj.bronZaak)).not.toContain('123456782');
});
