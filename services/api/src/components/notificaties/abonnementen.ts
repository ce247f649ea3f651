import { randomUUID } from 'node:crypto';
import { NOTIFICATION_ID_HEADER, NRC_ABONNEMENTEN, NRC_DELIVERIES, NRC_STATUS, openSecret, sealSecret } from '@zgw/shared';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import { Resource } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import { CONSUMEREN, READ, type Notificaties } from './context';
import { visibleKanalen } from './kanalen';
import { Abonnement, AbonnementInput, AbonnementPatch, type AbonnementDoc, type AbonnementIn } from './schemas';

/**
 * ABONNEMENT: a callback URL with the Authorization header to send, and the kanalen (with kenmerk filters) it
 * receives. Every kanaal must exist and filter only on its kenmerken; the callback must accept a test notification
 * (NRC_CALLBACK_CHECK). Delivery is the notifier's (services/notifier); its state per abonnement is kept apart
 * (nrc_abonnement_status), so a change here never resets a lock.
 */
export function registerAbonnementen(n: Notificaties): Resource<AbonnementDoc> {
  const { deps } = n.api;
  return new Resource<AbonnementDoc, AbonnementIn>(n.api, {
    collection: 'abonnement',
    storeAs: NRC_ABONNEMENTEN,
    resource: 'abonnement',
    schema: Abonnement,
    input: AbonnementInput,
    patchInput: AbonnementPatch,
    plainList: true,
    scopes: { read: READ, create: [CONSUMEREN], update: [CONSUMEREN], destroy: [CONSUMEREN] },
    prepare: async (data, ctx, current) => {
      // the Authorization header is stored sealed: a PATCH without it carries the stored one, read in the clear here
      const storedAuth = current && openSecret(deps.pii, 'abonnement', current.auth);
      const input = current && storedAuth !== undefined && data.auth === current.auth ? { ...data, auth: storedAuth } : data;
      const errors = await checkKanalen(n, input.kanalen, ctx.caller.tenant);
      if (errors.length) throw ZgwError.validation(errors);
      const changed = !current || current.callbackUrl !== input.callbackUrl || storedAuth !== input.auth;
      if (changed && deps.config.NRC_CALLBACK_CHECK === 'on') await checkCallback(input.callbackUrl, input.auth, deps.config.NRC_DELIVERY_TIMEOUT_MS);
      const auth = sealSecret(deps.pii, 'abonnement', input.auth);
      return { callbackUrl: input.callbackUrl, auth, kanalen: input.kanalen.map((k) => ({ naam: k.naam, filters: k.filters ?? {} })) };
    },
    // The Authorization header is stored sealed (shared/src/secrets.ts) and shown to its readers in the clear.
    render: (doc) => ({ auth: openSecret(deps.pii, 'abonnement', doc.auth) }),
    // Its pending deliveries go with it; the notifier drops its queue at its next refresh.
    afterDestroy: async (current: Stored<AbonnementDoc>) => {
      await deps.db.collection(NRC_DELIVERIES).deleteMany({ abonnement: current._id, state: 'pending' });
      await deps.db.collection<{ _id: string }>(NRC_STATUS).deleteOne({ _id: current._id });
    },
  });
}

/** Each kanaal of an abonnement exists for its tenant, and its filters name only that kanaal's kenmerken. */
async function checkKanalen(n: Notificaties, groups: AbonnementDoc['kanalen'], tenant: string): Promise<InvalidParam[]> {
  const errors: InvalidParam[] = [];
  const names = [...new Set(groups.map((g) => g.naam))];
  const found = new Map((await n.kanalen.store.find({ naam: { $in: names }, ...visibleKanalen(tenant) })).map((k) => [k.naam, k]));
  groups.forEach((g, i) => {
    const kanaal = found.get(g.naam);
    if (!kanaal) {
      errors.push({ name: `kanalen.${i}.naam`, code: 'does_not_exist', reason: `Kanaal met naam "${g.naam}" bestaat niet.` });
      return;
    }
    const unknown = Object.keys(g.filters ?? {}).filter((k) => !kanaal.filters.includes(k));
    if (unknown.length) {
      errors.push({
        name: `kanalen.${i}.filters`,
        code: 'kenmerken-inconsistent',
        reason: `Kanaal "${g.naam}" kent de kenmerken ${unknown.join(', ')} niet; wel: ${kanaal.filters.join(', ') || '(geen)'}.`,
      });
    }
  });
  return errors;
}

/**
 * The callback check of the standard's reference implementation: a test notification (kanaal `test`) POSTed with the
 * abonnement's Authorization header must be accepted (any 2xx; the reference asks 204, the answer receivers are
 * specified to give). Redirects are not followed: deliveries do not follow them either.
 */
export async function checkCallback(url: string, auth: string, timeoutMs: number): Promise<void> {
  const message = {
    kanaal: 'test',
    hoofdObject: 'http://some.hoofdobject.nl/',
    resource: 'some_resource',
    resourceUrl: 'http://some.resource.nl/',
    actie: 'create',
    aanmaakdatum: new Date().toISOString(),
    kenmerken: {},
  };
  let problem: string | undefined;
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: auth, [NOTIFICATION_ID_HEADER]: randomUUID() },
      body: JSON.stringify(message),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    if (res.status < 200 || res.status > 299) problem = `antwoordde met HTTP ${res.status}`;
  } catch (err) {
    problem = (err as Error).name === 'TimeoutError' ? `antwoordde niet binnen ${timeoutMs} ms` : 'is niet bereikbaar';
  }
  if (problem) {
    throw ZgwError.field(
      'callbackUrl',
      'invalid-callback-url',
      `De opgegeven callback URL kan geen notificaties ontvangen: een testnotificatie ${problem}.`,
    );
  }
}
