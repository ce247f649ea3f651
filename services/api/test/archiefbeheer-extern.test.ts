import { publish, resultaattypeBody, startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, createZ, zaakBody, ZRC } from './zaken.fixtures';
import { BRC, besluitBody, besluittypeMetDocumenttype, besluitZaaktype, createB } from './besluiten.fixtures';
import { createEio, DRC, eioBody, storedFiles } from './documenten.fixtures';

// An external archive tool (Open Archiefbeheer) against this platform as against Open Zaak, its calls as it makes them
// (backend/src/openarchiefbeheer/zaken/tasks.py and destruction/destruction_logic.py): the zaken to destroy read with
// their resultaat, resultaattype, zaaktype and rollen expanded (Zaken 1.5.1), then per zaak its besluiten with their
// besluitinformatieobjecten, its zaakinformatieobjecten, its documents (Documenten 1.5.0: a document another zaak or
// besluit still uses answers 400 pending-relations and stays) and the zaak itself, as its own client would.

jest.setTimeout(180_000);

let t: TestApp;
let sl: Referentielijsten;
let oab: string;
interface Setup {
  zaaktype: string;
  besluittype: string;
  iot: string;
  begin: string;
  eind: string;
  vernietigen: string;
  bewaren: string;
  roltype: string;
}
let s: Setup;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  const b = await besluittypeMetDocumenttype(t);
  const { zt, part, begin, eind } = await besluitZaaktype(t, sl, b);
  await part('zaaktype-informatieobjecttypen', { informatieobjecttype: 'besluitdocument', volgnummer: 1, richting: 'inkomend' });
  const roltype = await part('roltypen', { omschrijving: 'Initiator', omschrijvingGeneriek: 'initiator' });
  const bewaarResultaat = sl.add('resultaten/a6666666-6666-4666-8666-666666666666', {
    procesType: sl.procestype,
    procestermijn: 'nihil',
    nummer: 2,
    naam: 'Bewaren',
    waardering: 'blijvend_bewaren',
    bewaartermijn: null,
  });
  const resultaattype = async (omschrijving: string, over: Record<string, unknown>) =>
    String((await part('resultaattypen', resultaattypeBody(sl, { omschrijving, archiefactietermijn: 'P1Y', ...over }))).url);
  const vernietigen = await resultaattype('Afgehandeld', {});
  const bewaren = await resultaattype('Bewaren', {
    selectielijstklasse: bewaarResultaat,
    archiefnominatie: 'blijvend_bewaren',
    archiefactietermijn: null,
  });
  await publish(t, zt.url);
  s = {
    zaaktype: zt.url,
    besluittype: b.besluittype,
    iot: b.informatieobjecttype,
    begin: begin.url,
    eind: eind.url,
    vernietigen,
    bewaren,
    roltype: roltype.url,
  };
  // the archive tool's own client, as its installation configures it in Open Zaak: an applicatie with all rights
  // (heeft_alle_autorisaties; closed zaken change only with zaken.geforceerd-bijwerken, which that includes)
  await t.client('open-archiefbeheer', 'oab-secret');
  const app = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: ['open-archiefbeheer'],
    label: 'Open Archiefbeheer',
    heeftAlleAutorisaties: true,
  });
  if (app.statusCode !== 201) throw new Error(`applicatie: ${app.body}`);
  oab = token('open-archiefbeheer', 'oab-secret', { user_id: 'archivaris', user_representation: 'Open Archiefbeheer' });
}, 180_000);

afterAll(async () => {
  await t?.close();
  await sl?.close();
});

const today = () => new Date().toISOString().slice(0, 10);

/** A zaak with a resultaat of this resultaattype, closed on `dag` (the eind status set then). */
async function geslotenZaak(resultaattype: string, dag: string, over: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'Melding', ...over }));
  await createZ(t, 'resultaten', { zaak: zaak.url, resultaattype });
  await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.eind, datumStatusGezet: `${dag}T10:00:00Z` });
  return zaak;
}

