import { z } from 'zod';
import { pageOf } from '../../common/http/pagination';

/**
 * The resources of the Referentielijsten & Selectielijst API as VNG's document declares them
 * (VNG-Realisatie/referentielijsten-api, docs/openapi.yaml); `procestermijn` and `waardering` as the published data
 * has them (`ingeschatte_bestaansduur_procesobject`, an empty waardering), which the document's enums leave out.
 */
export const ProcesType = z
  .object({
    url: z.string().describe('Interne referentie naar de url'),
    nummer: z.number().int().describe('Nummer van het procestype binnen de selectielijst'),
    jaar: z.number().int().describe('Het jaartal waartoe dit ProcesType behoort'),
    naam: z.string().describe('Benaming van het procestype'),
    omschrijving: z.string().describe('Omschrijving van het procestype'),
    toelichting: z.string().describe('Toelichting van het procestype'),
    procesobject: z
      .string()
      .describe(
        'Object waar de uitvoering van het proces op van toepassing is en waarvan de bestaans- of geldigheidsduur eventueel van belang is bij het bepalen van de start van de bewaartermijn',
      ),
  })
  .meta({ id: 'ProcesType' });

const taakgebied = (naam: string) => z.boolean().describe(naam);

export const Resultaat = z
  .object({
    url: z.string().describe('Interne referentie naar de url'),
    procesType: z.string().describe('procestype'),
    nummer: z
      .number()
      .int()
      .describe('Nummer van het resultaat. Dit wordt samengesteld met het procestype en generiek resultaat indien van toepassing.'),
    volledigNummer: z.string().describe('volledigNummer'),
    generiek: z.boolean().describe('generiek'),
    specifiek: z.boolean().describe('specifiek'),
    naam: z.string().describe('Benaming van het procestype'),
    omschrijving: z.string().describe('Omschrijving van het specifieke resultaat'),
    herkomst: z.string().describe("Voorbeeld: 'Risicoanalyse', 'Systeemanalyse' of verwijzing naar Wet- en regelgeving"),
    waardering: z.string().describe('`blijvend_bewaren` of `vernietigen`'),
    procestermijn: z
      .string()
      .describe(
        '`nihil`, `bestaansduur_procesobject`, `ingeschatte_bestaansduur_procesobject`, `vast_te_leggen_datum`, `samengevoegd_met_bewaartermijn` of leeg',
      ),
    procestermijnWeergave: z.string().describe('procestermijnWeergave'),
    bewaartermijn: z.string().nullable().describe('bewaartermijn'),
    toelichting: z.string().describe('Toelichting'),
    algemeenBestuurEnInrichtingOrganisatie: taakgebied('algemeen bestuur en inrichting organisatie'),
    bedrijfsvoeringEnPersoneel: taakgebied('bedrijfsvoering en personeel'),
    publiekeInformatieEnRegistratie: taakgebied('publieke informatie en registratie'),
    burgerzaken: taakgebied('burgerzaken'),
    veiligheid: taakgebied('veiligheid'),
    verkeerEnVervoer: taakgebied('verkeer en vervoer'),
    economie: taakgebied('economie'),
    onderwijs: taakgebied('onderwijs'),
    sportCultuurEnRecreatie: taakgebied('sport, cultuur en recreatie'),
    sociaalDomein: taakgebied('sociaal domein'),
    volksgezonheidEnMilieu: taakgebied('volksgezondheid en milieu'),
    vhrosv: taakgebied('VHROSV'),
    heffenBelastingen: taakgebied('Heffen belastingen etc.'),
    alleTaakgebieden: taakgebied('alle taakgebieden'),
    procestermijnOpmerking: z.string().describe("Voorbeeld: '25 jaar', '30 jaar, '5 of 10 jaar'"),
  })
  .meta({ id: 'Resultaat' });

export const Resultaten = pageOf(Resultaat).meta({ id: 'Resultaten' });

export const ResultaattypeOmschrijvingGeneriek = z
  .object({
    url: z.string().describe('URL-referentie naar deze resultaattypeomschrijving'),
    omschrijving: z.string().describe('Algemeen gehanteerde omschrijvingen van de aard van het resultaat'),
    definitie: z.string().describe('Nauwkeurige beschrijving van het generieke type resultaat.'),
    opmerking: z.string().describe('Zinvolle toelichting bij de waarde van de generieke omschrijving'),
  })
  .meta({ id: 'ResultaattypeOmschrijvingGeneriek' });

export const CommunicatieKanaal = z
  .object({
    url: z.string().describe('URL-referentie naar dit communicatiekanaal'),
    naam: z.string().describe('Naam van het communicatiekanaal'),
    omschrijving: z.string().describe('Omschrijving van het communicatiekanaal'),
  })
  .meta({ id: 'CommunicatieKanaal' });

export const CommunicatieKanalen = pageOf(CommunicatieKanaal).meta({ id: 'CommunicatieKanalen' });

export const Health = z
  .object({
    healthy: z.boolean().describe('Als de api online is is dit altijd true'),
    time: z.string().describe('Tijd waarop de message is gegenereerd'),
  })
  .meta({ id: 'Health' });

const page = z.string().optional().describe('Een pagina binnen de gepagineerde set resultaten.');
const procesType = z.url().optional().describe('URL van het procestype (ook van https://selectielijst.openzaak.nl/api/v1: vergeleken op UUID)');

export const ProcestypenQuery = z.object({
  jaar: z
    .string()
    .regex(/^\d{4}$/, 'Voer een jaartal in (vier cijfers), zoals 2020.')
    .optional()
    .describe('jaar'),
});
/** `procesType` as clients of Open Zaak's selectielijst send it, `proces_type` as VNG's document spells it. */
export const ResultatenQuery = z.object({ procesType, proces_type: procesType, page });
export const PageQuery = z.object({ page });

/** The data files as they are published (data/README.md): each URL with OneGround's base, or only an `id`. */
export const ProcesTypeData = ProcesType;
export const ResultaatData = Resultaat;
export const OmschrijvingData = ResultaattypeOmschrijvingGeneriek.omit({ url: true }).extend({ id: z.uuid() });
export const CommunicatieKanaalData = CommunicatieKanaal;

export type ProcesType = z.output<typeof ProcesType>;
export type Resultaat = z.output<typeof Resultaat>;
export type ResultaattypeOmschrijvingGeneriek = z.output<typeof ResultaattypeOmschrijvingGeneriek>;
export type CommunicatieKanaal = z.output<typeof CommunicatieKanaal>;
