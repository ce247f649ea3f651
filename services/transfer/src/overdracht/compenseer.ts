import { Context } from '@temporalio/activity';
import { ZgwCallError, zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { routeOf, tracedOf, type Deps, type Kant } from '../common/context';
import { vindDoelzaken } from './doelzaak';
import { vindKopie } from './documenten';
import type { Plan } from './valideer';

/** Passes before compensation gives up on a target that keeps refusing a removal (each pass a second apart). */
const PASSES = 10;

/**
 * Step `gecompenseerd`: removes from the target what this overdracht made, newest first: the besluiten of the copy,
 * its document links, the documents copied for it (also one whose link was not made yet: found as in the copy
 * step), then the copy itself (with its rollen, statussen and other parts). Found by the copy's kenmerk, so it also
 * removes what a step made before a crash. Idempotent.
 *
 * It repeats until a pass finds nothing left: an attempt of a copy step that the server already gave up on (its
 * heartbeat late under load) can still be running in a worker until its next heartbeat tells it so, and what it makes
 * meanwhile (a link to a document being removed, which makes the target refuse that removal) is removed by the next
 * pass.
 */
export async function compenseer(deps: Deps, o: OverdrachtOpdracht, plan: Plan): Promise<string> {
  const { bron, doel } = await routeOf(deps, o);
  const totaal = { zaken: 0, besluiten: 0, documenten: 0 };
  for (let pass = 1; ; pass++) {
    try {
      const removed = await removePass(bron, doel, o, plan);
      if (!removed.zaken && !removed.besluiten && !removed.documenten) break;
      totaal.zaken += removed.zaken;
      totaal.besluiten += removed.besluiten;
      totaal.documenten += removed.documenten;
    } catch (err) {
      if (!(err instanceof ZgwCallError) || err.technisch || pass >= PASSES) throw err;
      deps.log.warn({ ...tracedOf(o), pass, err }, 'overdracht: compensatie, het doel weigerde een verwijdering; opnieuw');
    }
    await Context.current().sleep(1000);
  }
  deps.log.info({ ...tracedOf(o), ...totaal }, 'overdracht: gecompenseerd, wat de overdracht maakte is verwijderd');
  return totaal.zaken
    ? `doelzaak, ${totaal.besluiten} besluiten en ${totaal.documenten} documenten verwijderd`
    : `geen doelzaak; ${totaal.documenten} documenten verwijderd`;
}

/** One pass of compensation: what it removed. */
async function removePass(
  bron: Kant,
  doel: Kant,
  o: OverdrachtOpdracht,
  plan: Plan,
): Promise<{ zaken: number; besluiten: number; documenten: number }> {
  const c = doel.client;
  const copies = (await vindDoelzaken(doel, o, plan)).map((z) => z.url);
  const besluiten = (await Promise.all(copies.map((url) => c.all(zgwUrl(doel.besluiten, 'besluiten', { zaak: url }), A.Besluit)))).flat();
  for (const b of besluiten.reverse()) await c.delete(b.url);
  const zios = (
    await Promise.all(copies.map((url) => c.all(zgwUrl(doel.zaken, 'zaakinformatieobjecten', { zaak: url }), A.Zaakinformatieobject)))
  ).flat();
  for (const zio of zios.reverse()) await c.delete(zio.url);
  const documenten = new Set(zios.map((z) => z.informatieobject));
  const bronZios = await bron.client.all(zgwUrl(bron.zaken, 'zaakinformatieobjecten', { zaak: o.zaak }), A.Zaakinformatieobject);
  for (const bronDoc of new Set(bronZios.map((z) => z.informatieobject))) {
    const { kopie } = await vindKopie(bron, doel, plan, bronDoc);
    if (kopie) documenten.add(kopie);
  }
  for (const doc of documenten) await c.delete(doc);
  for (const url of copies) await c.delete(url);
  return { zaken: copies.length, besluiten: besluiten.length, documenten: documenten.size };
}
