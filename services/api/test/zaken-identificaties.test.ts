import { z } from 'zod';
import { ZgwError } from '../src/common/http/errors';
import { parseOrThrow } from '../src/common/http/validation';
import {
  BETROKKENE_TYPEN,
  ContactPersoonRol,
  GeoWithin,
  Geometry,
  OBJECT_TYPEN,
  ObjectTypeOverigeDefinitie,
  betrokkeneIdentificatie,
  objectIdentificatie,
  type BetrokkeneType,
  type ObjectType,
} from '../src/components/zaken/identificaties';
import { ZaakObjectInput } from '../src/components/zaken/schemas';

/** Zaken 1.5.1 identificaties: valid bodies parse unchanged, invalid ones name the dotted camelCase field. */

/** The invalidParams as `name:code`, or [] when the input parses. */
function problems(schema: z.ZodType, input: unknown): string[] {
  try {
    parseOrThrow(schema, input);
    return [];
  } catch (e) {
    if (!(e instanceof ZgwError)) throw e;
    return (e.invalidParams ?? []).map((p) => `${p.name}:${p.code}`);
  }
}

const verblijfsadres = {
  aoaIdentificatie: '0363200000000001',
  wplWoonplaatsNaam: 'Amsterdam',
  gorOpenbareRuimteNaam: 'Dam',
  aoaPostcode: '1012 JS',
  aoaHuisnummer: 1,
  aoaHuisletter: 'A',
  aoaHuisnummertoevoeging: '2h',
  inpLocatiebeschrijving: '',
};
const subVerblijfBuitenland = { lndLandcode: '6030', lndLandnaam: 'Nederland', subAdresBuitenland_1: 'Rue 1', subAdresBuitenland_2: '' };

const BETROKKENEN: Record<BetrokkeneType, Record<string, unknown>> = {
  natuurlijk_persoon: {
    inpBsn: '123456782',
    anpIdentificatie: '',
    inpA_nummer: '1234567890',
    geslachtsnaam: 'Jansen',
    voorvoegselGeslachtsnaam: 'van',
    voorletters: 'J',
    voornamen: 'Jan',
    geslachtsaanduiding: 'm',
    geboortedatum: '19700101',
    verblijfsadres,
    subVerblijfBuitenland: null,
  },
  niet_natuurlijk_persoon: {
    innNnpId: '123456789',
    annIdentificatie: '',
    statutaireNaam: 'Stichting X',
    innRechtsvorm: 'stichting',
    bezoekadres: 'Dam 1',
    subVerblijfBuitenland,
  },
  vestiging: { vestigingsNummer: '000012345678', handelsnaam: ['X', 'X'], verblijfsadres, subVerblijfBuitenland: null, kvkNummer: '12345678' },
  organisatorische_eenheid: { identificatie: 'OE1', naam: 'Burgerzaken', isGehuisvestIn: 'Stadhuis' },
  medewerker: { identificatie: 'mw1', achternaam: 'Jansen', voorletters: 'J', voorvoegselAchternaam: 'van' },
};

const wrapRol = (t: BetrokkeneType) => z.object({ betrokkeneIdentificatie: betrokkeneIdentificatie[t] });
const wrapObject = (t: ObjectType) => z.object({ objectIdentificatie: objectIdentificatie[t]! });

