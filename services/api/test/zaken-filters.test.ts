import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

// Every list filter and ordering of the Zaken API, one at a time, taken from the API's own OpenAPI document: each is
// accepted and finds what it should, and (through the query-index check of `npm test`) each query shape it sends is
// served by a declared index.

let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
let zaak: Record<string, any>;
let spec: {
  paths: Record<string, { get?: { parameters?: { name: string; in: string; schema?: { type?: string; format?: string; enum?: string[] } }[] } }>;
};

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
  zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { einddatumGepland: '2024-04-01', uiterlijkeEinddatumAfdoening: '2024-05-01' }));
  spec = (await t.call('GET', `${ZRC}/schema/openapi.json`)).json();
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const NOT_FILTERS = new Set(['page', 'cursor', 'expand']);

/** A value of the right kind for a filter. */
function valueFor(name: string, schema: { type?: string; format?: string; enum?: string[] } = {}): string {
  if (schema.enum) return schema.enum[0]!;
  if (schema.type === 'boolean') return 'true';
  if (schema.format === 'date') return '2024-03-01';
  if (name.endsWith('__isnull')) return 'true';
  if (name === 'zaak') return zaak.url;
  if (name === 'zaaktype') return s.zaaktype;
  if (name.startsWith('bronorganisatie__in')) return '000000000,123456782';
  if (name.startsWith('archiefstatus__in')) return 'nog_te_archiveren,gearchiveerd';
  if (name.endsWith('__in')) return 'vernietigen,blijvend_bewaren';
  if (/type$/.test(name)) return `${sl.url}/not-a-type`;
  if (/(betrokkene|object|informatieobject|contactmoment|verzoek)$/.test(name)) return 'https://elders.example/x';
  return '123456782';
}

const listPaths = () => Object.entries(spec.paths).filter(([p, ops]) => ops.get && !p.includes('{'));

describe('every Zaken list filter', () => {
  it('is accepted alone, for every list', async () => {
    let sent = 0;
    for (const [path, ops] of listPaths()) {
      for (const param of ops.get!.parameters ?? []) {
        if (param.in !== 'query' || NOT_FILTERS.has(param.name) || param.name === 'ordering') continue;
        const url = `${ZRC}${path}?${param.name}=${encodeURIComponent(valueFor(param.name, param.schema))}`;
        const res = await t.call('GET', url, undefined, { headers: CRS });
        expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(60);
  });

  it('finds the zaak by each of its own values and not by another', async () => {
    const finds = async (q: string) =>
      (await t.call('GET', `${ZRC}/zaken?${q}`, undefined, { headers: CRS })).json().results.map((r: { url: string }) => r.url);
    for (const [field, value] of Object.entries({
      startdatum: zaak.startdatum,
      einddatumGepland: '2024-04-01',
      uiterlijkeEinddatumAfdoening: '2024-05-01',
      identificatie: zaak.identificatie,
    })) {
      expect(await finds(`${field}=${value}`)).toContain(zaak.url);
      expect(await finds(`${field}=2001-01-01`)).not.toContain(zaak.url);
    }
    expect(await finds('einddatum__isnull=true')).toContain(zaak.url);
    expect(await finds('einddatum__isnull=false')).not.toContain(zaak.url);
    expect(await finds('startdatum__lt=2024-03-01')).not.toContain(zaak.url);
    expect(await finds('startdatum__lte=2024-03-01')).toContain(zaak.url);
  });

  it('orders by every ordering value, for a client with all rights and for one limited by autorisaties', async () => {
    await t.client('zrc-filters', 'filters-secret');
    const app = await t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: ['zrc-filters'],
      label: 'zrc-filters',
      autorisaties: [{ component: 'zrc', scopes: ['zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'geheim' }],
    });
    expect(app.statusCode).toBe(201);
    const limited = token('zrc-filters', 'filters-secret');
    // The document declares the standard's eight values; the list also orders by registratiedatum and identificatie.
    const declared = spec.paths['/zaken']!.get!.parameters!.find((p) => p.name === 'ordering')!.schema!.enum!;
    expect(declared.length).toBe(8);
    const orderings = [...declared, 'registratiedatum', '-registratiedatum', 'identificatie', '-identificatie'];
    for (const ordering of orderings) {
      for (const tok of [undefined, limited]) {
        const res = await t.call('GET', `${ZRC}/zaken?ordering=${ordering}`, undefined, { headers: CRS, ...(tok ? { token: tok } : {}) });
        expect({ ordering, status: res.statusCode }).toEqual({ ordering, status: 200 });
        expect(res.json().results.map((r: { url: string }) => r.url)).toContain(zaak.url);
      }
    }
  });
});
