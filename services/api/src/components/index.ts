import type { ComponentDef } from '../common/platform/component';
import { autorisaties } from './autorisaties';
import { besluiten } from './besluiten';
import { catalogi } from './catalogi';
import { documenten } from './documenten';
import { notificaties } from './notificaties';
import { overdrachten } from './overdrachten';
import { referentielijsten } from './referentielijsten';
import { zaken } from './zaken';

/** Every ZGW component this service serves, in the order they are mounted. */
export const COMPONENTS: ComponentDef[] = [autorisaties, referentielijsten, catalogi, zaken, documenten, besluiten, notificaties, overdrachten];
