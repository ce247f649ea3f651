import { continueAsNew, defineQuery, defineSignal, isCancellation, CancellationScope, proxyActivities, setHandler } from '@temporalio/workflow';
// (from its own file: the package's index would bring Node's modules into the workflow sandbox)
import {
  VERNIETIGING_STOP_SIGNAL,
  VERNIETIGING_VOORTGANG_QUERY,
  type VernietigingOpdracht,
  type VernietigingVoortgang,
} from '@zgw/shared/dist/vernietiging';
import type { VernietigingActivities } from './activities';
import { message } from '../common/failure-message';

// Type-only imports of the activities: the workflow bundle holds none of their code.

export const stop = defineSignal(VERNIETIGING_STOP_SIGNAL);
export const voortgang = defineQuery<VernietigingVoortgang>(VERNIETIGING_VOORTGANG_QUERY);

/** Zaken carried out per workflow run before it continues as new (its history stays small). */
const ZAKEN_PER_RUN = 250;

/**
 * One destruction list carried out (workflow `vernietigen`, id `vernietiging-<lijst>`): its root zaken (each with its
 * deelzaken on the list) `gelijktijdig` at a time, each checked again and destroyed or skipped by one activity that is
 * safe to do again; then what concurrent zaken left (documents both used) and the trail once more; then the verklaring
 * van vernietiging; the list's status last. Signal `stop` ends it after the zaken under way (`gestopt`); query
 * `voortgang` tells how far it is. A failure ends the list `mislukt` with the reason (carried out again, it goes on
 * where it was).
 */
export async function vernietigen(
  o: VernietigingOpdracht,
  rest: string[] | null = null,
  eerder?: VernietigingVoortgang,
): Promise<VernietigingVoortgang> {
  const a = proxyActivities<VernietigingActivities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: `${o.hartslagSeconden}s`,
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20, nonRetryableErrorTypes: ['Permanent'] },
  });
  const stand: VernietigingVoortgang = eerder ?? { totaal: 0, gedaan: 0, vernietigd: 0, overgeslagen: 0, gestopt: false };
  setHandler(stop, () => void (stand.gestopt = true));
  setHandler(voortgang, () => stand);
  let todo: string[] = [];
  try {
    todo = rest ?? (await a.vernietigingWortels(o));
    if (!rest) stand.totaal = todo.length;
    let begonnen = 0;
    const baan = async () => {
      while (todo.length && !stand.gestopt && begonnen < ZAKEN_PER_RUN) {
        const zaak = todo.shift()!;
        begonnen++;
        const u = await a.vernietigZaak(o, zaak);
        stand.gedaan++;
        stand.vernietigd += u.vernietigd;
        stand.overgeslagen += u.overgeslagen;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, o.gelijktijdig) }, baan));
    if (stand.gestopt) {
      await a.zetLijstStatus(o, 'gestopt');
      return stand;
    }
    if (!todo.length) {
      await a.vernietigingNaloop(o);
      await a.maakVerklaring(o);
      await a.zetLijstStatus(o, 'uitgevoerd');
      return stand;
    }
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() => a.zetLijstStatus(o, 'gestopt'));
      throw err;
    }
    await a.zetLijstStatus(o, 'mislukt', message(err));
    return stand;
  }
  // (outside the try: continuing as new is thrown, and is no failure)
  return await continueAsNew<typeof vernietigen>(o, todo, stand);
}