/** A call of the archive tool: its token, and the headers it sends (none unless given). */
const oabCall = (method: string, url: string, headers: Record<string, string> = {}, body?: unknown) =>
  t.call(method, url, body, { token: oab, headers });

/** How the tool reads the zaken it may destroy: the first page, then each `next`, with Accept-Crs on every page. */
async function zakenTeVernietigen(extra: Record<string, string> = {}): Promise<Record<string, any>[]> {
  const params = new URLSearchParams({
    expand: 'resultaat,resultaat.resultaattype,zaaktype,rollen',
    archiefnominatie: 'vernietigen',
    // Python's requests writes a False as "False"
    einddatum__isnull: 'False',
    einddatum__lt: today(),
    ...extra,
  });
  const zaken: Record<string, any>[] = [];
  let url: string | null = `${ZRC}/zaken?${params}`;
  while (url) {
    const res = await oabCall('GET', url, { 'accept-crs': 'EPSG:4326' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-crs']).toBe('EPSG:4326');
    const page = res.json();
    zaken.push(...page.results);
    url = page.next;
  }
  return zaken;
}

/** What the tool reads of a paginated list (Zaken and Besluiten lists of objects), every page. */
async function allPages(url: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let next: string | null = url;
  while (next) {
    const res = await oabCall('GET', next);
    expect(res.statusCode).toBe(200);
    out.push(...res.json().results);
    next = res.json().next;
  }
  return out;
}

const uuidOf = (url: string) => url.split('/').pop()!;

/**
 * The tool's deletion of one zaak, call by call as its destruction_logic makes them: returns per document URL
 * whether it was deleted or stayed (unlinked), and every call's status.
 */
async function vernietig(zaakUrl: string): Promise<{ documenten: Record<string, 'deleted' | 'unlinked'>; calls: string[]; codes: string[] }> {
  const calls: string[] = [];
  const codes: string[] = [];
  const del = async (url: string) => {
    const res = await oabCall('DELETE', url);
    calls.push(`DELETE ${url.replace(/\/[0-9a-f-]{36}$/, '')} ${res.statusCode}`);
    if (res.statusCode === 403) throw new Error(`${url}: ${res.body}`);
    if (res.statusCode === 400) codes.push(res.json().invalidParams[0].code);
    else if (res.statusCode !== 404) expect(res.statusCode).toBe(204);
    return res.statusCode;
  };
  // zaakobjecten: read (for external registers), left to the zaak's delete
  await allPages(`${ZRC}/zaakobjecten?zaak=${encodeURIComponent(zaakUrl)}`);
  const teVerwijderen: string[] = [];
  const besluiten = await oabCall('GET', `${BRC}/besluiten?zaak=${encodeURIComponent(zaakUrl)}`);
  expect(besluiten.statusCode).toBe(200);
  if (besluiten.json().count > 0) {
    for (const besluit of await allPages(`${BRC}/besluiten?zaak=${encodeURIComponent(zaakUrl)}`)) {
      const bios = await oabCall('GET', `${BRC}/besluitinformatieobjecten?besluit=${encodeURIComponent(besluit.url)}`);
      expect(bios.statusCode).toBe(200);
      for (const bio of bios.json() as Record<string, string>[]) {
        teVerwijderen.push(bio.informatieobject!);
        await del(`${BRC}/besluitinformatieobjecten/${uuidOf(bio.url!)}`);
      }
      await del(`${BRC}/besluiten/${uuidOf(besluit.url)}`);
    }
  }
  const zios = await oabCall('GET', `${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(zaakUrl)}`);
  expect(zios.statusCode).toBe(200);
  for (const zio of zios.json() as Record<string, string>[]) {
    teVerwijderen.push(zio.informatieobject!);
    await del(`${ZRC}/zaakinformatieobjecten/${uuidOf(zio.url!)}`);
  }
  const documenten: Record<string, 'deleted' | 'unlinked'> = {};
  for (const doc of teVerwijderen) {
    documenten[doc] = (await del(`${DRC}/enkelvoudiginformatieobjecten/${uuidOf(doc)}`)) === 204 ? 'deleted' : 'unlinked';
  }
  await del(`${ZRC}/zaken/${uuidOf(zaakUrl)}`);
  return { documenten, calls, codes };
}

describe('an external archive tool', () => {
  let teVernietigen: Record<string, any>;
  let bewaren: Record<string, any>;
  let anderZaak: Record<string, any>;
  let docs: Record<'besluit' | 'zaak' | 'gedeeld' | 'besluitElders', Record<string, any>>;
  let vandaag: Record<string, any>;
  let open: Record<string, any>;
  let bulk: Record<string, any>[];

  beforeAll(async () => {
    teVernietigen = await geslotenZaak(s.vernietigen, '2020-01-10', { omschrijving: 'Te vernietigen' });
    await createZ(t, 'rollen', {
      zaak: teVernietigen.url,
      roltype: s.roltype,
      betrokkeneType: 'natuurlijk_persoon',
      roltoelichting: 'aanvrager',
      betrokkeneIdentificatie: { inpBsn: '111222333', geslachtsnaam: 'Jansen' },
    });
    await createZ(t, 'zaakobjecten', {
      zaak: teVernietigen.url,
      object: 'https://bag.example/panden/1',
      objectType: 'pand',
      relatieomschrijving: 'locatie',
    });
    // zaken that are not to be destroyed: kept for good, closed today, still open
    bewaren = await geslotenZaak(s.bewaren, '2019-06-01', { omschrijving: 'Bewaren' });
    vandaag = await geslotenZaak(s.vernietigen, today(), { omschrijving: 'Vandaag gesloten' });
    open = await createZ(t, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'Lopend' }));
    anderZaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'Loopt nog, met een gedeeld document' }));
    // a document per way a document hangs at the zaak: by its besluit, by the zaak, by the zaak and another zaak, and
    // by the zaak's besluit and a besluit of another zaak
    const doc = async (titel: string) => createEio(t, eioBody(s.iot, { titel }));
    docs = { besluit: await doc('besluit'), zaak: await doc('zaak'), gedeeld: await doc('gedeeld'), besluitElders: await doc('besluit elders') };
    const besluit = await createB(t, 'besluiten', besluitBody(s.besluittype, { zaak: teVernietigen.url }));
    const elders = await createB(t, 'besluiten', besluitBody(s.besluittype, { zaak: anderZaak.url }));
    for (const d of [docs.besluit, docs.besluitElders])
      await createB(t, 'besluitinformatieobjecten', { besluit: besluit.url, informatieobject: d.url });
    await createB(t, 'besluitinformatieobjecten', { besluit: elders.url, informatieobject: docs.besluitElders.url });
    for (const d of [docs.zaak, docs.gedeeld]) await createZ(t, 'zaakinformatieobjecten', { zaak: teVernietigen.url, informatieobject: d.url });
    await createZ(t, 'zaakinformatieobjecten', { zaak: anderZaak.url, informatieobject: docs.gedeeld.url });
    for (const d of [docs.zaak, docs.gedeeld]) {
      const recht = await t.call('POST', `${DRC}/gebruiksrechten`, {
        informatieobject: d.url,
        startdatum: '2020-01-01T00:00:00Z',
        omschrijvingVoorwaarden: 'geen',
      });
      if (recht.statusCode !== 201) throw new Error(`gebruiksrechten: ${recht.body}`);
    }
    // more than a page of zaken to destroy
    bulk = [];
    for (let i = 0; i < 10; i++) {
      bulk.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, (_, j) => geslotenZaak(s.vernietigen, '2021-02-03', { omschrijving: `Bulk ${i * 10 + j}` })),
        )),
      );
    }
  });

  it('reads the zaken to destroy with resultaat, resultaattype, zaaktype and rollen expanded, over pages', async () => {
    const zaken = await zakenTeVernietigen();
    const urls = zaken.map((z) => z.url);
    expect(urls).toHaveLength(101);
    expect(new Set(urls)).toEqual(new Set([teVernietigen.url, ...bulk.map((z) => z.url)]));
    for (const niet of [bewaren, vandaag, open, anderZaak]) expect(urls).not.toContain(niet.url);
    const z = zaken.find((x) => x.url === teVernietigen.url)!;
    expect(z).toMatchObject({ archiefnominatie: 'vernietigen', archiefactiedatum: '2021-01-10', einddatum: '2020-01-10' });
    // what the tool reads of the expansion (zaken/api/serializers.py, zaken/utils.py)
    // another component embeds a Catalogi object as Catalogi 1.3.3 renders it (1.3.1's fields and the names beside the URLs)
    const zaaktype = (await t.call('GET', s.zaaktype, undefined, { headers: { 'api-version': '1.3.3' } })).json();
    expect(z._expand.zaaktype).toEqual(zaaktype);
    expect(z._expand.zaaktype).toMatchObject({ selectielijstProcestype: sl.procestype, identificatie: 'ZT-1', omschrijving: expect.any(String) });
    expect(z._expand.resultaat).toMatchObject({ url: z.resultaat, zaak: z.url, resultaattype: s.vernietigen });
    expect(z._expand.resultaat._expand.resultaattype).toMatchObject({
      url: s.vernietigen,
      omschrijving: 'Afgehandeld',
      selectielijstklasse: sl.resultaat.nihil,
      archiefactietermijn: 'P1Y',
      archiefnominatie: 'vernietigen',
    });
    expect(z._expand.rollen).toHaveLength(1);
    expect(z._expand.rollen[0]).toMatchObject({ zaak: z.url, betrokkeneType: 'natuurlijk_persoon', roltype: s.roltype });
    expect(z._expand.rollen[0]).toEqual((await t.call('GET', z.rollen[0], undefined, { token: oab })).json());
    // the same filters as a client of another language writes them
    expect((await zakenTeVernietigen({ einddatum__isnull: 'false' })).length).toBe(101);
    expect((await zakenTeVernietigen({ einddatum__isnull: '0' })).length).toBe(101);
    // the next run asks only for zaken closed after the last it has
    const later = await zakenTeVernietigen({ einddatum__gt: '2020-01-10' });
    expect(new Set(later.map((x) => x.url))).toEqual(new Set(bulk.map((x) => x.url)));
    // einddatum__isnull=True: the open zaken only
    const openAll = await oabCall('GET', `${ZRC}/zaken?einddatum__isnull=True`, { 'accept-crs': 'EPSG:4326' });
    expect(new Set(openAll.json().results.map((x: { url: string }) => x.url))).toEqual(new Set([open.url, anderZaak.url]));
  });

  it('refuses a filter value it cannot read, and the list without Accept-Crs, as the standard says', async () => {
    const bad = await oabCall('GET', `${ZRC}/zaken?einddatum__isnull=misschien`, { 'accept-crs': 'EPSG:4326' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().invalidParams.map((p: { name: string }) => p.name)).toContain('einddatum__isnull');
    const datum = await oabCall('GET', `${ZRC}/zaken?einddatum__lt=gisteren`, { 'accept-crs': 'EPSG:4326' });
    expect(datum.statusCode).toBe(400);
    expect(datum.json().invalidParams.map((p: { name: string }) => p.name)).toContain('einddatum__lt');
    expect((await oabCall('GET', `${ZRC}/zaken?archiefnominatie=vernietigen`)).statusCode).toBe(412);
  });

  it('changes an archiefactiedatum as a reviewer asks (PATCH with the geometry headers)', async () => {
    const zaak = bulk[0]!;
    const res = await oabCall('PATCH', zaak.url, CRS, { archiefactiedatum: '2031-01-01' });
    expect(res.statusCode).toBe(200);
    expect(res.json().archiefactiedatum).toBe('2031-01-01');
    const zaken = await zakenTeVernietigen();
    expect(zaken.find((z) => z.url === zaak.url)?.archiefactiedatum).toBe('2031-01-01');
  });

  it('destroys a zaak in its order: besluiten with their documents, zaakinformatieobjecten, documents, the zaak; a document used elsewhere stays', async () => {
    const filesBefore = await storedFiles(t);
    const { documenten, calls, codes } = await vernietig(teVernietigen.url);
    expect(codes).toEqual(['pending-relations', 'pending-relations']);
    expect(calls).toEqual([
      `DELETE ${BRC}/besluitinformatieobjecten 204`,
      `DELETE ${BRC}/besluitinformatieobjecten 204`,
      `DELETE ${BRC}/besluiten 204`,
      `DELETE ${ZRC}/zaakinformatieobjecten 204`,
      `DELETE ${ZRC}/zaakinformatieobjecten 204`,
      `DELETE ${DRC}/enkelvoudiginformatieobjecten 204`,
      `DELETE ${DRC}/enkelvoudiginformatieobjecten 400`,
      `DELETE ${DRC}/enkelvoudiginformatieobjecten 204`,
      `DELETE ${DRC}/enkelvoudiginformatieobjecten 400`,
      `DELETE ${ZRC}/zaken 204`,
    ]);
    expect(documenten).toEqual({
      [docs.besluit.url]: 'deleted',
      [docs.besluitElders.url]: 'unlinked',
      [docs.zaak.url]: 'deleted',
      [docs.gedeeld.url]: 'unlinked',
    });
    // gone: the zaak, its parts, its besluit, the documents only it used (and their content)
    const admin = (url: string) => t.call('GET', url, undefined, { headers: CRS });
    expect((await admin(teVernietigen.url)).statusCode).toBe(404);
    for (const part of ['rollen', 'zaakobjecten', 'resultaten', 'statussen']) {
      expect((await admin(`${ZRC}/${part}?zaak=${encodeURIComponent(teVernietigen.url)}`)).json().count).toBe(0);
    }
    expect((await admin(`${BRC}/besluiten?zaak=${encodeURIComponent(teVernietigen.url)}`)).json().count).toBe(0);
    for (const d of [docs.besluit, docs.zaak]) expect((await admin(d.url)).statusCode).toBe(404);
    // a document goes with its gebruiksrechten and audit trail (Documenten 1.5.0), a zaak with its audit trail
    expect((await admin(`${DRC}/gebruiksrechten?informatieobject=${encodeURIComponent(docs.zaak.url)}`)).json()).toEqual([]);
    expect((await admin(`${DRC}/gebruiksrechten?informatieobject=${encodeURIComponent(docs.gedeeld.url)}`)).json()).toHaveLength(1);
    expect((await admin(`${docs.zaak.url}/audittrail`)).statusCode).toBe(404);
    expect((await admin(`${teVernietigen.url}/audittrail`)).statusCode).toBe(404);
    expect(await storedFiles(t)).toBe(filesBefore - 2);
    // kept: the documents another zaak or besluit uses, with those links, and the other zaken
    for (const d of [docs.gedeeld, docs.besluitElders]) {
      expect((await admin(d.url)).statusCode).toBe(200);
      const links = (await admin(`${DRC}/objectinformatieobjecten?informatieobject=${encodeURIComponent(d.url)}`)).json();
      expect(links).toHaveLength(1);
    }
    expect((await admin(`${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(anderZaak.url)}`)).json()).toHaveLength(1);
    for (const z of [bewaren, vandaag, open, anderZaak]) expect((await admin(z.url)).statusCode).toBe(200);
    // a second run of the same item (a retried task) finds nothing left to do: 404s it passes over
    const again = await oabCall('DELETE', `${ZRC}/zaken/${uuidOf(teVernietigen.url)}`);
    expect(again.statusCode).toBe(404);
    expect((await oabCall('DELETE', docs.zaak.url)).statusCode).toBe(404);
    // and the list no longer has it
    expect((await zakenTeVernietigen()).map((z) => z.url)).not.toContain(teVernietigen.url);
  });

  it('destroys nothing of a zaak on legal hold, which it cannot see: each delete of the zaak, its besluit and links is a 400 juridische-bewaring', async () => {
    const held = await geslotenZaak(s.vernietigen, '2020-02-02', { omschrijving: 'Onder bewaring' });
    const eigen = await createEio(t, eioBody(s.iot, { titel: 'bewaard' }));
    const besluit = await createB(t, 'besluiten', besluitBody(s.besluittype, { zaak: held.url }));
    await createB(t, 'besluitinformatieobjecten', { besluit: besluit.url, informatieobject: eigen.url });
    await createZ(t, 'zaakinformatieobjecten', { zaak: held.url, informatieobject: eigen.url });
    const hold = await t.call('PUT', `/admin/api/v1/zaken/${uuidOf(held.url)}/juridische-bewaring`, { reden: 'Beroep loopt.' });
    expect(hold.statusCode).toBe(200);
    expect((await zakenTeVernietigen()).map((z) => z.url)).toContain(held.url);

    const { documenten, calls, codes } = await vernietig(held.url);
    expect(calls).toEqual([
      `DELETE ${BRC}/besluitinformatieobjecten 400`,
      `DELETE ${BRC}/besluiten 400`,
      `DELETE ${ZRC}/zaakinformatieobjecten 400`,
      `DELETE ${DRC}/enkelvoudiginformatieobjecten 400`,
      `DELETE ${DRC}/enkelvoudiginformatieobjecten 400`,
      `DELETE ${ZRC}/zaken 400`,
    ]);
    expect(codes).toEqual([
      'juridische-bewaring',
      'juridische-bewaring',
      'juridische-bewaring',
      'pending-relations',
      'pending-relations',
      'juridische-bewaring',
    ]);
    expect(documenten).toEqual({ [eigen.url]: 'unlinked' });
    const admin = (url: string) => t.call('GET', url, undefined, { headers: CRS });
    for (const url of [held.url, besluit.url, eigen.url]) expect((await admin(url)).statusCode).toBe(200);
    expect((await admin(`${ZRC}/zaakinformatieobjecten?zaak=${encodeURIComponent(held.url)}`)).json()).toHaveLength(1);
    expect((await admin(`${BRC}/besluitinformatieobjecten?besluit=${encodeURIComponent(besluit.url)}`)).json()).toHaveLength(1);

    // lifted: the same calls destroy it
    expect((await t.call('DELETE', `/admin/api/v1/zaken/${uuidOf(held.url)}/juridische-bewaring`)).statusCode).toBe(204);
    expect((await vernietig(held.url)).codes).toEqual([]);
    for (const url of [held.url, besluit.url, eigen.url]) expect((await admin(url)).statusCode).toBe(404);
  });

  it('deletes a hoofdzaak with its deelzaken, as the Zaken API has it; the deelzaak then answers 404 to its own delete', async () => {
    const hoofdzaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'Hoofdzaak' }));
    const deelzaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { omschrijving: 'Deelzaak', hoofdzaak: hoofdzaak.url }));
    for (const z of [deelzaak, hoofdzaak]) {
      await createZ(t, 'resultaten', { zaak: z.url, resultaattype: s.vernietigen });
      await createZ(t, 'statussen', { zaak: z.url, statustype: s.eind, datumStatusGezet: '2020-05-05T10:00:00Z' });
    }
    const lijst = (await zakenTeVernietigen()).map((z) => z.url);
    expect(lijst).toEqual(expect.arrayContaining([hoofdzaak.url, deelzaak.url]));
    const { calls } = await vernietig(hoofdzaak.url);
    expect(calls).toEqual([`DELETE ${ZRC}/zaken 204`]);
    expect((await t.call('GET', deelzaak.url, undefined, { headers: CRS })).statusCode).toBe(404);
    expect((await vernietig(deelzaak.url)).calls).toEqual([`DELETE ${ZRC}/zaken 404`]);
  });
});