describe('betrokkeneIdentificatie', () => {
  it('has one schema per betrokkeneType', () => {
    expect(Object.keys(betrokkeneIdentificatie).sort()).toEqual([...BETROKKENE_TYPEN].sort());
  });

  it.each(BETROKKENE_TYPEN)('parses a complete %s unchanged and drops unknown keys', (t) => {
    const out = parseOrThrow(wrapRol(t), { betrokkeneIdentificatie: { ...BETROKKENEN[t], onbekend: 1 } });
    expect(out).toEqual({ betrokkeneIdentificatie: BETROKKENEN[t] });
  });

  it('accepts an empty identificatie and "" for the blankable enums', () => {
    for (const t of BETROKKENE_TYPEN) expect(problems(wrapRol(t), { betrokkeneIdentificatie: {} })).toEqual([]);
    expect(problems(wrapRol('natuurlijk_persoon'), { betrokkeneIdentificatie: { geslachtsaanduiding: '', inpA_nummer: '' } })).toEqual([]);
    expect(problems(wrapRol('niet_natuurlijk_persoon'), { betrokkeneIdentificatie: { innRechtsvorm: '' } })).toEqual([]);
  });

  it('names nested maxLength, enum, pattern, null and required violations by their dotted path', () => {
    const np = wrapRol('natuurlijk_persoon');
    expect(problems(np, { betrokkeneIdentificatie: { verblijfsadres: { ...verblijfsadres, aoaPostcode: '1012 JS X' } } })).toEqual([
      'betrokkeneIdentificatie.verblijfsadres.aoaPostcode:max_length',
    ]);
    expect(problems(np, { betrokkeneIdentificatie: { inpBsn: '1234567890', geslachtsaanduiding: 'x' } })).toEqual([
      'betrokkeneIdentificatie.inpBsn:max_length',
      'betrokkeneIdentificatie.geslachtsaanduiding:invalid_choice',
    ]);
    expect(problems(np, { betrokkeneIdentificatie: { inpA_nummer: '0123456789' } })).toEqual(['betrokkeneIdentificatie.inpA_nummer:invalid']);
    expect(problems(np, { betrokkeneIdentificatie: { inpBsn: null } })).toEqual(['betrokkeneIdentificatie.inpBsn:null']);
    expect(problems(np, { betrokkeneIdentificatie: { subVerblijfBuitenland: { lndLandcode: '6030' } } })).toEqual([
      'betrokkeneIdentificatie.subVerblijfBuitenland.lndLandnaam:required',
    ]);
    expect(problems(wrapRol('niet_natuurlijk_persoon'), { betrokkeneIdentificatie: { innRechtsvorm: 'bv' } })).toEqual([
      'betrokkeneIdentificatie.innRechtsvorm:invalid_choice',
    ]);
    expect(problems(wrapRol('vestiging'), { betrokkeneIdentificatie: { handelsnaam: ['ok', 'x'.repeat(626)] } })).toEqual([
      'betrokkeneIdentificatie.handelsnaam.1:max_length',
    ]);
    expect(problems(wrapRol('medewerker'), { betrokkeneIdentificatie: { identificatie: 'x'.repeat(25) } })).toEqual([
      'betrokkeneIdentificatie.identificatie:max_length',
    ]);
  });
});

