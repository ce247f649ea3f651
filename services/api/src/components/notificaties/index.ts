import { ensureNrcIndexes } from '@zgw/shared';
import type { ComponentDef } from '../../common/platform/component';
import { registerAbonnementen } from './abonnementen';
import type { Notificaties } from './context';
import { ensurePlatformKanalen, registerKanalen } from './kanalen';
import { registerNotificaties } from './notificaties';

/**
 * Notificaties API (NRC): kanalen, abonnementen and notifications from producers; 1.0.0, and 1.0.1 on request
 * (`Api-Version: 1.0.1`), whose file declares the same operations and resources (it corrects descriptions). The platform's own
 * kanalen exist from the start; every notification, the platform's own and those of producers, travels through
 * Kafka (one topic per kanaal) to services/notifier, which delivers it to the matching abonnementen.
 */
export const notificaties: ComponentDef = {
  name: 'notificaties',
  code: 'nrc',
  operationIds: 'read',
  wholePatchBodies: true,
  title: 'Notificaties API',
  version: '1.0.0',
  versions: ['1.0.0', '1.0.1'],
  async register(api) {
    const n = { api } as Notificaties;
    n.kanalen = registerKanalen(n);
    n.abonnementen = registerAbonnementen(n);
    const outbox = registerNotificaties(n);

    // (a name is unique on the platform; a tenant's list: the platform's kanalen and its own, in creation order)
    await n.kanalen.store.ensureIndexes([{ key: { naam: 1 }, unique: true }, { key: { _tenant: 1, _created: 1, _id: 1 } }]);
    await n.abonnementen.store.ensureIndexes();
    await outbox.ensureIndexes();
    // The notifier's collections, which the admin endpoints read and the deletion of an abonnement clears.
    await ensureNrcIndexes(api.deps.db);
    await ensurePlatformKanalen(n.kanalen);
  },
};
