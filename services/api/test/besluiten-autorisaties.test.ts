import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { EIO, eioBody } from './documenten.fixtures';
import { startApp, token, type TestApp } from './harness';
import { createZ, zaakBody } from './zaken.fixtures';
import {
  BESLUITEN,
  BIO,
  BRC,
  besluitBody,
  besluittype,
  brcClient,
  createB,
  param,
  zaaktypeMetBesluittype,
  type ZaakBesluitSetup,
} from './besluiten.fixtures';

// The Besluiten API authorises by besluittype (Autorisaties, component brc), inside every query: lists and counts hold
// only what the caller may read, other objects are 403. `expand` (1.1.0) shows each linked object as the caller may
// read it at its own endpoint, documents included (Autorisaties 1.1: only those ready for publication, if so set).
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakBesluitSetup;
/** A second besluittype of the same catalogus, which the limited clients have no rights on. */
let other: string;
let zaak: Record<string, any>;

const ALL = ['besluiten.lezen', 'besluiten.aanmaken', 'besluiten.bijwerken', 'besluiten.verwijderen', 'audittrails.lezen'];

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetBesluittype(t, sl);
  other = await besluittype(t, (await t.call('GET', s.besluittype)).json().catalogus, { informatieobjecttypen: ['besluitdocument'] });
  zaak = await createZ(t, 'zaken', zaakBody(s.zaaktype));
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const urls = (items: { url?: unknown }[]) => items.map((i) => String(i.url)).sort();

