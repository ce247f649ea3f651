import { ApplicationFailure } from '@temporalio/activity';
import { zgwUrl } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { WEIGERING, type Kant } from '../common/context';
import type { Zaakdossier } from './bronzaak';

/** How a type of the source is found in the target zaaktype or catalogus (docs/transfers.md: mapping). */
const MATCH: Record<string, string[]> = {
  roltypen: ['omschrijving', 'omschrijvingGeneriek'],
  statustypen: ['omschrijving', 'omschrijvingGeneriek'],
  resultaattypen: ['omschrijving', 'omschrijvingGeneriek'],
  eigenschappen: ['naam'],
  zaakobjecttypen: ['objecttype', 'relatieOmschrijving'],
  informatieobjecttypen: ['omschrijving'],
  besluittypen: ['omschrijving'],
};

export const weiger = (code: string, reden: string): ApplicationFailure =>
  ApplicationFailure.create({ type: WEIGERING, message: reden, details: [code], nonRetryable: true });

/**
 * Every type the source zaak uses, mapped to the target's: roltypen, statustypen, resultaattypen, eigenschappen and
 * zaakobjecttypen of the target zaaktype; informatieobjecttypen and besluittypen of the target catalogus. A type
 * without a counterpart refuses the transfer (`doelzaaktype_ongeldig`), before anything is made.
 */
export async function koppelTypen(
  bron: Kant,
  doel: Kant,
  dossier: Zaakdossier,
  doelZaaktype: string,
  doelCatalogus: string,
  documentTypen: string[],
): Promise<Record<string, string>> {
  const gebruikt: [string, string][] = [
    ...dossier.rollen.map((r) => ['roltypen', r.roltype] as [string, string]),
    ...dossier.statussen.map((s) => ['statustypen', s.statustype] as [string, string]),
    ...(dossier.resultaat ? [['resultaattypen', dossier.resultaat.resultaattype] as [string, string]] : []),
    ...dossier.eigenschappen.map((e) => ['eigenschappen', e.eigenschap] as [string, string]),
    ...dossier.objecten.flatMap((o) => (o.zaakobjecttype ? [['zaakobjecttypen', o.zaakobjecttype] as [string, string]] : [])),
    ...documentTypen.map((t) => ['informatieobjecttypen', t] as [string, string]),
    ...dossier.besluiten.map((b) => ['besluittypen', b.besluit.besluittype] as [string, string]),
  ];
  const kandidaten = new Map<string, Promise<A.Type[]>>();
  const lijst = (soort: string) => {
    const scope = soort === 'informatieobjecttypen' || soort === 'besluittypen' ? { catalogus: doelCatalogus } : { zaaktype: doelZaaktype };
    if (!kandidaten.has(soort)) kandidaten.set(soort, doel.client.all(zgwUrl(doel.catalogi, soort, scope), A.Type));
    return kandidaten.get(soort)!;
  };
  const typen: Record<string, string> = {};
  for (const [soort, url] of gebruikt) {
    if (typen[url]) continue;
    const type = await bron.client.get(url, A.Type);
    const velden = MATCH[soort]!;
    const opties = await lijst(soort);
    const match =
      soort === 'zaakobjecttypen'
        ? opties.find((t) => velden.every((v) => t[v] === type[v]))
        : velden.map((v) => (type[v] ? opties.find((t) => t[v] === type[v]) : undefined)).find(Boolean);
    if (!match) {
      const naam = velden
        .map((v) => type[v])
        .filter(Boolean)
        .join(' / ');
      throw weiger('doelzaaktype_ongeldig', `Het doelzaaktype of de doelcatalogus heeft geen ${soort.replace(/en$/, '')} "${naam}".`);
    }
    typen[url] = match.url;
  }
  return typen;
}
