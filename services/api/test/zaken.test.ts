import { randomUUID } from 'node:crypto';
import type { Resource } from '../src/common/platform/resource';
import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, token, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody, zaaktypeMetOnderdelen, type ZaakSetup } from './zaken.fixtures';

let t: TestApp;
let sl: Referentielijsten;
let s: ZaakSetup;
beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetOnderdelen(t, sl);
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const get = (url: string, tok?: string) => t.call('GET', url, undefined, { headers: CRS, ...(tok ? { token: tok } : {}) });
const send = (method: string, url: string, body: unknown, tok?: string) =>
  t.call(method, url, body, { headers: CRS, ...(tok ? { token: tok } : {}) });
const ZRC_URL = `http://127.0.0.1:8000${ZRC}`;
const param = (res: { json(): any }) => res.json().invalidParams?.[0] as { name: string; code: string } | undefined;

/** A client whose only autorisatie is the given Zaken scopes for one zaaktype up to a vertrouwelijkheidaanduiding. */
async function zakenClient(clientId: string, scopes: string[], zaaktype: string, max = 'openbaar'): Promise<string> {
  await t.client(clientId, `${clientId}-secret`);
  const res = await t.call('POST', '/autorisaties/api/v1/applicaties', {
    clientIds: [clientId],
    label: clientId,
    autorisaties: [{ component: 'zrc', scopes, zaaktype, maxVertrouwelijkheidaanduiding: max }],
  });
  if (res.statusCode !== 201) throw new Error(res.body);
  return token(clientId, `${clientId}-secret`);
}

