import { ApplicationFailure } from '@temporalio/activity';
import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import { PERMANENT, routeOf, traced, type Deps, type Kant } from '../context';
import { eindstatusVan, leesDossier, pick, type Obj } from './bronzaak';
import type { Plan } from './valideer';

const ZAAK_VELDEN = [
  'omschrijving', 'toelichting', 'registratiedatum', 'startdatum', 'einddatumGepland', 'uiterlijkeEinddatumAfdoening', 'publicatiedatum',
  'communicatiekanaal', 'vertrouwelijkheidaanduiding', 'betalingsindicatie', 'laatsteBetaaldatum', 'zaakgeometrie', 'verlenging',
  'opschorting', 'selectielijstklasse', 'archiefnominatie', 'archiefactiedatum', 'opdrachtgevendeOrganisatie', 'processobjectaard',
  'startdatumBewaartermijn', 'processobject',
] as const;

/** The kenmerk that marks a copy as made by this overdracht (any ZGW target stores kenmerken). */
export const kenmerkVan = (o: OverdrachtOpdracht) => ({ kenmerk: o.overdracht, bron: 'overdracht' });

/**
 * The copy this overdracht made in the target, if any: the zaak with the source's identificatie in the target
 * organisation, carrying this overdracht's kenmerk. One with that identificatie but not our kenmerk is someone
 * else's: a permanent failure, never touched.
 */
export async function vindDoelzaak(doel: Kant, o: OverdrachtOpdracht, rsin: string): Promise<Obj | undefined> {
  const [found] = await doel.client.all(zgwUrl(doel.zaken, 'zaken', { identificatie: o.zaakIdentificatie, bronorganisatie: rsin }));
  if (!found) return undefined;
  const ours = (found.kenmerken as Obj[] | undefined)?.some((k) => k.kenmerk === o.overdracht && k.bron === 'overdracht');
  if (!ours) throw ApplicationFailure.create({ type: PERMANENT, nonRetryable: true, message: `De doelregistratie heeft al een zaak ${o.zaakIdentificatie} voor organisatie ${rsin} die niet door deze overdracht is gemaakt.` });
  return found;
}

/**
 * Step `doelzaak_aangemaakt`: the copy in the target zaaktype, with the source's identificatie, the target
 * organisation, this overdracht's kenmerk and the source as `vervolg` in relevanteAndereZaken. Looked up first.
 */
export async function maakDoelzaak(deps: Deps, o: OverdrachtOpdracht, plan: Plan): Promise<string> {
  const { bron, doel } = await routeOf(deps, o);
  const bestaand = await vindDoelzaak(doel, o, plan.rsin);
  if (bestaand) return String(bestaand.url);
  const zaak = await bron.client.get(o.zaak);
  const zaaktype = await doel.client.get(plan.doelZaaktype);
  const producten = new Set((zaaktype.productenOfDiensten as string[] | undefined) ?? []);
  const body = {
    ...pick(zaak, ZAAK_VELDEN),
    identificatie: o.zaakIdentificatie,
    bronorganisatie: plan.rsin,
    verantwoordelijkeOrganisatie: plan.rsin,
    zaaktype: plan.doelZaaktype,
    productenOfDiensten: ((zaak.productenOfDiensten as string[] | undefined) ?? []).filter((p) => producten.has(p)),
    kenmerken: [...((zaak.kenmerken as Obj[] | undefined) ?? []), kenmerkVan(o)],
    relevanteAndereZaken: [{ url: o.zaak, aardRelatie: 'vervolg' }],
  };
  const copy = await doel.client.post(zgwUrl(doel.zaken, 'zaken'), body);
  deps.log.info({ ...traced(o), doelZaak: copy.url }, 'overdracht: doelzaak aangemaakt');
  return String(copy.url);
}

/**
 * The source's last status on the copy of a closed zaak, set after everything else is in it (so the copy is
 * closed only once complete). Looked up first.
 */
export async function sluitDoelzaak(deps: Deps, o: OverdrachtOpdracht, plan: Plan, doelZaak: string, rollen: Record<string, string>): Promise<boolean> {
  const { bron, doel } = await routeOf(deps, o);
  const eind = eindstatusVan(await leesDossier(bron, o.zaak));
  if (!eind) return false;
  const statustype = plan.typen[String(eind.statustype)]!;
  const bestaand = await doel.client.all(zgwUrl(doel.zaken, 'statussen', { zaak: doelZaak, statustype }));
  if (!bestaand.some((s) => s.datumStatusGezet === eind.datumStatusGezet)) {
    await doel.client.post(zgwUrl(doel.zaken, 'statussen'), statusBody(eind, doelZaak, statustype, rollen));
  }
  deps.log.info(traced(o), 'overdracht: eindstatus op de doelzaak gezet');
  return true;
}

export function statusBody(s: Obj, zaak: string, statustype: string, rollen: Record<string, string>): Obj {
  return { ...pick(s, ['datumStatusGezet', 'statustoelichting']), zaak, statustype, ...(s.gezetdoor && rollen[s.gezetdoor] ? { gezetdoor: rollen[s.gezetdoor] } : {}) };
}
