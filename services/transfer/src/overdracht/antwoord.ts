import type { OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { platform, tracedOf, type Deps } from '../common/context';

/**
 * Step `antwoord_verstuurd`: the overdracht as it ended, POSTed as JSON to its antwoordUrl (retried like every
 * step; a receiver that keeps failing does not change the outcome). The notification on kanaal `overdrachten` goes
 * out through the outbox whatever happens here.
 */
export async function antwoord(deps: Deps, o: OverdrachtOpdracht): Promise<string> {
  const overdracht = await platform(deps.config, o.tenant).client.get(o.url, A.Overdracht);
  if (!o.antwoordUrl) {
    deps.log.info(
      { ...tracedOf(o), status: overdracht.status },
      'overdracht: antwoord verstuurd (notificatie op kanaal overdrachten; geen antwoordUrl)',
    );
    return 'notificatie op kanaal overdrachten';
  }
  const res = await fetch(o.antwoordUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(overdracht),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`antwoordUrl gaf status ${res.status}`);
  deps.log.info({ ...tracedOf(o), status: overdracht.status, antwoordStatus: res.status }, 'overdracht: antwoord verstuurd');
  return `antwoord naar ${new URL(o.antwoordUrl).origin} (status ${res.status}) en notificatie op kanaal overdrachten`;
}