describe('zaken', () => {
  it('creates a zaak with a generated identificatie unique per bronorganisatie and defaults from its zaaktype', async () => {
    const a = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const b = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    expect(a.identificatie).toMatch(/^ZAAK-2024-\d+$/);
    expect(b.identificatie).not.toBe(a.identificatie);
    expect(a).toMatchObject({
      vertrouwelijkheidaanduiding: 'openbaar',
      archiefstatus: 'nog_te_archiveren',
      einddatum: null,
      status: null,
      rollen: [],
    });
    const read = await get(a.url);
    expect(read.statusCode).toBe(200);
    expect(read.headers['api-version']).toBe('1.5.1');
    expect(read.headers['content-crs']).toBe('EPSG:4326');
    expect(read.json()).toEqual(a);
    const dup = await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype, { identificatie: a.identificatie }));
    expect(dup.statusCode).toBe(400);
    expect(param(dup)).toMatchObject({ name: 'identificatie', code: 'identificatie-niet-uniek' });
  });

  it('accepts a zaaktype whose identificatie was sent as a number, as text', async () => {
    const zt = await zaaktypeMetOnderdelen(t, sl, { identificatie: 20 });
    expect((await t.call('GET', zt.zaaktype)).json().identificatie).toBe('20');
    expect((await createZ(t, 'zaken', zaakBody(zt.zaaktype))).zaaktype).toBe(zt.zaaktype);
  });

  it('needs Accept-Crs and Content-Crs EPSG:4326 (412 missing, 406 other)', async () => {
    expect((await t.call('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype))).statusCode).toBe(412);
    expect((await t.call('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype), { headers: { 'accept-crs': 'EPSG:4326' } })).statusCode).toBe(412);
    expect((await t.call('GET', `${ZRC}/zaken`, undefined, { headers: { 'accept-crs': 'EPSG:28992' } })).statusCode).toBe(406);
  });

  it('refuses bad zaaktype URLs, concept zaaktypen and changing zaaktype, identificatie or bronorganisatie', async () => {
    const bad = await send('POST', `${ZRC}/zaken`, zaakBody(`${sl.url}/nothing-here`));
    expect(param(bad)).toMatchObject({ name: 'zaaktype', code: 'bad-url' });
    const html = await send('POST', `${ZRC}/zaken`, zaakBody(sl.html));
    expect(param(html)).toMatchObject({ name: 'zaaktype', code: 'invalid-resource' });
    const other = await zaaktypeMetOnderdelen(t, sl, { identificatie: 'ZT-2' });
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const change = await send('PATCH', zaak.url, { zaaktype: other.zaaktype });
    expect(param(change)).toMatchObject({ name: 'zaaktype', code: 'wijzigen-niet-toegelaten' });
    expect(param(await send('PATCH', zaak.url, { identificatie: 'ANDERS' }))).toMatchObject({ code: 'wijzigen-niet-toegelaten' });
    const put = await send('PUT', zaak.url, zaakBody(s.zaaktype, { omschrijving: 'nieuw' }));
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ omschrijving: 'nieuw', identificatie: zaak.identificatie });
  });

  it('validates betaling, productenOfDiensten, hoofdzaak and communicatiekanaal', async () => {
    const nvt = await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype, { betalingsindicatie: 'nvt', laatsteBetaaldatum: '2024-01-01T00:00:00Z' }));
    expect(param(nvt)).toMatchObject({ name: 'laatsteBetaaldatum', code: 'betaling-nvt' });
    const pod = await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype, { productenOfDiensten: ['https://elders.example/product'] }));
    expect(param(pod)).toMatchObject({ name: 'productenOfDiensten', code: 'invalid-products-services' });
    const hoofd = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const deel = await createZ(t, 'zaken', zaakBody(s.zaaktype, { hoofdzaak: hoofd.url }));
    expect((await get(hoofd.url)).json().deelzaken).toEqual([deel.url]);
    expect(param(await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype, { hoofdzaak: deel.url })))).toMatchObject({
      code: 'deelzaak-als-hoofdzaak',
    });
    expect(param(await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype, { hoofdzaak: `${sl.url}/zaken/${randomUUID()}` })))).toMatchObject({
      name: 'hoofdzaak',
      code: 'no_match',
    });
    expect(param(await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype, { hoofdzaak: `${ZRC_URL}/zaken/${randomUUID()}` })))).toMatchObject({
      name: 'hoofdzaak',
      code: 'does_not_exist',
    });
    expect(param(await send('PATCH', hoofd.url, { hoofdzaak: hoofd.url }))).toMatchObject({ name: 'hoofdzaak', code: 'self-forbidden' });
    const kanaal = await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype, { communicatiekanaal: sl.html }));
    expect(param(kanaal)).toMatchObject({ name: 'communicatiekanaal', code: 'invalid-resource' });
  });
});