describe('objectIdentificatie', () => {
  it('covers every objectType of the spec except besluit, enkelvoudig_document and status', () => {
    expect(OBJECT_TYPEN).toHaveLength(31);
    const without = OBJECT_TYPEN.filter((t) => !objectIdentificatie[t]);
    expect(without).toEqual(['besluit', 'enkelvoudig_document', 'status']);
    expect(Object.keys(objectIdentificatie).every((k) => (OBJECT_TYPEN as readonly string[]).includes(k))).toBe(true);
    // The person and organisation types share the Rol schemas.
    for (const t of BETROKKENE_TYPEN) expect(objectIdentificatie[t]).toBe(betrokkeneIdentificatie[t]);
  });

  const VALID: [ObjectType, Record<string, unknown>][] = [
    ['adres', { identificatie: 'A1', wplWoonplaatsNaam: 'Utrecht', gorOpenbareRuimteNaam: 'Oudegracht', huisnummer: 0, postcode: '3511AA' }],
    ['huishouden', { nummer: 'H1', isGehuisvestIn: null }],
    ['inrichtingselement', { type: 'bak', identificatie: 'I1', naam: '' }],
    ['woz_waarde', { waardepeildatum: '20240101', isVoor: { wozObjectNummer: 'W1', aanduidingWozObject: null } }],
    [
      'zakelijk_recht',
      {
        identificatie: 'Z1',
        avgAard: 'eigendom',
        heeftBetrekkingOp: { kadastraleIdentificatie: 'K1', kadastraleAanduiding: 'UTR00 A 1' },
        heeftAlsGerechtigde: { natuurlijkPersoon: { inpBsn: '123456782' } },
      },
    ],
    ['natuurlijk_persoon', BETROKKENEN.natuurlijk_persoon],
  ];
  it.each(VALID)('parses a valid %s unchanged', (t, value) => {
    expect(parseOrThrow(wrapObject(t), { objectIdentificatie: value })).toEqual({ objectIdentificatie: value });
  });

  it('names required, range, maxLength and enum violations by their dotted path', () => {
    expect(
      problems(wrapObject('adres'), { objectIdentificatie: { identificatie: 'A1', wplWoonplaatsNaam: 'U', gorOpenbareRuimteNaam: 'O' } }),
    ).toEqual(['objectIdentificatie.huisnummer:required']);
    expect(
      problems(wrapObject('adres'), {
        objectIdentificatie: { identificatie: 'A1', wplWoonplaatsNaam: 'U', gorOpenbareRuimteNaam: 'O', huisnummer: 100000 },
      }),
    ).toEqual(['objectIdentificatie.huisnummer:max_value']);
    expect(problems(wrapObject('waterdeel'), { objectIdentificatie: { identificatie: 'W1', typeWaterdeel: 'meer' } })).toEqual([
      'objectIdentificatie.typeWaterdeel:invalid_choice',
    ]);
    expect(problems(wrapObject('woz_deelobject'), { objectIdentificatie: { nummerWozDeelObject: '1234567', isOnderdeelVan: null } })).toEqual([
      'objectIdentificatie.nummerWozDeelObject:max_length',
      'objectIdentificatie.isOnderdeelVan:null',
    ]);
    expect(
      problems(wrapObject('zakelijk_recht'), {
        objectIdentificatie: {
          identificatie: 'Z1',
          avgAard: 'e',
          heeftAlsGerechtigde: { natuurlijkPersoon: { verblijfsadres: { ...verblijfsadres, aoaHuisletter: 'AB' } } },
        },
      }),
    ).toEqual(['objectIdentificatie.heeftAlsGerechtigde.natuurlijkPersoon.verblijfsadres.aoaHuisletter:max_length']);
  });

  it('keeps overigeData exactly as sent, duplicate activiteiten included', () => {
    const activiteit = { naam: 'Kappen', datum: '2024-01-01', details: [1, 1, { a: null }] };
    const sent = { objectIdentificatie: { overigeData: { activiteiten: [activiteit, { ...activiteit }], leeg: {}, lijst: ['x', 'x'] } } };
    const out = parseOrThrow(wrapObject('overige'), JSON.parse(JSON.stringify(sent)));
    expect(out).toEqual(sent);
    expect(JSON.stringify(out)).toBe(JSON.stringify(sent));
    expect(problems(wrapObject('overige'), { objectIdentificatie: {} })).toEqual(['objectIdentificatie.overigeData:required']);
    expect(problems(wrapObject('overige'), { objectIdentificatie: { overigeData: [] } })).toEqual(['objectIdentificatie.overigeData:invalid']);
  });

  it('ObjectTypeOverigeDefinitie requires url, schema and objectData', () => {
    const def = { url: 'https://objecttypen.example/api/v2/objecttypes/1', schema: '.jsonSchema', objectData: '.record.data' };
    expect(parseOrThrow(ObjectTypeOverigeDefinitie, def)).toEqual(def);
    expect(
      problems(z.object({ objectTypeOverigeDefinitie: ObjectTypeOverigeDefinitie }), {
        objectTypeOverigeDefinitie: { url: 'geen url', schema: '.s' },
      }),
    ).toEqual(['objectTypeOverigeDefinitie.url:invalid', 'objectTypeOverigeDefinitie.objectData:required']);
  });
});

describe('objectTypeOverige', () => {
  // The standard's pattern `[a-z\_]+` is unanchored (JSON Schema semantics): a value with a lower-case letter or an
  // underscore anywhere matches, as Open Zaak and OneGround accept it.
  const Body = ZaakObjectInput.pick({ objectTypeOverige: true });
  it('matches the pattern as JSON Schema does', () => {
    for (const ok of ['boom', 'GlobaleLocatie', 'Kadastraal_Object', '', 'a1'])
      expect([ok, problems(Body, { objectTypeOverige: ok })]).toEqual([ok, []]);
    for (const bad of ['GROOT', '123', 'À-Z'])
      expect([bad, problems(Body, { objectTypeOverige: bad })]).toEqual([bad, ['objectTypeOverige:invalid']]);
    expect(problems(Body, { objectTypeOverige: 'x'.repeat(101) })).toEqual(['objectTypeOverige:max_length']);
  });
});