describe('autorisaties by besluittype', () => {
  it('limit lists and counts to the besluittypen of the client, inside the query', async () => {
    const tok = await brcClient(t, 'brc-lijst', [{ scopes: ALL, besluittype: s.besluittype }]);
    const mine = [
      await createB(t, BESLUITEN, besluitBody(s.besluittype)),
      await createB(t, BESLUITEN, besluitBody(s.besluittype, { identificatie: 'AUT-1' })),
    ];
    const theirs = await createB(t, BESLUITEN, besluitBody(other, { identificatie: 'AUT-2' }));
    const list = async (query = '') => {
      const res = await t.call('GET', `${BESLUITEN}${query}`, undefined, { token: tok });
      expect(res.statusCode).toBe(200);
      return res.json();
    };
    const all = await list();
    expect(urls(all.results)).toEqual(urls(mine));
    expect(all.count).toBe(2);
    expect((await list('?identificatie=AUT-1')).count).toBe(1);
    expect((await list('?identificatie=AUT-2')).count).toBe(0);
    expect((await list(`?besluittype=${encodeURIComponent(other)}`)).results).toEqual([]);
    // A client with all rights sees them all.
    expect(urls((await t.call('GET', `${BESLUITEN}?identificatie=AUT-2`)).json().results)).toEqual([theirs.url]);

    // Two besluittypen: both, counted from the maintained counts per besluittype.
    const both = await brcClient(t, 'brc-beide', [
      { scopes: ['besluiten.lezen'], besluittype: s.besluittype },
      { scopes: ['besluiten.lezen'], besluittype: other },
    ]);
    const res = (await t.call('GET', BESLUITEN, undefined, { token: both })).json();
    expect(res.count).toBe(3);
    expect(urls(res.results)).toEqual(urls([...mine, theirs]));
    // Scopes of another component, or another scope, give no rights to read.
    const none = await brcClient(t, 'brc-geen', [
      { scopes: ['besluiten.aanmaken'], besluittype: s.besluittype },
      { component: 'zrc', scopes: ['zaken.lezen'], zaaktype: s.zaaktype, maxVertrouwelijkheidaanduiding: 'openbaar' },
    ]);
    expect((await t.call('GET', BESLUITEN, undefined, { token: none })).statusCode).toBe(403);
  });

  it('refuse reading and writing besluiten of other besluittypen, and writes without the scope', async () => {
    const tok = await brcClient(t, 'brc-schrijf', [{ scopes: ALL, besluittype: s.besluittype }]);
    const reader = await brcClient(t, 'brc-lees', [{ scopes: ['besluiten.lezen'], besluittype: s.besluittype }]);
    const theirs = await createB(t, BESLUITEN, besluitBody(other));
    const mine = await t.call('POST', BESLUITEN, besluitBody(s.besluittype), { token: tok });
    expect(mine.statusCode).toBe(201);
    const b = mine.json();
    expect((await t.call('POST', BESLUITEN, besluitBody(other), { token: tok })).statusCode).toBe(403);
    expect((await t.call('GET', theirs.url, undefined, { token: tok })).statusCode).toBe(403);
    expect((await t.call('PATCH', theirs.url, { toelichting: 'x' }, { token: tok })).statusCode).toBe(403);
    expect((await t.call('PUT', theirs.url, besluitBody(other), { token: tok })).statusCode).toBe(403);
    expect((await t.call('DELETE', theirs.url, undefined, { token: tok })).statusCode).toBe(403);
    expect((await t.call('GET', theirs.url)).json().toelichting).toBe('');

    expect((await t.call('GET', b.url, undefined, { token: reader })).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['POST', BESLUITEN, besluitBody(s.besluittype)],
      ['PATCH', b.url, { toelichting: 'x' }],
      ['DELETE', b.url, undefined],
    ] as const) {
      expect({ method, status: (await t.call(method, url, body, { token: reader })).statusCode }).toEqual({ method, status: 403 });
    }
    expect((await t.call('GET', `${b.url}/audittrail`, undefined, { token: reader })).statusCode).toBe(403);
    expect((await t.call('GET', `${b.url}/audittrail`, undefined, { token: tok })).statusCode).toBe(200);
    // audittrails.lezen counts for the besluittypen it is given for.
    expect((await t.call('GET', `${theirs.url}/audittrail`, undefined, { token: tok })).statusCode).toBe(403);
    const trail = (await t.call('GET', `${theirs.url}/audittrail`)).json();
    expect((await t.call('GET', `${theirs.url}/audittrail/${trail[0].uuid}`, undefined, { token: tok })).statusCode).toBe(403);
    const auditor = await brcClient(t, 'brc-audit', [{ scopes: ['audittrails.lezen'], besluittype: other }]);
    expect((await t.call('GET', `${theirs.url}/audittrail/${trail[0].uuid}`, undefined, { token: auditor })).json()).toEqual(trail[0]);
    expect((await t.call('PATCH', b.url, { toelichting: 'eigen' }, { token: tok })).statusCode).toBe(200);
    expect((await t.call('DELETE', b.url, undefined, { token: tok })).statusCode).toBe(204);
    expect((await t.call('GET', BESLUITEN, undefined, { token: null })).statusCode).toBe(401);
  });

  it('apply to besluitinformatieobjecten through the besluittype of their besluit', async () => {
    const tok = await brcClient(t, 'brc-bio', [{ scopes: ALL, besluittype: s.besluittype }]);
    const mine = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    const theirs = await createB(t, BESLUITEN, besluitBody(other));
    const eio = (await t.call('POST', EIO, eioBody(s.informatieobjecttype))).json();
    const bioMine = (await t.call('POST', BIO, { besluit: mine.url, informatieobject: eio.url }, { token: tok })).json();
    expect(bioMine.besluit).toBe(mine.url);
    expect((await t.call('POST', BIO, { besluit: theirs.url, informatieobject: eio.url }, { token: tok })).statusCode).toBe(403);
    const bioTheirs = await createB(t, BIO, { besluit: theirs.url, informatieobject: eio.url });

    const list = (await t.call('GET', `${BIO}?informatieobject=${encodeURIComponent(eio.url)}`, undefined, { token: tok })).json();
    expect(urls(list)).toEqual([bioMine.url]);
    expect(urls((await t.call('GET', `${BIO}?informatieobject=${encodeURIComponent(eio.url)}`)).json())).toEqual(urls([bioMine, bioTheirs]));
    expect((await t.call('GET', bioTheirs.url, undefined, { token: tok })).statusCode).toBe(403);
    expect((await t.call('DELETE', bioTheirs.url, undefined, { token: tok })).statusCode).toBe(403);
    expect((await t.call('GET', bioTheirs.url)).statusCode).toBe(200);
    expect((await t.call('DELETE', bioMine.url, undefined, { token: tok })).statusCode).toBe(204);
  });
});

