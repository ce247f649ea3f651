import { startReferentielijsten, type Referentielijsten } from './catalogi.fixtures';
import { startApp, type TestApp } from './harness';
import { CRS, ZRC, createZ, zaakBody } from './zaken.fixtures';
import { BESLUITEN, besluitBody, createB, missing, param, zaaktypeMetBesluittype, type ZaakBesluitSetup } from './besluiten.fixtures';

// The Zaken API of this platform keeps a zaak's besluiten (zaakbesluiten) in step with the `zaak` of the besluiten of
// this platform, and reads those besluiten in-process for the archiving dates of a closing zaak (zrc-021).
let t: TestApp;
let sl: Referentielijsten;
let s: ZaakBesluitSetup;

beforeAll(async () => {
  sl = await startReferentielijsten();
  t = await startApp({ REFERENTIELIJSTEN_URL: sl.url });
  s = await zaaktypeMetBesluittype(t, sl);
});
afterAll(async () => {
  await t.close();
  await sl.close();
});

const zaak = () => createZ(t, 'zaken', zaakBody(s.zaaktype));
const besluitenOf = async (zaakUrl: string) => {
  const res = await t.call('GET', `${zaakUrl}/besluiten`);
  expect(res.statusCode).toBe(200);
  return (res.json() as { besluit: string }[]).map((l) => l.besluit);
};

describe("a zaak's besluiten", () => {
  it('follow the zaak of each besluit: added with it, moved and removed with it, gone with the besluit', async () => {
    const a = await zaak();
    const b = await zaak();
    const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: a.url }));
    expect(await besluitenOf(a.url)).toEqual([besluit.url]);
    const [link] = (await t.call('GET', `${a.url}/besluiten`)).json();
    expect(link).toMatchObject({ url: expect.stringContaining(`${a.url}/besluiten/`), besluit: besluit.url });
    expect((await t.call('GET', link.url)).json()).toMatchObject({ besluit: besluit.url });

    expect((await t.call('PATCH', besluit.url, { zaak: b.url })).statusCode).toBe(200);
    expect(await besluitenOf(a.url)).toEqual([]);
    expect(await besluitenOf(b.url)).toEqual([besluit.url]);
    expect((await t.call('PATCH', besluit.url, { toelichting: 'zelfde zaak' })).statusCode).toBe(200);
    expect(await besluitenOf(b.url)).toEqual([besluit.url]);

    expect((await t.call('PATCH', besluit.url, { zaak: '' })).statusCode).toBe(200);
    expect(await besluitenOf(b.url)).toEqual([]);
    expect((await t.call('PUT', besluit.url, besluitBody(s.besluittype, { zaak: a.url }))).statusCode).toBe(200);
    expect(await besluitenOf(a.url)).toEqual([besluit.url]);

    const second = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: a.url }));
    expect((await besluitenOf(a.url)).sort()).toEqual([besluit.url, second.url].sort());
    expect((await t.call('DELETE', besluit.url)).statusCode).toBe(204);
    expect(await besluitenOf(a.url)).toEqual([second.url]);

    // The zaak's audit trail records its zaakbesluiten coming and going.
    const trail = ((await t.call('GET', `${a.url}/audittrail`)).json() as Record<string, any>[]).filter((e) => e.resource === 'zaakbesluit');
    expect(trail.map((e) => e.actie)).toEqual(['create', 'destroy', 'create', 'create', 'destroy']);
    expect(trail[0]).toMatchObject({
      bron: 'zrc',
      hoofdObject: a.url,
      resourceUrl: link.url,
      wijzigingen: { nieuw: { url: link.url, besluit: besluit.url } },
    });
  });

  it('of this platform are not linked or unlinked by hand against the besluit', async () => {
    const a = await zaak();
    const b = await zaak();
    const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: a.url }));
    const post = (zaakUrl: string, url: string) => t.call('POST', `${zaakUrl}/besluiten`, { besluit: url }, { headers: CRS });
    expect(param(await post(a.url, besluit.url))).toMatchObject({ name: 'nonFieldErrors', code: 'unique' });
    expect(param(await post(b.url, besluit.url))).toMatchObject({ name: 'nonFieldErrors', code: 'inconsistent-relation' });
    expect(param(await post(a.url, missing('besluiten')))).toMatchObject({ name: 'besluit', code: 'bad-url' });
    const [link] = (await t.call('GET', `${a.url}/besluiten`)).json();
    expect(param(await t.call('DELETE', link.url))).toMatchObject({ code: 'inconsistent-relation' });
    expect(await besluitenOf(a.url)).toEqual([besluit.url]);

    // A besluit of another Besluiten API is linked and unlinked by hand, as before.
    const elders = sl.add('besluiten/1', { besluittype: 'https://elders.example/besluittypen/1', verantwoordelijkeOrganisatie: '000000000' });
    const made = await post(b.url, elders);
    expect(made.statusCode).toBe(201);
    expect(param(await post(b.url, elders))).toMatchObject({ name: 'nonFieldErrors', code: 'unique' });
    expect(await besluitenOf(b.url)).toEqual([elders]);
    expect((await t.call('DELETE', made.json().url)).statusCode).toBe(204);
    expect(await besluitenOf(b.url)).toEqual([]);
  });
});

