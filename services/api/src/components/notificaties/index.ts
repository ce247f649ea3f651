import { ensureNrcIndexes } from '@zgw/shared';
import type { ComponentDef } from '../../common/component';
import { registerAbonnementen } from './abonnementen';
import type { Notificaties } from './context';
import { ensurePlatformKanalen, registerKanalen } from './kanalen';
import { registerNotificaties } from './notificaties';

/**
 * Notificaties API 1.0.0 (NRC): kanalen, abonnementen and notifications from producers. The platform's own
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
  async register(api) {
    const n = { api } as Notificaties;
    n.kanalen = registerKanalen(n);
    n.abonnementen = registerAbonnementen(n);
    const outbox = registerNotificaties(n);

    await n.kanalen.store.ensureIndexes([{ key: { naam: 1 }, unique: true }]);
    await n.abonnementen.store.ensureIndexes();
    await outbox.ensureIndexes();
    // The notifier's collections, which the admin endpoints read and the deletion of an abonnement clears.
    await ensureNrcIndexes(api.deps.db);
    await ensurePlatformKanalen(n.kanalen);
  },
};
