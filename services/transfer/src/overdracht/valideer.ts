import { ApplicationFailure } from '@temporalio/activity';
import { NIET_GEACCEPTEERD, ZgwCallError, accepteertOverdrachten, zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { WEIGERING, platform, routeOf, tracedOf, type Deps, type Route } from '../common/context';
import { leesDossier } from './bronzaak';
import { koppelTypen, weiger } from './typen';

/** What validation found out, for the steps after it: references only (history holds no personal data). */
export interface Plan {
  doelZaaktype: string;
  /** The copy's bronorganisatie and verantwoordelijkeOrganisatie. */
  rsin: string;
  /** The source's startdatum (the copy keeps it; with zaaktype and organisation it finds the copy again). */
  startdatum: string;
  /** Source type URL -> target type URL. */
  typen: Record<string, string>;
  /** The parts to copy, counted (shown in the step's toelichting). */
  aantallen: Record<string, number>;
  /**
   * The doelregistratie's id within the overdracht's tenant, as this step found it: the later steps of a workflow
   * whose input names only the doelregistratie's naam get it from here (absent in plans of workers before ids).
   */
  doelregistratieId?: string;
}

/**
 * What the sender of a transfer to another tenant hears of a refusal that the target's data decides (its zaaktypen,
 * its types): one reason, naming none of them. The detail stays on the platform's side: the worker's log.
 */
export const DOEL_WEIGERT = 'De doelorganisatie kan deze zaak niet aannemen in de gekoppelde zaaktypen; haar beheerders kunnen de reden nagaan.';

/**
 * Step `gevalideerd`: refuses (no retries) when another transfer of the zaak runs, the source cannot be read
 * (incoming), its zaaktype is not mapped, the target zaaktype is not published or not valid on the startdatum, a
 * type of the source has no counterpart, or a document is locked. Nothing is made before this step has passed.
 */
export async function valideer(deps: Deps, o: OverdrachtOpdracht): Promise<Plan> {
  await loopt(deps, o);
  const route = await routeOf(deps, o);
  const { bron, doel, registratie } = route;
  // to another tenant only while it takes transfers from this one (it may have stopped since the request)
  if (route.apart && !(await accepteertOverdrachten(deps.db, registratie.tenant!, route.tenant)))
    throw weiger('niet_geaccepteerd', NIET_GEACCEPTEERD);
  const doelWeigert = voorDeBron(deps, o, route);
  const dossier = await leesDossier(bron, o.zaak).catch((err: unknown) => {
    if (err instanceof ZgwCallError && !err.technisch) throw weiger('bron_onleesbaar', `De bronzaak kan niet gelezen worden: ${err.message}`);
    throw err;
  });
  const zaaktype = await bron.client.get(dossier.zaak.zaaktype, A.Zaaktype);
  const koppeling = registratie.zaaktypen.find((k) => k.bron === zaaktype.identificatie);
  if (!koppeling)
    throw weiger('zaaktype_niet_gekoppeld', `Zaaktype "${zaaktype.identificatie}" is niet gekoppeld in doelregistratie ${registratie.naam}.`);
  const kandidaten = await doel.client.all(
    zgwUrl(doel.catalogi, 'zaaktypen', { identificatie: koppeling.doel, ...(o.richting === 'in' ? {} : { catalogus: registratie.catalogus }) }),
    A.Zaaktype,
  );
  const startdatum = dossier.zaak.startdatum;
  const geldig = kandidaten.find((t) => !t.concept && t.beginGeldigheid <= startdatum && (!t.eindeGeldigheid || t.eindeGeldigheid >= startdatum));
  if (!geldig) {
    throw doelWeigert(
      weiger(
        'doelzaaktype_ongeldig',
        `Doelzaaktype "${koppeling.doel}" is niet gepubliceerd of niet geldig op de startdatum ${startdatum} van de zaak.`,
      ),
    );
  }
  const catalogus = geldig.catalogus;
  const rsin = o.richting === 'in' ? (await doel.client.get(catalogus, A.Catalogus)).rsin : registratie.rsin;
  const documenten = await Promise.all(unique(dossier.zios.map((z) => z.informatieobject)).map((u) => bron.client.get(u, A.Informatieobject)));
  const vergrendeld = documenten.find((d) => d.locked);
  if (vergrendeld)
    throw weiger('document_vergrendeld', `Document ${vergrendeld.identificatie} is vergrendeld (in bewerking); ontgrendel het en probeer opnieuw.`);
  const typen = await koppelTypen(bron, doel, dossier, geldig.url, catalogus, unique(documenten.map((d) => d.informatieobjecttype))).catch(
    (err: unknown) => {
      throw doelWeigert(err);
    },
  );
  const aantallen = {
    rollen: dossier.rollen.length,
    statussen: dossier.statussen.length,
    zaakeigenschappen: dossier.eigenschappen.length,
    zaakobjecten: dossier.objecten.length,
    klantcontacten: dossier.klantcontacten.length,
    documenten: documenten.length,
    besluiten: dossier.besluiten.length,
  };
  deps.log.info({ ...tracedOf(o), doelZaaktype: geldig.url, aantallen }, 'overdracht: bronzaak gelezen, typen gekoppeld');
  return { doelZaaktype: geldig.url, rsin, startdatum, typen, aantallen, doelregistratieId: route.doelregistratieId };
}

/**
 * A refusal decided by the target's data, as the sender hears it: on a route to another tenant the same code with one
 * reason (DOEL_WEIGERT), the detail kept in the worker's log (for the operators, who tell the target); on any other
 * route as it is.
 */
function voorDeBron(deps: Deps, o: OverdrachtOpdracht, route: Route): (err: unknown) => unknown {
  return (err) => {
    if (!route.apart || !(err instanceof ApplicationFailure) || err.type !== WEIGERING) return err;
    const code = String(err.details?.[0]);
    // (the line names the doelregistratie, by which operators find the target; an RSIN is masked like any nine digits)
    deps.log.info(
      { ...tracedOf(o), doelregistratie: route.registratie.naam, doelWeigering: code, doelReden: err.message },
      'overdracht: de doelorganisatie weigert de zaak; de afzender hoort de reden niet',
    );
    return weiger(code, DOEL_WEIGERT);
  };
}

/** `overdracht_loopt_al`: another transfer of this zaak, received earlier, has not ended. */
async function loopt(deps: Deps, o: OverdrachtOpdracht): Promise<void> {
  const hier = platform(deps.config, o.tenant);
  const base = o.url.slice(0, o.url.lastIndexOf('/overdrachten/'));
  const mine = await hier.client.get(o.url, A.Overdracht);
  for (const status of ['ontvangen', 'bezig']) {
    const andere = await hier.client.all(zgwUrl(base, 'overdrachten', { zaak: o.zaak, status }), A.Overdracht);
    const eerder = andere.find(
      (a) => a.uuid !== o.overdracht && (a.aanmaakdatum < mine.aanmaakdatum || (a.aanmaakdatum === mine.aanmaakdatum && a.uuid < o.overdracht)),
    );
    if (eerder) throw weiger('overdracht_loopt_al', `Overdracht ${eerder.uuid} van deze zaak loopt al (status ${eerder.status}).`);
  }
}

export const unique = (xs: string[]): string[] => [...new Set(xs)];
