import { addDuration, archiveringBijAfsluiten, brondatum, type BrondatumSources } from '../src/components/zaken/archief';
import type { ZaakDoc, ZaakPartFacts } from '../src/components/zaken/schemas';

// zrc-021: the brondatum of the archiving procedure for every afleidingswijze, and the fields a closing zaak gets.

type Doc = Record<string, unknown>;

const ZAAKTYPE = 'https://ztc.example/zaaktypen/1';
const zaak = (einddatum: string | null): ZaakDoc => ({
  identificatie: 'ZAAK-1',
  bronorganisatie: '000000000',
  verantwoordelijkeOrganisatie: '000000000',
  zaaktype: ZAAKTYPE,
  startdatum: '2024-01-01',
  einddatum,
  _vertrouwelijkheid: 0,
});
const ZAAK_URL = 'https://zrc.example/zaken/1';
const FACTS: ZaakPartFacts = { _zaaktype: ZAAKTYPE, _vertrouwelijkheid: 0, _zaakUuid: '1', _bronorganisatie: '000000000' };
const eigenschap = (naam: string, waarde: string) => ({ zaak: ZAAK_URL, eigenschap: `${ZAAKTYPE}/eigenschappen/${naam}`, naam, waarde, ...FACTS });
const zaakobject = (objectType: 'besluit' | 'woz_waarde', object: string, objectIdentificatie?: Doc) => ({
  zaak: ZAAK_URL,
  objectType,
  object,
  ...(objectIdentificatie ? { objectIdentificatie } : {}),
  ...FACTS,
});

/** Sources of a zaak closed on 2024-03-05, with the objects each afleidingswijze reads. */
function sources(over: Partial<BrondatumSources> = {}, remote: Record<string, Doc> = {}): BrondatumSources {
  return {
    zaak: zaak('2024-03-05'),
    hoofdzaak: async () => zaak('2025-01-31'),
    eigenschappen: async () => [eigenschap('vervaldatum', '2030-06-01'), eigenschap('vervaldatum', '2031-06-01'), eigenschap('anders', '2040-01-01')],
    besluiten: async () => [
      { ingangsdatum: '2024-01-01', vervaldatum: '2029-12-31' },
      { ingangsdatum: '2024-02-01', vervaldatum: null },
    ],
    zaakobjecten: async () => [
      zaakobject('besluit', 'https://brc.example/besluiten/1'),
      zaakobject('besluit', 'https://brc.example/besluiten/2'),
      zaakobject('woz_waarde', '', { waardepeildatum: '2008-1-1' }),
      zaakobject('woz_waarde', '', { waardepeildatum: '2013-1-1' }),
    ],
    relevanteZaken: async () => [zaak('2023-12-01'), zaak(null)],
    refs: undefined as never,
    fetchJson: async (url) => (remote[url] ? { status: 200, body: remote[url] } : { status: 404, body: {} }),
    ...over,
  };
}

const procedure = (afleidingswijze: string, over: Doc = {}) => ({
  archiefnominatie: 'vernietigen',
  archiefactietermijn: 'P5Y',
  brondatumArchiefprocedure: { afleidingswijze, datumkenmerk: '', objecttype: '', procestermijn: null, ...over },
});

describe('brondatum per afleidingswijze', () => {
  const remote = { 'https://brc.example/besluiten/1': { datum: '2019-05-01' }, 'https://brc.example/besluiten/2': { datum: '2021-07-15' } };
  it.each([
    ['afgehandeld', {}, '2024-03-05'],
    ['termijn', { procestermijn: 'P2Y' }, '2026-03-05'],
    ['hoofdzaak', {}, '2025-01-31'],
    ['eigenschap', { datumkenmerk: 'vervaldatum' }, '2031-06-01'],
    ['ingangsdatum_besluit', {}, '2024-02-01'],
    ['vervaldatum_besluit', {}, '2029-12-31'],
    ['zaakobject', { objecttype: 'besluit', datumkenmerk: 'datum' }, '2021-07-15'],
    ['zaakobject', { objecttype: 'woz_waarde', datumkenmerk: 'waardepeildatum' }, '2013-01-01'],
    ['gerelateerde_zaak', {}, '2023-12-01'],
    ['ander_datumkenmerk', { datumkenmerk: 'iets' }, null],
  ])('%s %j gives %s', async (afleidingswijze, over, expected) => {
    expect(await brondatum(procedure(afleidingswijze, over), sources({}, remote))).toBe(expected);
  });

  it('is null when the source has no date (no hoofdzaak, no besluiten, an object that does not answer)', async () => {
    const empty = sources({
      hoofdzaak: async () => undefined,
      besluiten: async () => [],
      zaakobjecten: async () => [zaakobject('besluit', 'https://brc.example/weg')],
    });
    for (const [a, over] of [
      ['hoofdzaak', {}],
      ['ingangsdatum_besluit', {}],
      ['zaakobject', { objecttype: 'besluit', datumkenmerk: 'datum' }],
    ] as const) {
      expect(await brondatum(procedure(a, over), empty)).toBeNull();
    }
  });
});

describe('archiving fields of a closing zaak', () => {
  it('takes archiefnominatie from the resultaattype and sets archiefactiedatum and startdatumBewaartermijn from the brondatum', async () => {
    expect(await archiveringBijAfsluiten(procedure('afgehandeld'), sources())).toEqual({
      archiefnominatie: 'vernietigen',
      archiefactiedatum: '2029-03-05',
      startdatumBewaartermijn: '2024-03-05',
      _archief: ['archiefnominatie', 'archiefactiedatum', 'startdatumBewaartermijn'],
    });
  });

  it('keeps what the zaak already has', async () => {
    const src = sources({ zaak: { ...zaak('2024-03-05'), archiefnominatie: 'blijvend_bewaren', archiefactiedatum: '2050-01-01' } });
    // (nothing of it follows its sources: _archief names no field)
    expect(await archiveringBijAfsluiten(procedure('afgehandeld'), src)).toEqual({ _archief: [] });
  });

  it('adds durations in years, months, weeks and days', () => {
    expect(addDuration('2024-02-29', 'P1Y')).toBe('2025-02-28');
    expect(addDuration('2024-01-31', 'P1M')).toBe('2024-02-29');
    expect(addDuration('2024-12-31', 'P1Y2M')).toBe('2026-02-28');
    expect(addDuration('2024-03-05', 'P10Y')).toBe('2034-03-05');
    expect(addDuration('2024-03-05', 'P2W3D')).toBe('2024-03-22');
    expect(addDuration('2024-03-05', 'nonsense')).toBeNull();
  });
});
