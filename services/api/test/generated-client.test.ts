import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import createClient, { type Client } from 'openapi-fetch';
import type { paths as Besluiten } from './generated/besluiten-1.0.2';
import type { paths as Catalogi } from './generated/catalogi-1.3.1';
import type { paths as Documenten } from './generated/documenten-1.5.0';
import type { paths as Notificaties } from './generated/notificaties-1.0.0';
import type { paths as Zaken } from './generated/zaken-1.5.1';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { BASE, startApp, token, type TestApp } from './harness';

/**
 * A client generated from the standard's own OpenAPI files (openapi-typescript types, openapi-fetch requests; the
 * types are made from ../shared/specs by scripts/clients.sh) drives a whole flow: it finds each operation by the
 * file's path and method, sends the header parameters the file declares (the CRS headers of a zaak) and reads the
 * answers as the file describes them.
 */

let t: TestApp;
let sl: Referentielijsten;
/** Where the abonnement's notifications go: it takes each one (204). */
let ontvanger: Server;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  ontvanger = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((r) => ontvanger.listen(0, '127.0.0.1', () => r()));
});
afterAll(async () => {
  await t.close();
  await sl.close();
  await new Promise<void>((r) => ontvanger.close(() => r()));
});

/** openapi-fetch's requests, answered by the API in-process (its routes, as over HTTP). */
function client<P extends object>(component: string): Client<P> {
  const viaInject = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const res = await t.app.inject({
      method: request.method as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(request.headers),
      payload,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, String(v));
    return new Response([204, 304].includes(res.statusCode) ? null : res.rawPayload, { status: res.statusCode, headers });
  };
  return createClient<P>({ baseUrl: `${BASE}/${component}/api/v1`, fetch: viaInject, headers: { Authorization: `Bearer ${token()}` } });
}

/** The JSON request body an operation of a generated `paths` takes. */
type BodyOf<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
/** The files mark the read-only fields of a resource required in its request body too: a client leaves them out. */
const writable = <T>(fields: Partial<T>): T => fields as T;
const uuidOf = (url: string | undefined) => String(url).split('/').pop()!;
const JSON_BODY = { 'Content-Type': 'application/json' } as const;
const CRS = { 'Accept-Crs': 'EPSG:4326', 'Content-Crs': 'EPSG:4326' } as const;

