import { ApplicationFailure, Context } from '@temporalio/activity';
import { ZgwCallError, type OverdrachtOpdracht, type Voortgang } from '@zgw/shared';
import { PERMANENT, type Deps } from './context';
import { antwoord } from './activities/antwoord';
import { kopieerBesluiten } from './activities/besluiten';
import { koppelBron, sluitBron } from './activities/bron';
import { compenseer } from './activities/compenseer';
import { kopieerDocumenten, type Documenten } from './activities/documenten';
import { maakDoelzaak, sluitDoelzaak } from './activities/doelzaak';
import { meld } from './activities/meld';
import { kopieerOnderdelen } from './activities/onderdelen';
import { valideer, type Plan } from './activities/valideer';
import { verifieer } from './activities/verifieer';
import { createImportActivities } from './importen/activities';
import { createVernietigingActivities } from './vernietiging/activities';

export type { Documenten, Plan };

/** The activities of the overdracht workflow: every side effect, each idempotent (see docs/transfers.md). */
export function createActivities(deps: Deps) {
  return alive(
    permanent4xx({
      meld: (o: OverdrachtOpdracht, v: Voortgang) => meld(deps, o, v),
      valideer: (o: OverdrachtOpdracht) => valideer(deps, o),
      maakDoelzaak: (o: OverdrachtOpdracht, plan: Plan) => maakDoelzaak(deps, o, plan),
      kopieerOnderdelen: (o: OverdrachtOpdracht, plan: Plan, doelZaak: string) => kopieerOnderdelen(deps, o, plan, doelZaak),
      kopieerDocumenten: (o: OverdrachtOpdracht, plan: Plan, doelZaak: string) => kopieerDocumenten(deps, o, plan, doelZaak),
      kopieerBesluiten: (o: OverdrachtOpdracht, plan: Plan, doelZaak: string, documenten: Documenten) =>
        kopieerBesluiten(deps, o, plan, doelZaak, documenten),
      sluitDoelzaak: (o: OverdrachtOpdracht, plan: Plan, doelZaak: string, rollen: Record<string, string>) =>
        sluitDoelzaak(deps, o, plan, doelZaak, rollen),
      verifieer: (o: OverdrachtOpdracht, doelZaak: string, documenten: Documenten) => verifieer(deps, o, doelZaak, documenten),
      koppelBron: (o: OverdrachtOpdracht, doelZaak: string) => koppelBron(deps, o, doelZaak),
      sluitBron: (o: OverdrachtOpdracht) => sluitBron(deps, o),
      antwoord: (o: OverdrachtOpdracht) => antwoord(deps, o),
      compenseer: (o: OverdrachtOpdracht, plan: Plan) => compenseer(deps, o, plan),
      ...createImportActivities(deps),
      ...createVernietigingActivities(deps),
    }),
  );
}

/**
 * Every activity heartbeats while it runs (three times per heartbeat timeout), so a long step (a large document)
 * lives as long as its worker does, and a worker that dies is noticed within the timeout and the step retried
 * elsewhere. Calls that hang end by their own timeouts.
 */
function alive<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  return wrap(activities, async (fn, args) => {
    const ctx = Context.current();
    const every = ctx.info.heartbeatTimeoutMs ? Math.max(200, ctx.info.heartbeatTimeoutMs / 3) : 0;
    const timer = every ? setInterval(() => ctx.heartbeat(), every) : undefined;
    try {
      return await fn(...args);
    } finally {
      clearInterval(timer);
    }
  });
}

/**
 * A 4xx of a ZGW API is an answer, not an outage: the same request gets it again. It ends the step at once (type
 * Permanent: compensated, `mislukt` with the target's reason) instead of being retried up to the limit.
 */
function permanent4xx<T extends Record<string, (...args: never[]) => Promise<unknown>>>(activities: T): T {
  return wrap(activities, async (fn, args) => {
    try {
      return await fn(...args);
    } catch (err) {
      if (err instanceof ZgwCallError && !err.technisch)
        throw ApplicationFailure.create({ type: PERMANENT, message: err.message, nonRetryable: true });
      throw err;
    }
  });
}

type Fn = (...args: never[]) => Promise<unknown>;

/** Every activity of `activities` run through `around`. */
function wrap<T extends Record<string, Fn>>(activities: T, around: (fn: Fn, args: never[]) => Promise<unknown>): T {
  return Object.fromEntries(Object.entries(activities).map(([name, fn]) => [name, (...args: never[]) => around(fn, args)])) as T;
}

export type Activities = ReturnType<typeof createActivities>;
