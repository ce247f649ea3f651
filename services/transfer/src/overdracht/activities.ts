import type { OverdrachtOpdracht, Voortgang } from '@zgw/shared';
import type { Deps } from '../common/context';
import { antwoord } from './antwoord';
import { kopieerBesluiten } from './besluiten';
import { koppelBron, sluitBron } from './bron';
import { compenseer } from './compenseer';
import { kopieerDocumenten, type Documenten } from './documenten';
import { maakDoelzaak, sluitDoelzaak } from './doelzaak';
import { meld } from './meld';
import { kopieerOnderdelen } from './onderdelen';
import { valideer, type Plan } from './valideer';
import { verifieer } from './verifieer';

export type { Documenten, Plan };

/** The activities of the overdracht workflow: every side effect, each idempotent (see docs/transfers.md). */
export function createOverdrachtActivities(deps: Deps) {
  return {
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
  };
}

export type Activities = ReturnType<typeof createOverdrachtActivities>;
