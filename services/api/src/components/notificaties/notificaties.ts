import { randomUUID } from 'node:crypto';
import type { Collection } from 'mongodb';
import { kanaalTopic } from '@zgw/shared';
import { ZgwError } from '../../common/http/errors';
import { OUTBOX_POINTERS, newEvent, type OutboxPointer, type Store } from '../../common/storage/store';
import { PUBLICEREN, type Notificaties } from './context';
import { visibleKanalen } from './kanalen';
import { Message, type MessageBody } from './schemas';

/** The collection of notifications from producers that wait for the relay (each a tombstone holding only its event). */
export const NRC_BERICHTEN = 'nrc_berichten';

/**
 * `POST /notificaties`: a producer publishes a notification on a kanaal that exists. It takes the path of the
 * platform's own events: stored in MongoDB with its event (so a 201 means it will reach Kafka, whatever happens
 * next), published by the outbox relay on the kanaal's topic with a new event id, which is the notification id
 * the notifier sends to every abonnement. Answers 201 with the message, as the reference implementation and the
 * VNG tests do (the 1.0.0 document says 200).
 */
export function registerNotificaties(n: Notificaties): Store<Record<string, unknown>> {
  const outbox = n.api.store<Record<string, unknown>>(NRC_BERICHTEN);
  n.api.route({
    method: 'POST',
    path: '/notificaties',
    operationId: 'notificaties_create',
    summary: 'Publiceer een notificatie.',
    scopes: [PUBLICEREN],
    body: Message,
    response: Message,
    status: 201,
    handler: async ({ body, caller }) => {
      const message = body as MessageBody;
      // (another organisation's kanaal does not exist for the caller)
      if (!(await n.kanalen.store.findOne({ naam: message.kanaal, ...visibleKanalen(caller.tenant) }))) {
        throw ZgwError.field('kanaal', 'does_not_exist', `Kanaal met naam "${message.kanaal}" bestaat niet.`);
      }
      await enqueue(outbox, n.api.deps.db.collection<OutboxPointer>(OUTBOX_POINTERS), message);
      n.api.deps.relay?.kick();
      return message;
    },
  });
  return outbox;
}

/** Stores the notification as an event without a resource: a tombstone that holds only its outbox until the relay published it. */
async function enqueue(outbox: Store<Record<string, unknown>>, pointers: Collection<OutboxPointer>, message: MessageBody): Promise<void> {
  const uuid = randomUUID();
  const event = newEvent(kanaalTopic(message.kanaal), message.hoofdObject, message);
  await outbox.raw.insertOne({ _id: uuid, _created: new Date(), _tombstone: true, _pending: true, _outbox: [event] });
  // The pointer brings the relay to it at once (a process stopping before this line leaves it to the relay's scan).
  await pointers.updateOne(
    { _id: `${outbox.name}/${uuid}` },
    { $set: { collection: outbox.name, doc: uuid, nonce: randomUUID(), at: new Date() } },
    { upsert: true },
  );
}