describe('contactpersoonRol', () => {
  const Body = z.object({ contactpersoonRol: ContactPersoonRol.nullable().optional() });

  it('requires naam, refuses null, accepts ""', () => {
    expect(problems(Body, { contactpersoonRol: { emailadres: 'a@b.nl' } })).toEqual(['contactpersoonRol.naam:required']);
    expect(problems(Body, { contactpersoonRol: { naam: null } })).toEqual(['contactpersoonRol.naam:null']);
    expect(problems(Body, { contactpersoonRol: { naam: '' } })).toEqual([]);
    expect(problems(Body, { contactpersoonRol: null })).toEqual([]);
  });

  it('applies the tag file limits to the other fields', () => {
    expect(problems(Body, { contactpersoonRol: { naam: 'x'.repeat(200), emailadres: '', functie: 'f', telefoonnummer: '0201234567' } })).toEqual([]);
    expect(
      problems(Body, {
        contactpersoonRol: { naam: 'x'.repeat(201), emailadres: 'geen-email', functie: 'x'.repeat(51), telefoonnummer: 'x'.repeat(21) },
      }),
    ).toEqual([
      'contactpersoonRol.emailadres:invalid',
      'contactpersoonRol.functie:max_length',
      'contactpersoonRol.telefoonnummer:max_length',
      'contactpersoonRol.naam:max_length',
    ]);
  });
});

describe('Geometry', () => {
  const Zaak = z.object({ zaakgeometrie: Geometry.nullable().optional() });
  const GEOMETRIES = [
    { type: 'Point', coordinates: [4.9, 52.37] },
    {
      type: 'MultiPoint',
      coordinates: [
        [4.9, 52.37],
        [5, 52],
      ],
    },
    {
      type: 'LineString',
      coordinates: [
        [4.9, 52.37],
        [5, 52],
      ],
    },
    {
      type: 'MultiLineString',
      coordinates: [
        [
          [4.9, 52.37],
          [5, 52],
        ],
      ],
    },
    {
      type: 'Polygon',
      coordinates: [
        [
          [4, 52],
          [5, 52],
          [5, 53],
          [4, 52],
        ],
      ],
    },
    {
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [4, 52],
            [5, 52],
            [5, 53],
            [4, 52],
          ],
        ],
      ],
    },
    { type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: [4.9, 52.37] }] },
  ];

  it.each(GEOMETRIES)('parses a $type', (g) => {
    expect(parseOrThrow(Zaak, { zaakgeometrie: g })).toEqual({ zaakgeometrie: g });
    expect(parseOrThrow(GeoWithin, { within: g })).toEqual({ within: g });
  });

  it('names bad coordinates and types by their dotted path', () => {
    expect(problems(Zaak, { zaakgeometrie: { type: 'Point', coordinates: [4.9, 52.37, 3] } })).toEqual(['zaakgeometrie.coordinates:max_length']);
    expect(problems(Zaak, { zaakgeometrie: { type: 'LineString', coordinates: [[4.9, 52.37]] } })).toEqual(['zaakgeometrie.coordinates:min_length']);
    expect(problems(Zaak, { zaakgeometrie: { type: 'Point', coordinates: ['4.9', 52.37] } })).toEqual(['zaakgeometrie.coordinates.0:invalid']);
    expect(problems(Zaak, { zaakgeometrie: { type: 'Circle', coordinates: [4.9, 52.37] } })).toEqual(['zaakgeometrie.type:invalid']);
    expect(problems(z.object({ zaakgeometrie: GeoWithin }), { zaakgeometrie: { within: { type: 'Polygon' } } })).toEqual([
      'zaakgeometrie.within.coordinates:required',
    ]);
    expect(problems(Zaak, { zaakgeometrie: null })).toEqual([]);
  });
});
