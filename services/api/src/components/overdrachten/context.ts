import type { FastifyRequest } from 'fastify';
import type { Caller } from '../../common/auth/auth';
import type { ComponentApi } from '../../common/platform/component';
import type { Answer, Resource } from '../../common/platform/resource';
import type { OverdrachtDoc } from './schemas';
import type { OverdrachtClient } from './overdracht-client';

/** Scopes of the Zaken component (Autorisaties API, component `zrc`) that govern transfers. */
export const OVERDRAGEN = 'zaken.overdragen';
export const LEZEN = 'zaken.lezen';

/** The overdrachten component as its parts and the admin endpoints use it. Filled in by `register`. */
export interface Overdrachten {
  api: ComponentApi;
  workflows: OverdrachtClient;
  overdrachten: Resource<OverdrachtDoc>;
  /** Stores a new overdracht, starts its workflow and logs its receipt; answers the overdracht. */
  begin(overdrachten: Resource<OverdrachtDoc>, doc: OverdrachtDoc, caller: Caller, req: FastifyRequest): Promise<Answer<OverdrachtDoc>>;
  /** An operator's cancel (compensation follows) and retry of a `mislukt` transfer; false when not possible now. */
  annuleer(uuid: string): Promise<boolean>;
  opnieuw(uuid: string): Promise<boolean>;
}

declare module '../../common/platform/deps' {
  interface Components {
    /** Read by the admin endpoints of transfers (admin/overdrachten.ts). */
    overdrachten: Overdrachten;
  }
}