describe('expand (Besluiten 1.1.0)', () => {
  it('embeds the besluittype, zaak, besluit and informatieobject, deeper levels with dots, on detail and list', async () => {
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: zaak.url }));
    const eio = (await t.call('POST', EIO, eioBody(s.informatieobjecttype))).json();
    const bio = await createB(t, BIO, { besluit: b.url, informatieobject: eio.url });

    expect((await t.call('GET', b.url)).json()._expand).toBeUndefined();
    const detail = (await t.call('GET', `${b.url}?expand=besluittype,zaak.zaaktype`)).json();
    expect(detail._expand.besluittype).toMatchObject({ url: s.besluittype, omschrijving: 'vergunning' });
    expect(detail._expand.zaak).toMatchObject({ url: zaak.url, identificatie: zaak.identificatie });
    expect(detail._expand.zaak._expand.zaaktype).toMatchObject({ url: s.zaaktype });
    const listed = (await t.call('GET', `${BESLUITEN}?identificatie=${b.identificatie}&expand=zaak`)).json();
    expect(listed.results[0]._expand.zaak.url).toBe(zaak.url);

    const linked = (await t.call('GET', `${bio.url}?expand=besluit.besluittype,informatieobject`)).json();
    expect(linked._expand.informatieobject).toMatchObject({ url: eio.url, titel: eio.titel });
    expect(linked._expand.besluit).toMatchObject({ url: b.url, identificatie: b.identificatie });
    expect(linked._expand.besluit._expand.besluittype.url).toBe(s.besluittype);
    const bios = (await t.call('GET', `${BIO}?besluit=${encodeURIComponent(b.url)}&expand=informatieobject`)).json();
    expect(bios[0]._expand.informatieobject.url).toBe(eio.url);

    // An empty link is an empty object; an unknown field is refused, also where nothing is found.
    const los = await createB(t, BESLUITEN, besluitBody(s.besluittype));
    expect((await t.call('GET', `${los.url}?expand=zaak`)).json()._expand).toEqual({ zaak: {} });
    for (const url of [
      `${b.url}?expand=toelichting`,
      `${BESLUITEN}?identificatie=niets&expand=informatieobject`,
      `${BIO}?expand=zaak`,
      `${bio.url}?expand=besluit..zaak`,
    ]) {
      const res = await t.call('GET', url);
      expect({ url, status: res.statusCode }).toEqual({ url, status: 400 });
      expect(param(res)).toMatchObject({ name: 'expand', code: 'invalid-expand-field' });
    }
  });

  it('shows only what the caller may read at its own endpoint', async () => {
    // Besluiten and documents of its types; no rights in the Zaken API.
    const tok = await brcClient(t, 'brc-expand', [
      { scopes: ['besluiten.lezen'], besluittype: s.besluittype },
      { component: 'drc', scopes: ['documenten.lezen'], informatieobjecttype: s.informatieobjecttype, maxVertrouwelijkheidaanduiding: 'openbaar' },
    ]);
    const b = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: zaak.url }));
    const open = (await t.call('POST', EIO, eioBody(s.informatieobjecttype))).json();
    const geheim = (await t.call('POST', EIO, eioBody(s.informatieobjecttype, { vertrouwelijkheidaanduiding: 'geheim' }))).json();
    const bioOpen = await createB(t, BIO, { besluit: b.url, informatieobject: open.url });
    const bioGeheim = await createB(t, BIO, { besluit: b.url, informatieobject: geheim.url });
    const as = async (url: string, tk = tok) => (await t.call('GET', url, undefined, { token: tk })).json();

    expect((await as(`${b.url}?expand=zaak,besluittype`))._expand).toMatchObject({ zaak: {}, besluittype: { url: s.besluittype } });
    expect((await as(`${bioOpen.url}?expand=informatieobject`))._expand.informatieobject.url).toBe(open.url);
    expect((await as(`${bioGeheim.url}?expand=informatieobject`))._expand.informatieobject).toEqual({});

    // Autorisaties 1.1: an applicatie that reads only documents ready for publication sees the others as absent.
    await t.client('brc-publicatie', 'brc-publicatie-secret');
    const app = await t.call('POST', '/autorisaties/api/v1/applicaties', {
      clientIds: ['brc-publicatie'],
      label: 'publicatie',
      heeftAlleAutorisaties: true,
      alleenIsGereedVoorPublicatie: true,
    });
    expect(app.statusCode).toBe(201);
    const pub = token('brc-publicatie', 'brc-publicatie-secret');
    const ready = (
      await t.call('POST', EIO, eioBody(s.informatieobjecttype, { isGereedVoorPublicatie: true }), { headers: { 'api-version': '1.7' } })
    ).json();
    const bioReady = await createB(t, BIO, { besluit: b.url, informatieobject: ready.url });
    expect((await as(`${bioReady.url}?expand=informatieobject`, pub))._expand.informatieobject.url).toBe(ready.url);
    expect((await as(`${bioOpen.url}?expand=informatieobject`, pub))._expand.informatieobject).toEqual({});
    const all = await as(`${BIO}?besluit=${encodeURIComponent(b.url)}&expand=informatieobject`, pub);
    expect(all.map((x: Record<string, any>) => x._expand.informatieobject.url ?? null).sort()).toEqual([null, null, ready.url].sort());
    // The besluit itself is read under its besluittype: a client without rights on it finds nothing to expand.
    const andere = await brcClient(t, 'brc-ander', [{ scopes: ['besluiten.lezen'], besluittype: other }]);
    const theirs = await createB(t, BESLUITEN, besluitBody(other));
    const bioTheirs = await createB(t, BIO, { besluit: theirs.url, informatieobject: open.url });
    expect((await as(`${bioTheirs.url}?expand=besluit`, andere))._expand.besluit.url).toBe(theirs.url);
    expect(
      (await t.call('GET', `${BRC}/besluitinformatieobjecten/${bioOpen.url.split('/').pop()}?expand=besluit`, undefined, { token: andere }))
        .statusCode,
    ).toBe(403);
  });
});
