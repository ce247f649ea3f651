import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { routeOf, tracedOf, type Deps } from '../common/context';
import { leesDossier, pick, vingerafdruk } from './bronzaak';
import type { Documenten } from './documenten';
import type { Plan } from './valideer';

/** What makes a copied besluit the same one (the target numbers its besluiten itself). */
const INHOUD = ['besluittype', 'datum', 'ingangsdatum', 'toelichting', 'bestuursorgaan'] as const;
const BESLUIT = [
  'datum',
  'toelichting',
  'bestuursorgaan',
  'ingangsdatum',
  'vervaldatum',
  'vervalreden',
  'publicatiedatum',
  'verzenddatum',
  'uiterlijkeReactiedatum',
] as const;

/**
 * Step `besluiten_gekopieerd`: the zaak's besluiten in the target besluittypen and organisation (numbered by the
 * target), each with the documents it is laid down in (the copies). A besluit is found among the copy's besluiten
 * by its content, a link by besluit and informatieobject, before anything is made.
 */
export async function kopieerBesluiten(deps: Deps, o: OverdrachtOpdracht, plan: Plan, doelZaak: string, documenten: Documenten): Promise<number> {
  const { bron, doel } = await routeOf(deps, o);
  const { besluiten } = await leesDossier(bron, o.zaak, ['besluiten']);
  const bestaand = await doel.client.all(zgwUrl(doel.besluiten, 'besluiten', { zaak: doelZaak }), A.Besluit);
  for (const { besluit, bios } of besluiten) {
    const besluittype = plan.typen[besluit.besluittype];
    // Each copy stands for one source besluit (two alike are two copies).
    const i = bestaand.findIndex((b) => vingerafdruk(b, INHOUD) === vingerafdruk({ ...besluit, besluittype }, INHOUD));
    const copy =
      i >= 0
        ? bestaand.splice(i, 1)[0]!
        : await doel.client.post(
            zgwUrl(doel.besluiten, 'besluiten'),
            { ...pick(besluit, BESLUIT), verantwoordelijkeOrganisatie: plan.rsin, besluittype, zaak: doelZaak },
            A.Besluit,
          );
    for (const bio of bios) {
      const informatieobject = documenten[bio.informatieobject];
      if (!informatieobject) continue; // a document of the besluit that is not the zaak's: not part of this transfer
      const links = await doel.client.all(
        zgwUrl(doel.besluiten, 'besluitinformatieobjecten', { besluit: copy.url, informatieobject }),
        A.Besluitinformatieobject,
      );
      if (!links.length) await doel.client.post(zgwUrl(doel.besluiten, 'besluitinformatieobjecten'), { besluit: copy.url, informatieobject });
    }
  }
  deps.log.info({ ...tracedOf(o), besluiten: besluiten.length }, 'overdracht: besluiten gekopieerd');
  return besluiten.length;
}
