import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import { routeOf, traced, type Deps } from '../context';
import { vindDoelzaak } from './doelzaak';
import type { Plan } from './valideer';

/**
 * Step `gecompenseerd`: removes from the target what this overdracht made, newest first: the besluiten of the copy,
 * its document links and the documents copied for it, then the copy itself (with its rollen, statussen and other
 * parts). Found by the copy's kenmerk, so it also removes what a step made before a crash. Idempotent.
 */
export async function compenseer(deps: Deps, o: OverdrachtOpdracht, plan: Plan): Promise<string> {
  const { doel } = await routeOf(deps, o);
  const copy = await vindDoelzaak(doel, o, plan);
  if (!copy) return 'niets te verwijderen';
  const url = String(copy.url);
  const c = doel.client;
  const besluiten = await c.all(zgwUrl(doel.besluiten, 'besluiten', { zaak: url }));
  for (const b of besluiten.reverse()) await c.delete(String(b.url));
  const zios = await c.all(zgwUrl(doel.zaken, 'zaakinformatieobjecten', { zaak: url }));
  for (const zio of zios.reverse()) await c.delete(String(zio.url));
  for (const doc of new Set(zios.map((z) => String(z.informatieobject)))) await c.delete(doc);
  await c.delete(url);
  deps.log.info({ ...traced(o), doelZaak: url, besluiten: besluiten.length, documenten: zios.length }, 'overdracht: gecompenseerd, de kopie is verwijderd');
  return `doelzaak, ${besluiten.length} besluiten en ${new Set(zios.map((z) => String(z.informatieobject))).size} documenten verwijderd`;
}
