import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { OverdrachtOpdracht, StapNaam, Voortgang, Weigercode } from '@zgw/shared';
import type { Activities, Plan } from './activities';
import { message } from '../common/failure-message';

// Type-only imports above: the workflow bundle holds no code of the activities. These mirror context.ts.
const WEIGERING = 'Weigering';
const PERMANENT = 'Permanent';

/**
 * One transfer (workflow id `overdracht-<uuid>`): validate, copy into the target (zaak, parts, documents,
 * besluiten, the final status last), verify, link the source, close it as configured, reply. Refusals end it
 * `geweigerd` before anything is made; a permanent error, or a technical one beyond the retry limit, removes what
 * it made (compensation) and ends it `mislukt`; an operator's cancel does the same and ends it `geannuleerd`.
 */
export async function overdracht(o: OverdrachtOpdracht): Promise<string> {
  const retry: ActivityOptions['retry'] = {
    initialInterval: `${o.wachttijdSeconden}s`,
    backoffCoefficient: 2,
    maximumInterval: `${o.maxWachttijdSeconden}s`,
    maximumAttempts: o.pogingen,
    nonRetryableErrorTypes: [WEIGERING, PERMANENT],
  };
  const a = proxyActivities<Activities>({ startToCloseTimeout: '30 minutes', heartbeatTimeout: `${o.hartslagSeconden}s`, retry });
  // Compensation waits for the target however long it is away: what a transfer made must not stay behind.
  const { compenseer } = proxyActivities<Activities>({
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: `${o.hartslagSeconden}s`,
    retry: { initialInterval: `${o.wachttijdSeconden}s`, backoffCoefficient: 2, maximumInterval: `${o.maxWachttijdSeconden}s` },
  });
  // Progress reports go to this platform's own API: short, so run as local activities (no trip through a task queue),
  // retried until the API answers (a report never fails a transfer).
  const { meld } = proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: { initialInterval: '1s', maximumInterval: '30s' } });

  const stap = async <T>(naam: StapNaam, run: () => Promise<T>, toelichting: (r: T) => string = () => ''): Promise<T> => {
    await meld(o, { stap: naam, fase: 'start' });
    const r = await run();
    await meld(o, { stap: naam, fase: 'einde', toelichting: toelichting(r) });
    return r;
  };
  // The outcome and the start of the reply in one report: whoever sees the final status also sees the reply under way.
  const eind = async (v: Voortgang) => {
    await meld(o, { ...v, stap: 'antwoord_verstuurd', fase: 'start' });
    const toelichting = await a.antwoord(o).catch((err: unknown) => `antwoord niet afgeleverd: ${message(err)}`);
    await meld(o, { stap: 'antwoord_verstuurd', fase: 'einde', toelichting });
    return v.status!;
  };

  let plan: Plan | undefined;
  // The steps after validation find the doelregistratie by its id: an input that names only its naam (a workflow
  // started before ids were given) gets the id validation found (only the activities' input changes, not a command).
  let opdracht = o;
  try {
    await meld(o, { status: 'bezig' });
    plan = await stap(
      'gevalideerd',
      () => a.valideer(o),
      (p) =>
        Object.entries(p.aantallen)
          .map(([k, v]) => `${v} ${k}`)
          .join(', '),
    );
    const p = plan;
    if (!o.doelregistratieId && p.doelregistratieId) opdracht = { ...o, doelregistratieId: p.doelregistratieId };
    const doelZaak = await stap(
      'doelzaak_aangemaakt',
      () => a.maakDoelzaak(opdracht, p),
      (url) => url,
    );
    await meld(o, { doelZaak });
    const { rollen } = await stap(
      'onderdelen_gekopieerd',
      () => a.kopieerOnderdelen(opdracht, p, doelZaak),
      (r) => `${r.gemaakt} gemaakt`,
    );
    const documenten = await stap(
      'documenten_gekopieerd',
      () => a.kopieerDocumenten(opdracht, p, doelZaak),
      (d) => `${Object.keys(d).length} documenten`,
    );
    await stap(
      'besluiten_gekopieerd',
      async () => {
        const n = await a.kopieerBesluiten(opdracht, p, doelZaak, documenten);
        const gesloten = await a.sluitDoelzaak(opdracht, p, doelZaak, rollen);
        return `${n} besluiten${gesloten ? '; eindstatus gezet' : ''}`;
      },
      (t) => t,
    );
    await stap(
      'geverifieerd',
      () => a.verifieer(opdracht, doelZaak, documenten),
      (t) => t,
    );
    await stap('bron_gekoppeld', () => a.koppelBron(opdracht, doelZaak));
    await stap(
      'bron_afgesloten',
      () => a.sluitBron(opdracht),
      (t) => t,
    );
    return await eind({ status: 'afgerond' });
  } catch (err) {
    const weigering = refusal(err);
    if (weigering) return CancellationScope.nonCancellable(() => eind({ status: 'geweigerd', weigering }));
    const geannuleerd = isCancellation(err);
    return CancellationScope.nonCancellable(async () => {
      // A compensation the target refuses (a 4xx) ends the transfer too, saying what was left: never stuck `bezig`.
      let achtergelaten = '';
      if (plan) {
        const p = plan;
        try {
          // An attempt of a copy step that the server gave up on (its heartbeat late) may still be running in a
          // worker; its next heartbeat, within one heartbeat timeout, stops it. Compensation starts after that.
          if (patched('compensatie-na-hartslag')) await sleep(`${o.hartslagSeconden}s`);
          await stap(
            'gecompenseerd',
            () => compenseer(opdracht, p),
            (t) => t,
          );
        } catch (e) {
          achtergelaten = message(e);
          await meld(o, { stap: 'gecompenseerd', fase: 'einde', toelichting: `niet alles verwijderd: ${achtergelaten}` });
        }
      }
      const oorzaak = geannuleerd ? 'geannuleerd door een beheerder' : message(err);
      const fout = achtergelaten ? `${oorzaak}; compensatie niet voltooid: ${achtergelaten}` : oorzaak;
      return eind({ status: geannuleerd ? 'geannuleerd' : 'mislukt', fout: fout.slice(0, 2000) });
    });
  }
}

/** The refusal an activity raised (type Weigering, its code in the details), if that is what ended the transfer. */
function refusal(err: unknown): { code: Weigercode; reden: string } | undefined {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure && cause.type === WEIGERING) return { code: cause.details?.[0] as Weigercode, reden: cause.message };
  return undefined;
}
