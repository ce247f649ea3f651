import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { routeOf, tracedOf, type Deps } from '../common/context';

/**
 * Step `bron_gekoppeld`: the source names the copy in relevanteAndereZaken (aardRelatie `bijdrage`), once; not a copy
 * in another tenant (Route.apart).
 */
export async function koppelBron(deps: Deps, o: OverdrachtOpdracht, doelZaak: string): Promise<void> {
  const { bron, apart } = await routeOf(deps, o);
  if (apart) {
    deps.log.info({ ...tracedOf(o), doelZaak }, 'overdracht: doelzaak in een andere organisatie; de bronzaak verwijst er niet naar');
    return;
  }
  const zaak = await bron.client.get(o.zaak, A.Zaak);
  const relaties = zaak.relevanteAndereZaken;
  if (!relaties.some((r) => r.url === doelZaak)) {
    await bron.client.patch(o.zaak, { relevanteAndereZaken: [...relaties, { url: doelZaak, aardRelatie: 'bijdrage' }] });
  }
  deps.log.info({ ...tracedOf(o), doelZaak }, 'overdracht: bronzaak verwijst naar de doelzaak');
}

/**
 * Step `bron_afgesloten`: as the doelregistratie says. `afsluiten`: the resultaat of the mapping's afsluitResultaat
 * (when the zaak has none) and the final status of the source zaaktype (highest volgnummer); `openlaten`: nothing.
 * A zaak already closed stays as it is. Answers what happened, for the step's toelichting.
 */
export async function sluitBron(deps: Deps, o: OverdrachtOpdracht): Promise<string> {
  const { bron, registratie } = await routeOf(deps, o);
  if (registratie.bron === 'openlaten') return 'de bronzaak blijft open (doelregistratie: openlaten)';
  const zaak = await bron.client.get(o.zaak, A.Zaak);
  if (zaak.einddatum) return 'de bronzaak was al afgesloten';
  const zaaktype = await bron.client.get(zaak.zaaktype, A.Zaaktype);
  const koppeling = registratie.zaaktypen.find((k) => k.bron === zaaktype.identificatie);
  if (!zaak.resultaat) {
    const typen = await bron.client.all(zgwUrl(bron.catalogi, 'resultaattypen', { zaaktype: zaak.zaaktype }), A.Resultaattype);
    const type = typen.find((t) => t.omschrijving === koppeling?.afsluitResultaat);
    if (!type) throw new Error(`Het bronzaaktype heeft geen resultaattype "${koppeling?.afsluitResultaat}" om mee af te sluiten.`);
    await bron.client.post(zgwUrl(bron.zaken, 'resultaten'), {
      zaak: o.zaak,
      resultaattype: type.url,
      toelichting: `Overgedragen aan ${registratie.naam}`,
    });
  }
  const statustypen = await bron.client.all(zgwUrl(bron.catalogi, 'statustypen', { zaaktype: zaak.zaaktype }), A.Statustype);
  const eind = statustypen.sort((a, b) => b.volgnummer - a.volgnummer)[0];
  if (!eind) throw new Error('Het bronzaaktype heeft geen statustypen om mee af te sluiten.');
  await bron.client.post(zgwUrl(bron.zaken, 'statussen'), {
    zaak: o.zaak,
    statustype: eind.url,
    datumStatusGezet: new Date().toISOString(),
    statustoelichting: `Overgedragen aan ${registratie.naam} (overdracht ${o.overdracht})`,
  });
  deps.log.info(tracedOf(o), 'overdracht: bronzaak afgesloten');
  return `afgesloten met resultaat "${koppeling?.afsluitResultaat}" en status "${eind.omschrijving}"`;
}
