import { randomUUID } from 'node:crypto';
import { traced, workflowIdOf, inTenant } from '@zgw/shared';
import type { ComponentDef } from '../../common/platform/component';
import type { Resource } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import type { Overdrachten } from './context';
import { OVERDRACHT_FILTERS, opdrachtOf, ownFields, registerOverdrachten } from './overdrachten';
import type { OverdrachtDoc } from './schemas';
import { registerVerzoeken } from './verzoeken';
import { OverdrachtClient } from './overdracht-client';

/**
 * ZSDMS: overdrachten of zaken to another registration, each run by the transfer worker as Temporal workflow
 * `overdracht-<uuid>`. The API owns the resource: it checks who may ask, stores the request, starts the workflow,
 * and stores the progress the worker reports.
 */
export const overdrachten: ComponentDef = {
  name: 'overdrachten',
  code: 'zrc',
  operationIds: 'read',
  title: 'Overdrachten API',
  version: '1.0.0',
  async register(api) {
    const workflows = new OverdrachtClient(api.deps.config, api.deps.log, api.deps.temporal);
    const o = { api, workflows } as Overdrachten;
    o.begin = (resource, doc, caller, req) => begin(o, resource, doc, caller, req);
    o.overdrachten = registerOverdrachten(o);
    registerVerzoeken(o);
    o.annuleer = (uuid) => annuleer(o, uuid);
    o.opnieuw = (uuid) => opnieuw(o, uuid);
    api.deps.components.overdrachten = o;
    await ensureIndexes(o.overdrachten);
    sweep(o);
  },
};

async function begin(
  o: Overdrachten,
  resource: Resource<OverdrachtDoc>,
  doc: OverdrachtDoc,
  caller: Parameters<Overdrachten['begin']>[2],
  req: Parameters<Overdrachten['begin']>[3],
) {
  const uuid = randomUUID();
  const ctx = resource.ctx(caller, uuid, req);
  const stored = await resource.insert({ ...doc, workflowId: workflowIdOf(uuid) }, ctx);
  o.api.deps.log.info(
    { ...traced(doc.zaakIdentificatie, uuid), doelregistratie: doc.doelregistratie, richting: doc.richting, clientId: caller.clientId },
    'overdracht ontvangen',
  );
  // Answered at once: the workflow starts beside the answer (or, with Temporal away, by the sweep).
  void start(o, stored).catch((err: Error) =>
    o.api.deps.log.error({ ...traced(doc.zaakIdentificatie, uuid), err }, 'overdracht: starting its workflow failed'),
  );
  return resource.toApi(stored, undefined, req);
}

/** Starts the workflow of a stored overdracht; marks it started (`_gestart`, false until then) once Temporal has it. */
async function start(o: Overdrachten, stored: Stored<OverdrachtDoc>): Promise<boolean> {
  const ok = await o.workflows.start(opdrachtOf(o, stored, o.overdrachten.url(stored._id)));
  if (ok) await o.overdrachten.store.raw.updateOne({ _id: stored._id }, { $set: { _gestart: true } });
  return ok;
}

async function annuleer(o: Overdrachten, uuid: string): Promise<boolean> {
  const doc = await o.overdrachten.store.get(uuid);
  if (!doc || !['ontvangen', 'bezig'].includes(doc.status)) return false;
  const cancelled = await o.workflows.cancel(uuid);
  o.api.deps.log.info({ ...traced(doc.zaakIdentificatie, uuid), cancelled }, 'overdracht: annuleren gevraagd door een beheerder');
  return cancelled;
}

/** A `mislukt` transfer runs again from the start (every step finds what an earlier run made). */
async function opnieuw(o: Overdrachten, uuid: string): Promise<boolean> {
  const current = await o.overdrachten.store.get(uuid);
  if (!current || current.status !== 'mislukt') return false;
  const stappen = current.stappen.filter((s) => s.stap === 'ontvangen');
  const next: OverdrachtDoc = { ...ownFields(current), status: 'ontvangen', stappen, weigering: null, fout: '', _gestart: false };
  const stored = await o.overdrachten.store.replace(current, next, o.overdrachten.events(next, uuid, 'partial_update'));
  if (!stored) return false;
  o.api.deps.log.info(traced(current.zaakIdentificatie, uuid), 'overdracht: opnieuw gestart door een beheerder');
  await start(o, stored);
  return true;
}

/**
 * Every 15 seconds, starts the workflows of overdrachten received while Temporal could not be reached (10 s grace):
 * tenant by tenant, each within its own.
 */
function sweep(o: Overdrachten): void {
  const run = async () => {
    for (const tenant of await o.api.deps.tenants.list()) {
      const started = await inTenant(tenant._id, async () => {
        const waiting = await o.overdrachten.store.find(
          { status: 'ontvangen', _gestart: false, _created: { $lt: new Date(Date.now() - 10_000) } },
          { limit: 100, sort: { status: 1, _gestart: 1, _created: 1 } },
        );
        for (const doc of waiting) if (!(await start(o, doc))) return false;
        return true;
      });
      if (!started) return; // Temporal away: the next round tries again
    }
  };
  const timer = setInterval(() => void run().catch((err: Error) => o.api.deps.log.error({ err }, 'overdrachten: start sweep failed')), 15_000);
  timer.unref();
  o.api.app.addHook('onClose', async () => clearInterval(timer));
}

/** Every non-empty combination of the list filters, as index key prefixes. */
function filterCombinations(): Record<string, 1>[] {
  const out: Record<string, 1>[] = [];
  for (let mask = 1; mask < 1 << OVERDRACHT_FILTERS.length; mask++) {
    out.push(Object.fromEntries(OVERDRACHT_FILTERS.filter((_, i) => mask & (1 << i)).map((f) => [f, 1])) as Record<string, 1>);
  }
  return out;
}

/** List filters alone and under autorisaties (newest first), and the sweep of unstarted ones. */
async function ensureIndexes(r: Resource<OverdrachtDoc>): Promise<void> {
  const newest = { _created: -1, _id: -1 } as const;
  await r.store.ensureIndexes([
    { key: { ...newest } },
    // Under autorisaties: the zaaktype of one autorisatie, the filters, the list order, then its vertrouwelijkheid bound.
    // Their counts: the same equalities, then the vertrouwelijkheid bound.
    ...[{}, ...filterCombinations()].flatMap((fields) => [
      ...(Object.keys(fields).length ? [{ key: { ...fields, ...newest } }] : []),
      { key: { _zaaktype: 1, ...fields, ...newest, _vertrouwelijkheid: 1 } },
      { key: { _zaaktype: 1, ...fields, _vertrouwelijkheid: 1 } },
    ]),
    { key: { status: 1, _gestart: 1, _created: 1 } },
  ]);
}
