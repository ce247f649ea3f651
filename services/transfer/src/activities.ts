import type { Deps } from './common/context';
import { workerActivities } from './common/activities';
import { createImportActivities } from './importen/activities';
import { createOverdrachtActivities } from './overdracht/activities';
import { createVernietigingActivities } from './vernietiging/activities';

/** The activities the worker registers: every feature's, each run as every activity is (see workerActivities). */
export function createActivities(deps: Deps) {
  return workerActivities({ ...createImportActivities(deps), ...createOverdrachtActivities(deps), ...createVernietigingActivities(deps) });
}
