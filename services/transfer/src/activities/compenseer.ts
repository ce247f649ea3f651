import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import { routeOf, tracedOf, type Deps } from '../context';
import { vindDoelzaken } from './doelzaak';
import { vindKopie } from './documenten';
import type { Plan } from './valideer';

/**
 * Step `gecompenseerd`: removes from the target what this overdracht made, newest first: the besluiten of the copy,
 * its document links, the documents copied for it (also one whose link was not made yet: found as in the copy
 * step), then the copy itself (with its rollen, statussen and other parts). Found by the copy's kenmerk, so it also
 * removes what a step made before a crash. Idempotent.
 */
export async function compenseer(deps: Deps, o: OverdrachtOpdracht, plan: Plan): Promise<string> {
  const { bron, doel } = await routeOf(deps, o);
  const c = doel.client;
  const copies = (await vindDoelzaken(doel, o, plan)).map((z) => String(z.url));
  const besluiten = (await Promise.all(copies.map((url) => c.all(zgwUrl(doel.besluiten, 'besluiten', { zaak: url }))))).flat();
  for (const b of besluiten.reverse()) await c.delete(String(b.url));
  const zios = (await Promise.all(copies.map((url) => c.all(zgwUrl(doel.zaken, 'zaakinformatieobjecten', { zaak: url }))))).flat();
  for (const zio of zios.reverse()) await c.delete(String(zio.url));
  const documenten = new Set(zios.map((z) => String(z.informatieobject)));
  const bronZios = await bron.client.all(zgwUrl(bron.zaken, 'zaakinformatieobjecten', { zaak: o.zaak }));
  for (const bronDoc of new Set(bronZios.map((z) => String(z.informatieobject)))) {
    const { kopie } = await vindKopie(bron, doel, plan, bronDoc);
    if (kopie) documenten.add(kopie);
  }
  for (const doc of documenten) await c.delete(doc);
  for (const url of copies) await c.delete(url);
  deps.log.info({ ...tracedOf(o), doelZaken: copies, besluiten: besluiten.length, documenten: documenten.size }, 'overdracht: gecompenseerd, wat de overdracht maakte is verwijderd');
  return copies.length ? `doelzaak, ${besluiten.length} besluiten en ${documenten.size} documenten verwijderd` : `geen doelzaak; ${documenten.size} documenten verwijderd`;
}
