// The fill of scripts/openzaak/check.js: what a municipality holds in its Open Zaak, made through Open Zaak's own APIs
// (so its audit trail comes with every write): a catalogus with published types, zaken with rollen of each
// betrokkeneType, statussen up to an eindstatus, resultaten, zaakeigenschappen, zaakobjecten, documents with several
// versions and content, gebruiksrechten, besluiten with their documents, a deelzaak and relevante andere zaken.
const { createHash } = require('node:crypto');

/** The content of a document version: a few kB that differ per document and version. */
function inhoud(naam, versie) {
  const regels = [];
  for (let i = 0; i < 40 + versie * 7; i++)
    regels.push(`${naam} versie ${versie} regel ${i} ${createHash('sha256').update(`${naam}/${versie}/${i}`).digest('hex')}`);
  return Buffer.from(regels.join('\n'));
}

/** The day of the month of zaak `i` (1 to 28, two digits). */
const dag = (i) => String(((i - 1) % 28) + 1).padStart(2, '0');

/**
 * Fills Open Zaak at `oz` (its base URL) with client `c` (scripts/openzaak/http.js); `selectielijst` is the api_root
 * of the selectielijst service Open Zaak is set to. With `meer`, that many zaken more (one at a time: Open Zaak 1.21.0
 * gives documents made at the same moment the same identificatie), of OZCHK-A and OZCHK-B in turn, each with two rollen, two statussen, a zaakeigenschap and a document, every fifth with
 * a besluit and its document. Answers what it made: { catalogus, zaaktypen: {A, B}, zaken: {...}, meer: [zaak URLs] }.
 */
