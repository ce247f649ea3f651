import type { OverdrachtOpdracht, Voortgang } from '@zgw/shared';
import { platform, tracedOf, type Deps } from '../common/context';
import { observe } from '../common/metrics';

/**
 * Reports progress to the API, which stores it in the overdracht (and notifies a change of status), and logs it at
 * INFO with the transfer's ZaakIdentificatie: a step begun or ended, the outcome, a refusal or failure with its reason.
 */
export async function meld(deps: Deps, o: OverdrachtOpdracht, v: Voortgang): Promise<void> {
  await platform(deps.config, o.tenant).client.post(`${o.url}/voortgang`, v);
  observe(o.overdracht, v);
  const fields = {
    ...tracedOf(o),
    ...(v.stap ? { stap: v.stap, fase: v.fase } : {}),
    ...(v.status ? { status: v.status } : {}),
    ...(v.toelichting ? { toelichting: v.toelichting } : {}),
  };
  if (v.weigering) deps.log.info({ ...fields, weigering: v.weigering.code, reden: v.weigering.reden }, `overdracht geweigerd: ${v.weigering.reden}`);
  else if (v.fout) deps.log.info({ ...fields, fout: v.fout }, `overdracht ${v.status}: ${v.fout}`);
  else if (v.status) deps.log.info(fields, `overdracht: status ${v.status}`);
  if (v.stap) deps.log.info(fields, `overdracht: stap ${v.stap} ${v.fase === 'einde' ? 'afgerond' : 'begonnen'}`);
}