test('a client generated from the standard files registers a zaak with its rol, document, besluit, trail and abonnement', async () => {
  const ztc = client<Catalogi>('catalogi');
  const zrc = client<Zaken>('zaken');
  const drc = client<Documenten>('documenten');
  const brc = client<Besluiten>('besluiten');
  const nrc = client<Notificaties>('notificaties');

  // Catalogi: a catalogus with a published informatieobjecttype, besluittype and zaaktype.
  const catalogus = await ztc.POST('/catalogussen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Catalogi['/catalogussen']['post']>>({ domein: 'GEN', rsin: '000000000', contactpersoonBeheerNaam: 'Beheer' }),
  });
  expect(catalogus.response.status).toBe(201);
  const cat = catalogus.data!.url!;
  const iot = await ztc.POST('/informatieobjecttypen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Catalogi['/informatieobjecttypen']['post']>>({
      catalogus: cat,
      omschrijving: 'bijlage',
      vertrouwelijkheidaanduiding: 'openbaar',
      beginGeldigheid: '2020-01-01',
      informatieobjectcategorie: 'bijlage',
    }),
  });
  expect(iot.response.status).toBe(201);
  const iotUrl = String(iot.data?.url);
  const bt = await ztc.POST('/besluittypen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Catalogi['/besluittypen']['post']>>({
      catalogus: cat,
      omschrijving: 'vergunning',
      publicatieIndicatie: false,
      informatieobjecttypen: ['bijlage'],
      beginGeldigheid: '2020-01-01',
    }),
  });
  expect(bt.response.status).toBe(201);
  const zt = await ztc.POST('/zaaktypen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Catalogi['/zaaktypen']['post']>>({
      identificatie: 'GEN-1',
      omschrijving: 'Vergunning',
      vertrouwelijkheidaanduiding: 'openbaar',
      doel: 'doel',
      aanleiding: 'aanleiding',
      indicatieInternOfExtern: 'extern',
      handelingInitiator: 'aanvragen',
      onderwerp: 'vergunning',
      handelingBehandelaar: 'behandelen',
      doorlooptijd: 'P30D',
      opschortingEnAanhoudingMogelijk: false,
      verlengingMogelijk: false,
      publicatieIndicatie: false,
      productenOfDiensten: ['https://ref.example/product/1'],
      selectielijstProcestype: sl.procestype,
      referentieproces: { naam: 'vergunning' },
      verantwoordelijke: 'Team vergunningen',
      catalogus: cat,
      besluittypen: ['vergunning'],
      deelzaaktypen: [],
      gerelateerdeZaaktypen: [],
      beginGeldigheid: '2020-01-01',
      versiedatum: '2020-01-01',
    }),
  });
  expect(zt.response.status).toBe(201);
  const zaaktype = zt.data!.url!;
  const roltype = await ztc.POST('/roltypen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Catalogi['/roltypen']['post']>>({ zaaktype, omschrijving: 'Aanvrager', omschrijvingGeneriek: 'initiator' }),
  });
  const statustype = await ztc.POST('/statustypen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Catalogi['/statustypen']['post']>>({ zaaktype, omschrijving: 'Ontvangen', volgnummer: 1 }),
  });
  const ziot = await ztc.POST('/zaaktype-informatieobjecttypen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Catalogi['/zaaktype-informatieobjecttypen']['post']>>({
      zaaktype,
      informatieobjecttype: iotUrl,
      volgnummer: 1,
      richting: 'inkomend',
    }),
  });
  expect([roltype.response.status, statustype.response.status, ziot.response.status]).toEqual([201, 201, 201]);
  for (const [path, url] of [
    ['/informatieobjecttypen/{uuid}/publish', iotUrl],
    ['/besluittypen/{uuid}/publish', bt.data!.url],
    ['/zaaktypen/{uuid}/publish', zaaktype],
  ] as const) {
    const published = await ztc.POST(path, { params: { header: JSON_BODY, path: { uuid: uuidOf(url as string) } } });
    expect(published.response.status).toBe(200);
  }

  // Zaken: a zaak with the CRS headers its file declares, a rol with a BSN, a status, and a _zoek on the BSN.
  const zaak = await zrc.POST('/zaken', {
    params: { header: { ...JSON_BODY, ...CRS } },
    body: writable<BodyOf<Zaken['/zaken']['post']>>({
      bronorganisatie: '000000000',
      verantwoordelijkeOrganisatie: '000000000',
      zaaktype,
      startdatum: '2024-05-01',
      omschrijving: 'Dakkapel',
    }),
  });
  expect(zaak.response.status).toBe(201);
  const zaakUrl = zaak.data!.url;
  const rol = await zrc.POST('/rollen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Zaken['/rollen']['post']>>({
      zaak: zaakUrl,
      betrokkeneType: 'natuurlijk_persoon',
      roltype: roltype.data!.url,
      roltoelichting: 'aanvrager',
      betrokkeneIdentificatie: { inpBsn: '111222333' },
    } as Partial<BodyOf<Zaken['/rollen']['post']>>),
  });
  expect(rol.response.status).toBe(201);
  const status = await zrc.POST('/statussen', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Zaken['/statussen']['post']>>({
      zaak: zaakUrl,
      statustype: statustype.data!.url,
      datumStatusGezet: '2024-05-01T09:00:00Z',
    }),
  });
  expect(status.response.status).toBe(201);
  const zoek = await zrc.POST('/zaken/_zoek', {
    params: { header: { ...JSON_BODY, ...CRS } },
    body: { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: '111222333', expand: 'rollen' } as BodyOf<Zaken['/zaken/_zoek']['post']>,
  });
  expect(zoek.response.status).toBe(200);
  expect(zoek.data?.results?.map((z) => z.url)).toEqual([zaakUrl]);

  // Documenten: a document with content, downloaded, and linked to the zaak.
  const document = await drc.POST('/enkelvoudiginformatieobjecten', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Documenten['/enkelvoudiginformatieobjecten']['post']>>({
      bronorganisatie: '000000000',
      creatiedatum: '2024-05-01',
      titel: 'Tekening',
      auteur: 'A. Architect',
      taal: 'dut',
      inhoud: Buffer.from('de tekening').toString('base64'),
      informatieobjecttype: iotUrl,
    }),
  });
  expect(document.response.status).toBe(201);
  const download = await drc.GET('/enkelvoudiginformatieobjecten/{uuid}/download', {
    params: { path: { uuid: uuidOf(document.data!.url) } },
    parseAs: 'text',
  });
  expect(download.data).toBe('de tekening');
  const zio = await zrc.POST('/zaakinformatieobjecten', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Zaken['/zaakinformatieobjecten']['post']>>({ zaak: zaakUrl, informatieobject: document.data!.url }),
  });
  expect(zio.response.status).toBe(201);

  // Besluiten: a besluit on the zaak, which the zaak then lists.
  const besluit = await brc.POST('/besluiten', {
    params: { header: JSON_BODY },
    body: writable<BodyOf<Besluiten['/besluiten']['post']>>({
      verantwoordelijkeOrganisatie: '000000000',
      besluittype: bt.data!.url!,
      zaak: zaakUrl,
      datum: '2024-05-02',
      ingangsdatum: '2024-05-03',
    }),
  });
  expect(besluit.response.status).toBe(201);
  const zaakBesluiten = await zrc.GET('/zaken/{zaak_uuid}/besluiten', { params: { path: { zaak_uuid: uuidOf(zaakUrl) } } });
  expect(zaakBesluiten.data!.map((b) => b.besluit)).toEqual([besluit.data!.url]);

  // The audit trail of the zaak, and an abonnement on its kanaal.
  const trail = await zrc.GET('/zaken/{zaak_uuid}/audittrail', { params: { path: { zaak_uuid: uuidOf(zaakUrl) } } });
  expect(trail.response.status).toBe(200);
  expect(trail.data!.map((e) => [e.resource, e.actie])).toEqual(
    expect.arrayContaining([
      ['zaak', 'create'],
      ['rol', 'create'],
    ]),
  );
  const abonnement = await nrc.POST('/abonnement', {
    body: {
      callbackUrl: `http://127.0.0.1:${(ontvanger.address() as AddressInfo).port}/callback`,
      auth: 'Bearer geheim',
      kanalen: [{ naam: 'zaken', filters: { bronorganisatie: '000000000' } }],
    },
  });
  expect([abonnement.response.status, abonnement.error]).toEqual([201, undefined]);
  expect(abonnement.data!.kanalen[0]!.naam).toBe('zaken');
});
