import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { routeOf, tracedOf, type Deps, type Kant } from '../common/context';
import { eindstatusVan, leesDossier, pick } from './bronzaak';
import type { Plan } from './valideer';

const ZAAK_VELDEN = [
  'omschrijving',
  'toelichting',
  'registratiedatum',
  'startdatum',
  'einddatumGepland',
  'uiterlijkeEinddatumAfdoening',
  'publicatiedatum',
  'communicatiekanaal',
  'vertrouwelijkheidaanduiding',
  'betalingsindicatie',
  'laatsteBetaaldatum',
  'zaakgeometrie',
  'verlenging',
  'opschorting',
  'selectielijstklasse',
  'archiefnominatie',
  'archiefactiedatum',
  'opdrachtgevendeOrganisatie',
  'processobjectaard',
  'startdatumBewaartermijn',
  'processobject',
] as const;

/** The kenmerk that marks a copy as made by this overdracht (any ZGW target stores kenmerken). */
export const kenmerkVan = (o: OverdrachtOpdracht) => ({ kenmerk: o.overdracht, bron: 'overdracht' });

/**
 * The copy this overdracht made in the target, if any: among the target zaaktype's zaken of the target organisation
 * with the source's startdatum (a day's intake of one zaaktype), the one with this overdracht's kenmerk.
 */
export async function vindDoelzaak(
  doel: Kant,
  o: OverdrachtOpdracht,
  plan: Pick<Plan, 'doelZaaktype' | 'rsin' | 'startdatum'>,
): Promise<A.Zaak | undefined> {
  return (await vindDoelzaken(doel, o, plan))[0];
}

/** Every zaak in the target with this overdracht's kenmerk (one, unless two attempts raced: compensation removes all). */
export async function vindDoelzaken(doel: Kant, o: OverdrachtOpdracht, plan: Pick<Plan, 'doelZaaktype' | 'rsin' | 'startdatum'>): Promise<A.Zaak[]> {
  const kandidaten = await doel.client.all(
    zgwUrl(doel.zaken, 'zaken', { zaaktype: plan.doelZaaktype, bronorganisatie: plan.rsin, startdatum: plan.startdatum }),
    A.Zaak,
  );
  return kandidaten.filter((z) => z.kenmerken.some((k) => k.kenmerk === o.overdracht && k.bron === 'overdracht'));
}

/**
 * Step `doelzaak_aangemaakt`: the copy in the target zaaktype and organisation, numbered by the target (its own
 * identificatie series), with this overdracht's kenmerk and the source as `vervolg` in relevanteAndereZaken (not to
 * another tenant: Route.apart).
 * Looked up first.
 */
export async function maakDoelzaak(deps: Deps, o: OverdrachtOpdracht, plan: Plan): Promise<string> {
  const { bron, doel, apart } = await routeOf(deps, o);
  const bestaand = await vindDoelzaak(doel, o, plan);
  if (bestaand) return bestaand.url;
  const zaak = await bron.client.get(o.zaak, A.Zaak);
  const zaaktype = await doel.client.get(plan.doelZaaktype, A.Zaaktype);
  const producten = new Set(zaaktype.productenOfDiensten);
  const body = {
    ...pick(zaak, ZAAK_VELDEN),
    bronorganisatie: plan.rsin,
    verantwoordelijkeOrganisatie: plan.rsin,
    zaaktype: plan.doelZaaktype,
    productenOfDiensten: zaak.productenOfDiensten.filter((p) => producten.has(p)),
    kenmerken: [...zaak.kenmerken, kenmerkVan(o)],
    relevanteAndereZaken: apart ? [] : [{ url: o.zaak, aardRelatie: 'vervolg' }],
  };
  const copy = await doel.client.post(zgwUrl(doel.zaken, 'zaken'), body, A.Zaak);
  deps.log.info({ ...tracedOf(o), doelZaak: copy.url }, 'overdracht: doelzaak aangemaakt');
  return copy.url;
}

/**
 * The source's last status on the copy of a closed zaak, set after everything else is in it (so the copy is
 * closed only once complete). Looked up first.
 */
export async function sluitDoelzaak(
  deps: Deps,
  o: OverdrachtOpdracht,
  plan: Plan,
  doelZaak: string,
  rollen: Record<string, string>,
): Promise<boolean> {
  const { bron, doel } = await routeOf(deps, o);
  const eind = eindstatusVan(await leesDossier(bron, o.zaak, ['statussen']));
  if (!eind) return false;
  const statustype = plan.typen[eind.statustype]!;
  const bestaand = await doel.client.all(zgwUrl(doel.zaken, 'statussen', { zaak: doelZaak, statustype }), A.Status);
  if (!bestaand.some((s) => s.datumStatusGezet === eind.datumStatusGezet)) {
    await doel.client.post(zgwUrl(doel.zaken, 'statussen'), statusBody(eind, doelZaak, statustype, rollen));
  }
  deps.log.info(tracedOf(o), 'overdracht: eindstatus op de doelzaak gezet');
  return true;
}

export function statusBody(s: A.Status, zaak: string, statustype: string, rollen: Record<string, string>) {
  return {
    ...pick(s, ['datumStatusGezet', 'statustoelichting']),
    zaak,
    statustype,
    ...(s.gezetdoor && rollen[s.gezetdoor] ? { gezetdoor: rollen[s.gezetdoor] } : {}),
  };
}