describe('statussen, resultaten and closing a zaak', () => {
  it('a rol names the statussen it set, also one set after a later one', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const rol = await createZ(t, 'rollen', {
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'medewerker',
      roltoelichting: 'x',
      betrokkene: 'https://x.example/m',
    });
    const later = await createZ(t, 'statussen', {
      zaak: zaak.url,
      statustype: s.statustypen.begin,
      datumStatusGezet: '2024-03-05T10:00:00',
      gezetdoor: rol.url,
    });
    const eerder = await createZ(t, 'statussen', {
      zaak: zaak.url,
      statustype: s.statustypen.begin,
      datumStatusGezet: '2024-03-02T10:00:00',
      gezetdoor: rol.url,
    });
    expect((await get(zaak.url)).json().status).toBe(later.url);
    expect((await get(eerder.url)).json().indicatieLaatstGezetteStatus).toBe(false);
    expect([...(await get(rol.url)).json().statussen].sort()).toEqual([later.url, eerder.url].sort());
  });

  it('an eindstatus closes the zaak and derives the archiving fields; reopening needs zaken.heropenen', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    await createZ(t, 'resultaten', { zaak: zaak.url, resultaattype: s.resultaattype });
    const dubbel = await send('POST', `${ZRC}/resultaten`, { zaak: zaak.url, resultaattype: s.resultaattype });
    expect(param(dubbel)).toMatchObject({ code: 'unique' });
    const begin = await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-02T10:00:00' });
    expect(begin.datumStatusGezet).toBe('2024-03-02T10:00:00Z');
    const eind = await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.eind, datumStatusGezet: '2024-03-05T10:00:00' });
    const closed = (await get(zaak.url)).json();
    expect(closed).toMatchObject({ einddatum: '2024-03-05', status: eind.url, archiefnominatie: 'vernietigen', archiefactiedatum: '2034-03-05' });
    expect((await get(begin.url)).json().indicatieLaatstGezetteStatus).toBe(false);
    expect((await get(eind.url)).json().indicatieLaatstGezetteStatus).toBe(true);

    const limited = await zakenClient('zrc-no-force', ['zaken.lezen', 'zaken.bijwerken', 'zaken.statussen.toevoegen'], s.zaaktype);
    expect((await send('PATCH', zaak.url, { omschrijving: 'x' }, limited)).statusCode).toBe(403);
    // invalid input is a 400 before the closed zaak's 403 (zrc-007e: a second resultaat is `unique`)
    expect(param(await send('POST', `${ZRC}/resultaten`, { zaak: zaak.url, resultaattype: s.resultaattype }, limited))).toMatchObject({
      code: 'unique',
    });
    expect(
      (
        await send(
          'POST',
          `${ZRC}/rollen`,
          { zaak: zaak.url, roltype: s.roltype, betrokkeneType: 'medewerker', roltoelichting: 'x', betrokkene: 'https://x.example/m' },
          limited,
        )
      ).statusCode,
    ).toBe(403);
    expect(
      (await send('POST', `${ZRC}/statussen`, { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-06T10:00:00' }, limited))
        .statusCode,
    ).toBe(403);
    expect((await send('PATCH', zaak.url, { omschrijving: 'geforceerd' })).statusCode).toBe(200);

    await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-06T10:00:00' });
    expect((await get(zaak.url)).json()).toMatchObject({ einddatum: null, archiefactiedatum: null, archiefnominatie: null });
  });

  it('refuses statustypen, resultaattypen, roltypen and eigenschappen of another zaaktype', async () => {
    const other = await zaaktypeMetOnderdelen(t, sl, { identificatie: 'ZT-3' });
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const mismatch = async (path: string, body: Record<string, unknown>) => param(await send('POST', path, { zaak: zaak.url, ...body }));
    expect(await mismatch(`${ZRC}/statussen`, { statustype: other.statustypen.begin, datumStatusGezet: '2024-03-02T10:00:00' })).toMatchObject({
      code: 'zaaktype-mismatch',
    });
    expect(await mismatch(`${ZRC}/resultaten`, { resultaattype: other.resultaattype })).toMatchObject({ code: 'zaaktype-mismatch' });
    expect(
      await mismatch(`${ZRC}/rollen`, {
        roltype: other.roltype,
        betrokkeneType: 'medewerker',
        roltoelichting: 'x',
        betrokkene: 'https://x.example/1',
      }),
    ).toMatchObject({ code: 'zaaktype-mismatch' });
    expect(await mismatch(`${zaak.url}/zaakeigenschappen`, { eigenschap: other.eigenschap, waarde: 'rood' })).toMatchObject({
      code: 'zaaktype-mismatch',
    });
    const eig = await createZ(t, `${zaak.url}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: s.eigenschap, waarde: 'rood' });
    expect(eig).toMatchObject({ naam: 'kleur', waarde: 'rood' });
    expect(eig.url).toBe(`${zaak.url}/zaakeigenschappen/${eig.uuid}`);
    expect((await get(zaak.url)).json().eigenschappen).toEqual([eig.url]);
  });

  it('a PATCH of a zaakeigenschap is checked once, merged onto the stored one; one that does not exist is a 404', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const eig = await createZ(t, `${zaak.url}/zaakeigenschappen`, { zaak: zaak.url, eigenschap: s.eigenschap, waarde: 'rood' });
    const patched = await send('PATCH', eig.url, { waarde: 'blauw' });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ url: eig.url, zaak: zaak.url, eigenschap: s.eigenschap, naam: 'kleur', waarde: 'blauw' });
    const bad = await send('PATCH', eig.url, { waarde: 5 });
    expect(bad.statusCode).toBe(400);
    expect(param(bad)).toMatchObject({ name: 'waarde' });
    expect((await send('PATCH', eig.url, { eigenschap: `${s.eigenschap}x` })).statusCode).toBe(400);
    // (the body of an object that does not exist is not looked at: 404, as for every resource)
    expect((await send('PATCH', `${zaak.url}/zaakeigenschappen/${randomUUID()}`, { waarde: 5 })).statusCode).toBe(404);
    expect((await get(eig.url)).json()).toMatchObject({ waarde: 'blauw' });
  });
});

describe('the seed rules', () => {
  const BSN = '111222333';
  const persoon = { inpBsn: BSN, geslachtsnaam: 'Jansen', voornamen: 'Jan' };

  it('rule 3: contactpersoonRol.naam omitted or null is a 400 on contactpersoonRol.naam; "" is accepted', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const rol = (contactpersoonRol: unknown) => ({
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'natuurlijk_persoon',
      roltoelichting: 't',
      betrokkeneIdentificatie: persoon,
      contactpersoonRol,
    });
    for (const cp of [{ emailadres: 'a@b.nl' }, { naam: null }]) {
      const res = await send('POST', `${ZRC}/rollen`, rol(cp));
      expect(res.statusCode).toBe(400);
      expect(res.json().invalidParams.map((p: { name: string }) => p.name)).toContain('contactpersoonRol.naam');
    }
    const ok = await send('POST', `${ZRC}/rollen`, rol({ naam: '' }));
    expect(ok.statusCode).toBe(201);
    expect(ok.json().contactpersoonRol.naam).toBe('');
  });

  it('rule 4: a zaakobject with identical activiteiten is stored as sent on create, PUT and PATCH', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const activiteiten = [
      { naam: 'snoeien', datum: '2024-01-01' },
      { naam: 'snoeien', datum: '2024-01-01' },
    ];
    const body = { zaak: zaak.url, objectType: 'overige', objectTypeOverige: 'boom', objectIdentificatie: { overigeData: { activiteiten } } };
    const zo = await createZ(t, 'zaakobjecten', body);
    expect(zo.objectIdentificatie.overigeData.activiteiten).toEqual(activiteiten);
    const twice = [...activiteiten, activiteiten[0]];
    const put = await send('PUT', zo.url, { ...body, objectIdentificatie: { overigeData: { activiteiten: twice } } });
    expect(put.statusCode).toBe(200);
    expect(put.json().objectIdentificatie.overigeData.activiteiten).toEqual(twice);
    const patch = await send('PATCH', zo.url, { objectIdentificatie: { overigeData: { activiteiten } } });
    expect(patch.statusCode).toBe(200);
    expect((await get(zo.url)).json().objectIdentificatie.overigeData.activiteiten).toEqual(activiteiten);
  });

  it('rules 1 and 2: _zoek by BSN with expand rollen, the GET BSN filter, expand identical to the plain endpoints', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const rol = await createZ(t, 'rollen', {
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'natuurlijk_persoon',
      roltoelichting: 't',
      betrokkeneIdentificatie: persoon,
    });
    const zo = await createZ(t, 'zaakobjecten', { zaak: zaak.url, objectType: 'pand', objectIdentificatie: { identificatie: 'P1' } });

    const zoek = await t.call(
      'POST',
      `${ZRC}/zaken/_zoek`,
      { rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn: BSN, expand: 'rollen' },
      { headers: CRS },
    );
    expect(zoek.statusCode).toBe(200);
    expect(zoek.json().count).toBeGreaterThanOrEqual(1);
    const found = zoek.json().results.find((r: { url: string }) => r.url === zaak.url);
    expect(found._expand.rollen).toEqual([(await get(rol.url)).json()]);
    expect(found._expand.rollen[0].betrokkeneIdentificatie.inpBsn).toBe(BSN);

    const list = await get(`${ZRC}/zaken?rol__betrokkeneIdentificatie__natuurlijkPersoon__inpBsn=${BSN}`);
    expect(list.json().results.map((r: { url: string }) => r.url)).toContain(zaak.url);
    expect(list.json().results.every((r: { url: string }) => found && r.url !== '')).toBe(true);

    const detail = (await get(`${zaak.url}?expand=rollen,zaakobjecten`)).json();
    expect(detail._expand.rollen).toEqual([(await get(rol.url)).json()]);
    expect(detail._expand.zaakobjecten).toEqual([(await get(zo.url)).json()]);
    expect(Object.keys(detail._expand.rollen[0])).toEqual(expect.arrayContaining(['url', 'uuid', 'betrokkeneIdentificatie']));
    const nested = (await get(`${zaak.url}?expand=rollen.zaak.rollen,zaaktype`)).json();
    expect(nested._expand.rollen[0]._expand.zaak._expand.rollen[0].url).toBe(rol.url);
    expect(nested._expand.zaaktype.url).toBe(s.zaaktype);
    const bad = await get(`${zaak.url}?expand=onzin`);
    expect(param(bad)).toMatchObject({ name: 'expand', code: 'invalid-expand-field' });
  });
});

describe('autorisaties inside the query', () => {
  it('lists, counts and reads only the zaaktypen and vertrouwelijkheid a client may see', async () => {
    const other = await zaaktypeMetOnderdelen(t, sl, { identificatie: 'ZT-4' });
    const mine = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const geheim = await createZ(t, 'zaken', zaakBody(s.zaaktype, { vertrouwelijkheidaanduiding: 'geheim' }));
    const elders = await createZ(t, 'zaken', zaakBody(other.zaaktype));
    const reader = await zakenClient('zrc-reader', ['zaken.lezen'], s.zaaktype, 'openbaar');
    const list = (await get(`${ZRC}/zaken`, reader)).json();
    const urls = list.results.map((r: { url: string }) => r.url);
    expect(urls).toContain(mine.url);
    expect(urls).not.toContain(geheim.url);
    expect(urls).not.toContain(elders.url);
    expect(list.count).toBe(urls.length);
    expect((await get(geheim.url, reader)).statusCode).toBe(403);
    expect((await get(elders.url, reader)).statusCode).toBe(403);
    expect((await send('POST', `${ZRC}/zaken`, zaakBody(s.zaaktype), reader)).statusCode).toBe(403);
    const rol = await createZ(t, 'rollen', {
      zaak: elders.url,
      roltype: other.roltype,
      betrokkeneType: 'medewerker',
      roltoelichting: 'x',
      betrokkene: 'https://x.example/m',
    });
    const rollen = (await get(`${ZRC}/rollen`, reader)).json();
    expect(rollen.results.map((r: { url: string }) => r.url)).not.toContain(rol.url);
  });
});

describe('reads by uuid', () => {
  it('go to the store together when concurrent, each answer its own zaak, and see a write acknowledged before them', async () => {
    const zaken = await Promise.all([1, 2, 3, 4].map((i) => createZ(t, 'zaken', zaakBody(s.zaaktype, { omschrijving: `samen ${i}` }))));
    const finds: Record<string, unknown>[] = [];
    const watch = (e: { commandName: string; command: Record<string, any> }) => {
      if (e.commandName === 'find' && e.command.find === 'zaken' && e.command.filter?._id !== undefined) finds.push(e.command.filter);
    };
    t.mongo.client.on('commandStarted', watch);
    try {
      const missing = `${ZRC_URL}/zaken/${randomUUID()}`;
      const answers = await Promise.all([...zaken.map((z) => z.url as string), missing].map((url) => get(url)));
      expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 404]);
      expect(answers.slice(0, 4).map((a) => a.json().omschrijving)).toEqual(['samen 1', 'samen 2', 'samen 3', 'samen 4']);
      // the first read goes alone, those that came while it was under way as one $in
      expect(finds.length).toBeLessThan(5);
      expect(finds.some((f) => (f._id as { $in?: unknown[] }).$in !== undefined)).toBe(true);
    } finally {
      t.mongo.client.off('commandStarted', watch);
    }
    const patched = await send('PATCH', zaken[0]!.url, { omschrijving: 'daarna' });
    expect(patched.statusCode).toBe(200);
    expect((await get(zaken[0]!.url)).json().omschrijving).toBe('daarna');
  });
});

describe('deleting a zaak', () => {
  it('removes its parts and its deelzaken', async () => {
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const deel = await createZ(t, 'zaken', zaakBody(s.zaaktype, { hoofdzaak: zaak.url }));
    const rol = await createZ(t, 'rollen', {
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'medewerker',
      roltoelichting: 'x',
      betrokkene: 'https://x.example/m',
    });
    const kc = await createZ(t, 'klantcontacten', { zaak: zaak.url, datumtijd: '2024-03-03T10:00:00Z' });
    expect((await t.call('DELETE', zaak.url)).statusCode).toBe(204);
    for (const url of [zaak.url, deel.url, rol.url, kc.url]) expect((await get(url)).statusCode).toBe(404);
  });
});

describe('a create interrupted between its document and the writes that follow it', () => {
  it('is finished by the follow-up sweep: the rol linked on its zaak, the eindstatus closing the zaak', async () => {
    const z = t.deps.components.zaken!;
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    // The process "stops" right after storing the document: its afterWrite never runs.
    const interrupt = (r: Resource<Record<string, unknown>>) => {
      const afterWrite = r.def.afterWrite;
      r.def.afterWrite = async () => {
        r.def.afterWrite = afterWrite;
        throw new Error('process stopped');
      };
    };
    interrupt(z.rollen);
    const rolRes = await send('POST', `${ZRC}/rollen`, {
      zaak: zaak.url,
      roltype: s.roltype,
      betrokkeneType: 'medewerker',
      roltoelichting: 'x',
      betrokkene: 'https://x.example/m',
    });
    expect(rolRes.statusCode).toBe(500);
    interrupt(z.statussen);
    const statusRes = await send('POST', `${ZRC}/statussen`, {
      zaak: zaak.url,
      statustype: s.statustypen.eind,
      datumStatusGezet: '2024-03-05T10:00:00Z',
    });
    expect(statusRes.statusCode).toBe(500);
    const before = (await get(zaak.url)).json();
    expect(before.rollen).toEqual([]);
    expect(before.status).toBeNull();
    expect(before.einddatum).toBeNull();
    const rollen = (await get(`${ZRC}/rollen?zaak=${encodeURIComponent(zaak.url)}`)).json().results;
    expect(rollen).toHaveLength(1);

    // Within the grace period nothing is redone (a create may still be running elsewhere); after it, everything is.
    expect(await z.rollen.settle(60_000)).toBe(0);
    expect(await z.rollen.settle(0)).toBe(1);
    expect(await z.statussen.settle(0)).toBe(1);
    const after = (await get(zaak.url)).json();
    expect(after.rollen).toEqual([rollen[0].url]);
    expect(after.status).toMatch(/\/statussen\//);
    expect(after.einddatum).toBe('2024-03-05');
    expect(await z.rollen.settle(0)).toBe(0);
  });

  it('a status finished again (stopped before its mark was cleared) stays the last status set', async () => {
    const z = t.deps.components.zaken!;
    const zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
    const status = await createZ(t, 'statussen', { zaak: zaak.url, statustype: s.statustypen.begin, datumStatusGezet: '2024-03-04T10:00:00Z' });
    // its follow-up writes were done, but the process stopped before the mark that says so was cleared
    await z.statussen.store.raw.updateOne({ _id: status.uuid }, { $set: { _follow: new Date(0) } });
    expect(await z.statussen.settle(0)).toBe(1);
    expect((await get(status.url)).json().indicatieLaatstGezetteStatus).toBe(true);
    expect((await get(zaak.url)).json().status).toBe(status.url);
  });
});