async function fill(c, oz, selectielijst, log = () => {}, { meer = 0 } = {}) {
  const ztc = `${oz}/catalogi/api/v1`;
  const zrc = `${oz}/zaken/api/v1`;
  const drc = `${oz}/documenten/api/v1`;
  const brc = `${oz}/besluiten/api/v1`;
  const publish = (url) => c.write('POST', `${url}/publish`, undefined, [200]);

  // --- the selectielijst (served by the platform; Open Zaak checks these URLs against it)
  const procestypen = await c.all(`${selectielijst}/procestypen?jaar=2020`);
  const procestype = procestypen.find((p) => p.nummer === 1) ?? procestypen[0];
  const resultaten = (await c.all(`${selectielijst}/resultaten?procesType=${encodeURIComponent(procestype.url)}`)).filter(
    (r) => r.procestermijn === 'nihil' || !r.procestermijn,
  );
  const omschrijvingen = await c.all(`${selectielijst}/resultaattypeomschrijvingen`);
  const omschrijving = (naam) => (omschrijvingen.find((o) => o.omschrijving === naam) ?? omschrijvingen[0]).url;

  // --- the catalogus and its types
  // (Open Zaak takes capitals only; a new domein each fill, as an import keeps catalogi by domein)
  const domein = `OZ${Array.from({ length: 3 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('')}`;
  const catalogus = await c.post(`${ztc}/catalogussen`, {
    domein,
    rsin: '000000000',
    contactpersoonBeheerNaam: 'Team Zaken',
    contactpersoonBeheerTelefoonnummer: '0201234567',
    contactpersoonBeheerEmailadres: 'zaken@gemeente.example',
    naam: 'Catalogus gemeente',
    versie: '1',
    begindatumVersie: '2020-01-01',
  });
  const iot = async (omschrijving, vertrouwelijkheidaanduiding) => {
    const made = await c.post(`${ztc}/informatieobjecttypen`, {
      catalogus: catalogus.url,
      omschrijving,
      vertrouwelijkheidaanduiding,
      beginGeldigheid: '2020-01-01',
      informatieobjectcategorie: 'document',
      trefwoord: ['verhuizing'],
      omschrijvingGeneriek: {
        informatieobjecttypeOmschrijvingGeneriek: omschrijving,
        definitieInformatieobjecttypeOmschrijvingGeneriek: 'def',
        herkomstInformatieobjecttypeOmschrijvingGeneriek: 'gemeente',
        hierarchieInformatieobjecttypeOmschrijvingGeneriek: 'top',
        opmerkingInformatieobjecttypeOmschrijvingGeneriek: '',
      },
    });
    await publish(made.url);
    return made;
  };
  const bijlage = await iot('Bijlage', 'openbaar');
  const besluitdocument = await iot('Besluitdocument', 'zaakvertrouwelijk');
  const besluittype = await c.post(`${ztc}/besluittypen`, {
    catalogus: catalogus.url,
    omschrijving: 'Vergunning',
    omschrijvingGeneriek: 'vergunning',
    besluitcategorie: 'besluit',
    reactietermijn: 'P6W',
    publicatieIndicatie: true,
    publicatietekst: 'gepubliceerd',
    publicatietermijn: 'P2W',
    toelichting: 'een besluittype',
    informatieobjecttypen: [besluitdocument.url],
    beginGeldigheid: '2020-01-01',
    zaaktypen: [],
  });
  await publish(besluittype.url);

  /** A zaaktype with statustypen (the last its eindstatus), roltypen, resultaattypen, eigenschappen; published. */
  async function zaaktype(identificatie, { statussen, deelzaaktypen = [] }) {
    const zt = await c.post(`${ztc}/zaaktypen`, {
      identificatie,
      omschrijving: `Zaaktype ${identificatie}`,
      omschrijvingGeneriek: 'generiek',
      vertrouwelijkheidaanduiding: 'zaakvertrouwelijk',
      doel: 'een vergunning verlenen',
      aanleiding: 'een aanvraag',
      toelichting: 'voor de verhuizing',
      indicatieInternOfExtern: 'extern',
      handelingInitiator: 'aanvragen',
      onderwerp: 'vergunning',
      handelingBehandelaar: 'behandelen',
      doorlooptijd: 'P8W',
      servicenorm: 'P6W',
      opschortingEnAanhoudingMogelijk: true,
      verlengingMogelijk: true,
      verlengingstermijn: 'P6W',
      trefwoorden: ['vergunning', identificatie],
      publicatieIndicatie: false,
      publicatietekst: '',
      verantwoordingsrelatie: [],
      productenOfDiensten: ['https://producten.gemeente.example/vergunning'],
      selectielijstProcestype: procestype.url,
      referentieproces: { naam: 'vergunningverlening', link: 'https://processen.gemeente.example/1' },
      verantwoordelijke: '000000000',
      catalogus: catalogus.url,
      besluittypen: [besluittype.url],
      deelzaaktypen,
      gerelateerdeZaaktypen: [],
      beginGeldigheid: '2020-01-01',
      versiedatum: '2020-01-01',
    });
    const statustypen = [];
    for (let i = 1; i <= statussen; i++) {
      statustypen.push(
        await c.post(`${ztc}/statustypen`, {
          zaaktype: zt.url,
          omschrijving: i === statussen ? 'Afgehandeld' : `Stap ${i}`,
          omschrijvingGeneriek: `stap${i}`,
          statustekst: `De zaak is bij stap ${i}`,
          volgnummer: i,
          informeren: i === 1,
          toelichting: `statustype ${i}`,
        }),
      );
    }
    const roltypen = {};
    for (const [omschrijvingGeneriek, omschrijving] of [
      ['initiator', 'Aanvrager'],
      ['behandelaar', 'Behandelaar'],
      ['belanghebbende', 'Belanghebbende'],
      ['adviseur', 'Adviseur'],
      ['zaakcoordinator', 'Coördinator'],
    ]) {
      roltypen[omschrijvingGeneriek] = await c.post(`${ztc}/roltypen`, { zaaktype: zt.url, omschrijving, omschrijvingGeneriek });
    }
    const resultaattypen = [];
    for (const [i, naam] of ['Verleend', 'Geweigerd'].entries()) {
      resultaattypen.push(
        await c.post(`${ztc}/resultaattypen`, {
          zaaktype: zt.url,
          omschrijving: naam,
          resultaattypeomschrijving: omschrijving(i === 0 ? 'Verleend' : 'Geweigerd'),
          selectielijstklasse: resultaten[i % resultaten.length].url,
          toelichting: `resultaat ${naam}`,
          archiefnominatie: i === 0 ? 'blijvend_bewaren' : 'vernietigen',
          archiefactietermijn: i === 0 ? null : 'P10Y',
          brondatumArchiefprocedure: {
            afleidingswijze: 'afgehandeld',
            datumkenmerk: '',
            einddatumBekend: false,
            objecttype: '',
            registratie: '',
            procestermijn: null,
          },
        }),
      );
    }
    const eigenschappen = {
      kenmerk: await c.post(`${ztc}/eigenschappen`, {
        zaaktype: zt.url,
        naam: 'kenmerk',
        definitie: 'het kenmerk van de aanvraag',
        toelichting: 'tekst',
        specificatie: { groep: 'aanvraag', formaat: 'tekst', lengte: '40', kardinaliteit: '1', waardenverzameling: [] },
      }),
      datum: await c.post(`${ztc}/eigenschappen`, {
        zaaktype: zt.url,
        naam: 'ontvangen',
        definitie: 'de datum van ontvangst',
        toelichting: 'datum',
        specificatie: { groep: 'aanvraag', formaat: 'datum', lengte: '8', kardinaliteit: '1', waardenverzameling: [] },
      }),
    };
    for (const [i, type] of [bijlage, besluitdocument].entries()) {
      await c.post(`${ztc}/zaaktype-informatieobjecttypen`, {
        zaaktype: zt.url,
        informatieobjecttype: type.url,
        volgnummer: i + 1,
        richting: i === 0 ? 'inkomend' : 'uitgaand',
        statustype: i === 0 ? statustypen[0].url : null,
      });
    }
    await publish(zt.url);
    return { ...zt, statustypen, roltypen, resultaattypen, eigenschappen };
  }
  const B = await zaaktype('OZCHK-B', { statussen: 2 });
  const A = await zaaktype('OZCHK-A', { statussen: 3, deelzaaktypen: [B.url] });
  log(`catalogus ${domein}: zaaktypen OZCHK-A and OZCHK-B published`);

  // --- zaken and their parts
  const betrokkenen = {
    natuurlijk_persoon: {
      inpBsn: '111222333',
      geslachtsnaam: 'Jansen',
      voorvoegselGeslachtsnaam: 'de',
      voorletters: 'A.B.',
      voornamen: 'Anna Berendina',
      geslachtsaanduiding: 'v',
      geboortedatum: '1980-02-03',
    },
    niet_natuurlijk_persoon: {
      innNnpId: '123456782',
      annIdentificatie: '',
      statutaireNaam: 'Bakkerij de Korrel B.V.',
      innRechtsvorm: 'besloten_vennootschap',
      bezoekadres: 'Dorpsstraat 1',
    },
    vestiging: { vestigingsNummer: '000012345678', handelsnaam: ['De Korrel'], kvkNummer: '12345678' },
    organisatorische_eenheid: { identificatie: 'VERG', naam: 'Team Vergunningen', isGehuisvestIn: 'Stadhuis' },
    medewerker: { identificatie: 'mdw-42', achternaam: 'Visser', voorletters: 'K.', voorvoegselAchternaam: '' },
  };
  const roltypeVoor = {
    natuurlijk_persoon: 'initiator',
    niet_natuurlijk_persoon: 'belanghebbende',
    vestiging: 'adviseur',
    organisatorische_eenheid: 'zaakcoordinator',
    medewerker: 'behandelaar',
  };

  async function document(naam, type, versies, extra = {}) {
    let doc = await c.post(`${drc}/enkelvoudiginformatieobjecten`, {
      bronorganisatie: '000000000',
      creatiedatum: '2022-03-01',
      titel: naam,
      vertrouwelijkheidaanduiding: 'openbaar',
      auteur: 'Team Vergunningen',
      status: 'definitief',
      formaat: 'text/plain',
      taal: 'dut',
      bestandsnaam: `${naam}.txt`,
      inhoud: inhoud(naam, 1).toString('base64'),
      beschrijving: `het document ${naam}`,
      ontvangstdatum: '2022-03-02',
      indicatieGebruiksrecht: false,
      informatieobjecttype: type.url,
      trefwoorden: ['aanvraag'],
      ...extra,
    });
    if (versies > 1) {
      const { lock } = await c.write('POST', `${doc.url}/lock`, undefined, [200]);
      for (let v = 2; v <= versies; v++) {
        const bytes = inhoud(naam, v);
        doc = await c.write(
          'PATCH',
          doc.url,
          {
            lock,
            inhoud: bytes.toString('base64'),
            bestandsomvang: bytes.length,
            beschrijving: `het document ${naam}, versie ${v}`,
            bestandsnaam: `${naam}-v${v}.txt`,
          },
          [200],
        );
      }
      await c.write('POST', `${doc.url}/unlock`, { lock }, [204]);
    }
    return doc;
  }

  async function zaak(zt, i, plan) {
    const z = await c.post(`${zrc}/zaken`, {
      bronorganisatie: '000000000',
      verantwoordelijkeOrganisatie: '000000000',
      zaaktype: zt.url,
      omschrijving: `${zt.identificatie} zaak ${i}`,
      toelichting: `een zaak van de verhuizing (${i})`,
      registratiedatum: `2022-03-${dag(i)}`,
      startdatum: `2022-03-${dag(i)}`,
      einddatumGepland: '2022-06-01',
      uiterlijkeEinddatumAfdoening: '2022-07-01',
      publicatiedatum: null,
      vertrouwelijkheidaanduiding: 'zaakvertrouwelijk',
      betalingsindicatie: 'nvt',
      communicatiekanaal: '',
      productenOfDiensten: [],
      kenmerken: [{ kenmerk: `K-${i}`, bron: 'balie' }],
      ...(i === 1 ? { zaakgeometrie: { type: 'Point', coordinates: [4.9, 52.37] } } : {}),
      ...(plan.hoofdzaak ? { hoofdzaak: plan.hoofdzaak } : {}),
    });
    for (const [n, betrokkeneType] of plan.rollen.entries()) {
      await c.post(`${zrc}/rollen`, {
        zaak: z.url,
        betrokkeneType,
        roltype: zt.roltypen[roltypeVoor[betrokkeneType]].url,
        roltoelichting: `${betrokkeneType} van zaak ${i}`,
        indicatieMachtiging: n === 0 ? 'gemachtigde' : '',
        betrokkeneIdentificatie: betrokkenen[betrokkeneType],
        ...(betrokkeneType === 'natuurlijk_persoon'
          ? { contactpersoonRol: { emailadres: 'anna@example.org', functie: 'aanvrager', telefoonnummer: '0612345678', naam: 'Anna' } }
          : {}),
      });
    }
    await c.post(`${zrc}/zaken/${z.uuid}/zaakeigenschappen`, { zaak: z.url, eigenschap: zt.eigenschappen.kenmerk.url, waarde: `aanvraag-${i}` });
    if (plan.datum)
      await c.post(`${zrc}/zaken/${z.uuid}/zaakeigenschappen`, { zaak: z.url, eigenschap: zt.eigenschappen.datum.url, waarde: '20220301' });
    for (let o = 0; o < plan.zaakobjecten; o++) {
      await c.post(
        `${zrc}/zaakobjecten`,
        o === 0
          ? {
              zaak: z.url,
              objectType: 'adres',
              relatieomschrijving: 'de plek',
              objectIdentificatie: {
                identificatie: `0363200000${i}`,
                wplWoonplaatsNaam: 'Amsterdam',
                gorOpenbareRuimteNaam: 'Dam',
                huisnummer: i,
                huisletter: '',
                huisnummertoevoeging: '',
                postcode: '1012JS',
              },
            }
          : {
              zaak: z.url,
              objectType: 'overige',
              objectTypeOverige: 'boom',
              relatieomschrijving: 'de boom',
              objectIdentificatie: { overigeData: { soort: 'eik', nummer: i } },
            },
      );
    }
    const docs = [];
    for (let d = 0; d < plan.documenten; d++) {
      const doc = await document(`${zt.identificatie}-zaak${i}-doc${d + 1}`, bijlage, d === 0 ? plan.versies : 1);
      await c.post(`${zrc}/zaakinformatieobjecten`, { zaak: z.url, informatieobject: doc.url, titel: `bij zaak ${i}`, beschrijving: 'de aanvraag' });
      if (d === 0 && plan.gebruiksrechten) {
        await c.post(`${drc}/gebruiksrechten`, {
          informatieobject: doc.url,
          startdatum: '2022-03-01T10:00:00Z',
          einddatum: '2032-03-01T10:00:00Z',
          omschrijvingVoorwaarden: 'alleen intern',
        });
      }
      docs.push(doc);
    }
    if (plan.besluit) {
      const besluit = await c.post(`${brc}/besluiten`, {
        verantwoordelijkeOrganisatie: '000000000',
        besluittype: besluittype.url,
        zaak: z.url,
        datum: '2022-04-01',
        toelichting: `besluit bij zaak ${i}`,
        bestuursorgaan: 'college van B&W',
        ingangsdatum: '2022-04-02',
        vervaldatum: '2027-04-02',
        vervalreden: 'tijdelijk',
        publicatiedatum: '2022-04-03',
        verzenddatum: '2022-04-04',
        uiterlijkeReactiedatum: '2022-05-15',
      });
      const doc = await document(`${zt.identificatie}-zaak${i}-besluit`, besluitdocument, 2, { vertrouwelijkheidaanduiding: 'zaakvertrouwelijk' });
      await c.post(`${brc}/besluitinformatieobjecten`, { besluit: besluit.url, informatieobject: doc.url });
      docs.push(doc);
    }
    await statussen(zt, z, i, plan.statussen);
    return z;
  }

  /** The statussen `van` up to `tot` (counted from 0) of a zaak; a resultaat before its eindstatus. */
  async function statussen(zt, z, i, tot, van = 0) {
    for (let s = van; s < tot; s++) {
      const eind = s === zt.statustypen.length - 1;
      if (eind)
        await c.post(`${zrc}/resultaten`, { zaak: z.url, resultaattype: zt.resultaattypen[i % 2].url, toelichting: `resultaat van zaak ${i}` });
      await c.post(`${zrc}/statussen`, {
        zaak: z.url,
        statustype: zt.statustypen[s].url,
        datumStatusGezet: `2022-0${4 + s}-${dag(i)}T1${s}:00:00Z`,
        statustoelichting: `stap ${s + 1} van zaak ${i}`,
      });
    }
  }

  const alle = ['natuurlijk_persoon', 'niet_natuurlijk_persoon', 'vestiging', 'organisatorische_eenheid', 'medewerker'];
  const zaken = {};
  zaken.A1 = await zaak(A, 1, {
    rollen: alle,
    zaakobjecten: 2,
    documenten: 2,
    versies: 3,
    gebruiksrechten: true,
    besluit: true,
    statussen: 0,
    datum: true,
  });
  zaken.A2 = await zaak(A, 2, {
    rollen: ['natuurlijk_persoon', 'medewerker'],
    zaakobjecten: 1,
    documenten: 1,
    versies: 2,
    gebruiksrechten: false,
    besluit: false,
    statussen: 3,
  });
  zaken.A3 = await zaak(A, 3, {
    rollen: ['niet_natuurlijk_persoon', 'organisatorische_eenheid'],
    zaakobjecten: 0,
    documenten: 1,
    versies: 1,
    statussen: 2,
    datum: true,
  });
  zaken.A4 = await zaak(A, 4, { rollen: ['vestiging'], zaakobjecten: 1, documenten: 0, statussen: 1 });
  // (a hoofdzaak's statussen before its eindstatus come before its deelzaak: Open Zaak 1.21.0 answers 500 to a status
  // that is not the eindstatus of a zaak with deelzaken, serializers/zaken.py StatusSerializer.create)
  await statussen(A, zaken.A1, 1, 2);
  zaken.B1 = await zaak(B, 5, {
    hoofdzaak: zaken.A1.url,
    rollen: alle,
    zaakobjecten: 1,
    documenten: 1,
    versies: 3,
    gebruiksrechten: true,
    besluit: true,
    statussen: 2,
    datum: true,
  });
  // (the hoofdzaak is closed after its deelzaak: Open Zaak refuses a status of a deelzaak whose hoofdzaak is closed)
  await statussen(A, zaken.A1, 1, 3, 2);
  zaken.B2 = await zaak(B, 6, { rollen: ['medewerker', 'natuurlijk_persoon'], zaakobjecten: 2, documenten: 1, versies: 1, statussen: 1 });
  // relevante andere zaken (A3 follows A2; B2 relates to A4)
  await c.write('PATCH', zaken.A3.url, { relevanteAndereZaken: [{ url: zaken.A2.url, aardRelatie: 'vervolg' }] }, [200]);
  await c.write(
    'PATCH',
    zaken.B2.url,
    {
      relevanteAndereZaken: [
        { url: zaken.A4.url, aardRelatie: 'bijdrage' },
        { url: zaken.A1.url, aardRelatie: 'onderwerp' },
      ],
    },
    [200],
  );
  // a besluit without a zaak, with its document
  const los = await c.post(`${brc}/besluiten`, {
    verantwoordelijkeOrganisatie: '000000000',
    besluittype: besluittype.url,
    datum: '2022-05-01',
    ingangsdatum: '2022-05-01',
    toelichting: 'een besluit zonder zaak',
  });
  const losDoc = await document('los-besluit', besluitdocument, 1);
  await c.post(`${brc}/besluitinformatieobjecten`, { besluit: los.url, informatieobject: losDoc.url });
  log('zaken made through the APIs: 4 of OZCHK-A, 2 of OZCHK-B (one a deelzaak), with their parts, documents and besluiten');
  const extra = [];
  for (let i = 7; i < 7 + meer; i++) {
    const plan = { rollen: ['natuurlijk_persoon', 'medewerker'], zaakobjecten: 0, documenten: 1, versies: 1, besluit: i % 5 === 0, statussen: 2 };
    extra.push((await zaak(i % 2 ? A : B, i, plan)).url);
    if (extra.length % 50 === 0) log(`${extra.length} of ${meer} zaken more made through the APIs`);
  }
  return { catalogus, domein, zaaktypen: { A, B }, zaken, meer: extra };
}

module.exports = { fill, inhoud };
