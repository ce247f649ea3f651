import type { ComponentApi } from '../../common/platform/component';
import type { Resource } from '../../common/platform/resource';
import type { AbonnementDoc, KanaalDoc } from './schemas';

export const PUBLICEREN = 'notificaties.publiceren';
export const CONSUMEREN = 'notificaties.consumeren';
/** Reading kanalen and abonnementen: either scope. */
export const READ = [PUBLICEREN, CONSUMEREN];

/** The Notificaties resources, so the rules of one can read the other. Filled in by `register`. */
export interface Notificaties {
  api: ComponentApi;
  kanalen: Resource<KanaalDoc>;
  abonnementen: Resource<AbonnementDoc>;
}