describe('a zaak with besluiten of this platform', () => {
  it('is not deleted while a besluit names it, nor with a deelzaak that one names', async () => {
    const z = await zaak();
    const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: z.url }));
    expect(param(await t.call('DELETE', z.url, undefined, { headers: CRS }))).toMatchObject({
      name: 'nonFieldErrors',
      code: 'pending-besluit-relation',
    });
    expect((await t.call('GET', z.url, undefined, { headers: CRS })).statusCode).toBe(200);
    expect((await t.call('PATCH', besluit.url, { zaak: '' })).statusCode).toBe(200);
    expect((await t.call('DELETE', z.url, undefined, { headers: CRS })).statusCode).toBe(204);

    const hoofdzaak = await zaak();
    const deelzaak = await createZ(t, 'zaken', zaakBody(s.zaaktype, { hoofdzaak: hoofdzaak.url }));
    const b2 = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: deelzaak.url }));
    expect(param(await t.call('DELETE', hoofdzaak.url, undefined, { headers: CRS }))).toMatchObject({ code: 'pending-besluit-relation' });
    expect((await t.call('DELETE', b2.url)).statusCode).toBe(204);
    expect((await t.call('DELETE', hoofdzaak.url, undefined, { headers: CRS })).statusCode).toBe(204);
    expect((await t.call('GET', deelzaak.url, undefined, { headers: CRS })).statusCode).toBe(404);
  });
});

describe('archiving dates of a closing zaak from its besluiten (zrc-021)', () => {
  /** Closes a new zaak with this resultaattype after `prepare`; returns the zaak as it is then. */
  async function close(resultaattype: string, prepare: (zaakUrl: string) => Promise<void>): Promise<Record<string, any>> {
    const z = await zaak();
    await prepare(z.url);
    await createZ(t, 'resultaten', { zaak: z.url, resultaattype });
    await createZ(t, 'statussen', { zaak: z.url, statustype: s.statustypen.eind, datumStatusGezet: '2024-03-05T10:00:00Z' });
    return (await t.call('GET', z.url, undefined, { headers: CRS })).json();
  }

  it('ingangsdatum_besluit: the latest ingangsdatum of the besluiten of this platform', async () => {
    const z = await close(s.resultaattypen.ingangsdatum, async (url) => {
      await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: url, ingangsdatum: '2024-02-20' }));
      await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: url, ingangsdatum: '2024-01-10' }));
    });
    expect(z).toMatchObject({ einddatum: '2024-03-05', archiefnominatie: 'vernietigen', archiefactiedatum: '2029-02-20' });
  });

  it('vervaldatum_besluit: the latest vervaldatum', async () => {
    const z = await close(s.resultaattypen.vervaldatum, async (url) => {
      await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: url, vervaldatum: '2031-06-30', vervalreden: 'tijdelijk' }));
      await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: url, vervaldatum: '2030-01-01', vervalreden: 'tijdelijk' }));
    });
    expect(z.archiefactiedatum).toBe('2036-06-30');
  });

  it('zaakobject: the datum of the besluiten its zaakobjecten point at', async () => {
    const z = await close(s.resultaattypen.zaakobject, async (url) => {
      const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { datum: '2023-11-15' }));
      await createZ(t, 'zaakobjecten', { zaak: url, object: besluit.url, objectType: 'besluit', relatieomschrijving: 'besluit' });
    });
    expect(z.archiefactiedatum).toBe('2028-11-15');
  });

  it('leaves archiefactiedatum empty when no besluit gives a date', async () => {
    const z = await close(s.resultaattypen.vervaldatum, async (url) => {
      await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: url }));
    });
    expect(z.archiefactiedatum).toBeNull();
    expect(z.einddatum).toBe('2024-03-05');
  });
});

describe('a besluit of a zaak elsewhere', () => {
  it('is not recorded among the besluiten of any zaak here', async () => {
    const zaaktype = (await t.call('GET', s.zaaktype)).json();
    const elders = sl.add('zaken/elders', { zaaktype: zaaktype.url, bronorganisatie: '000000000' });
    const besluit = await createB(t, BESLUITEN, besluitBody(s.besluittype, { zaak: elders }));
    expect(besluit.zaak).toBe(elders);
    expect((await t.mongo.db.collection('zaakbesluiten').countDocuments({ besluit: besluit.url })).valueOf()).toBe(0);
    expect((await t.call('GET', `${ZRC}/zaken`, undefined, { headers: CRS })).statusCode).toBe(200);
  });
});
