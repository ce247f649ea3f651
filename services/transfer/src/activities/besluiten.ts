import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import { routeOf, traced, type Deps } from '../context';
import { leesDossier, pick } from './bronzaak';
import type { Documenten } from './documenten';
import type { Plan } from './valideer';

const BESLUIT = ['identificatie', 'datum', 'toelichting', 'bestuursorgaan', 'ingangsdatum', 'vervaldatum', 'vervalreden', 'publicatiedatum', 'verzenddatum', 'uiterlijkeReactiedatum'] as const;

/**
 * Step `besluiten_gekopieerd`: the zaak's besluiten in the target besluittypen and organisation, under their own
 * identificatie, each with the documents it is laid down in (the copies). Found by identificatie and
 * verantwoordelijkeOrganisatie, a link by besluit and informatieobject, before anything is made.
 */
export async function kopieerBesluiten(deps: Deps, o: OverdrachtOpdracht, plan: Plan, doelZaak: string, documenten: Documenten): Promise<number> {
  const { bron, doel } = await routeOf(deps, o);
  const { besluiten } = await leesDossier(bron, o.zaak);
  for (const { besluit, bios } of besluiten) {
    const [found] = await doel.client.all(zgwUrl(doel.besluiten, 'besluiten', { identificatie: String(besluit.identificatie), verantwoordelijkeOrganisatie: plan.rsin }));
    const copy = found ?? (await doel.client.post(zgwUrl(doel.besluiten, 'besluiten'), {
      ...pick(besluit, BESLUIT),
      verantwoordelijkeOrganisatie: plan.rsin,
      besluittype: plan.typen[String(besluit.besluittype)],
      zaak: doelZaak,
    }));
    for (const bio of bios) {
      const informatieobject = documenten[String(bio.informatieobject)];
      if (!informatieobject) continue; // a document of the besluit that is not the zaak's: not part of this transfer
      const links = await doel.client.all(zgwUrl(doel.besluiten, 'besluitinformatieobjecten', { besluit: String(copy.url), informatieobject }));
      if (!links.length) await doel.client.post(zgwUrl(doel.besluiten, 'besluitinformatieobjecten'), { besluit: copy.url, informatieobject });
    }
  }
  deps.log.info({ ...traced(o), besluiten: besluiten.length }, 'overdracht: besluiten gekopieerd');
  return besluiten.length;
}
