import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { vernietigingWorkflowId, type LijstStatus, type VernietigingOpdracht, type VernietigingVoortgang } from '@zgw/shared';
import type { VernietigingActivities } from '../../src/vernietiging/activities';
import { recordHistories, suiteEnvironment, WORKFLOWS } from '../temporal.helpers';

// Workflow `vernietigen` in Temporal's test environment, its activities replaced by fakes: every root zaak carried out
// once, then the follow-up, the verklaring and the status, in that order; a long list continuing as new; the stop
// signal; a failure. ZGW_RECORD_HISTORIES=1 keeps the histories for the replay test.

let env: TestWorkflowEnvironment;
suiteEnvironment((e) => (env = e));

/** Fakes: `n` root zaken, each with one zaak destroyed (every seventh skipped instead). */
function fakes(n: number, overrides: Partial<VernietigingActivities> = {}, hold?: (zaak: string) => Promise<void>) {
  const log = { zaken: [] as string[], stappen: [] as string[], status: [] as [LijstStatus, string | undefined][] };
  const ok: VernietigingActivities = {
    vernietigingWortels: async () => Array.from({ length: n }, (_, i) => `zaak-${i}`),
    vernietigZaak: async (_o, zaak) => {
      await hold?.(zaak);
      log.zaken.push(zaak);
      const i = Number(zaak.split('-')[1]);
      return i % 7 === 6 ? { vernietigd: 0, overgeslagen: 1 } : { vernietigd: 1, overgeslagen: 0 };
    },
    vernietigingNaloop: async () => void log.stappen.push('naloop'),
    maakVerklaring: async () => void log.stappen.push('verklaring'),
    zetLijstStatus: async (_o, status, fout) => {
      log.stappen.push(`status ${status}`);
      log.status.push([status, fout]);
    },
  };
  return { log, activities: { ...ok, ...overrides } };
}

async function run(name: string, activities: VernietigingActivities, during?: (id: string) => Promise<void>): Promise<VernietigingVoortgang> {
  const taskQueue = `test-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: WORKFLOWS, activities });
  const o: VernietigingOpdracht = { lijst: randomUUID(), tenant: '002220647', hartslagSeconden: 5, gelijktijdig: 4 };
  const id = vernietigingWorkflowId(o.lijst);
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start('vernietigen', { taskQueue, workflowId: id, args: [o] });
    await during?.(id);
    const result = (await handle.result()) as VernietigingVoortgang;
    await recordHistories({ [`vernietigen-${name}`]: handle });
    return result;
  });
}

test('every root zaak once, then the follow-up, the verklaring and the status uitgevoerd', async () => {
  const { log, activities } = fakes(20);
  const result = await run('uitgevoerd', activities);
  expect([...log.zaken].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `zaak-${i}`).sort());
  expect(log.stappen).toEqual(['naloop', 'verklaring', 'status uitgevoerd']);
  expect(result).toEqual({ totaal: 20, gedaan: 20, vernietigd: 18, overgeslagen: 2, gestopt: false });
}, 60_000);

test('a long list continues as new on the way, each zaak still once, the counts carried along', async () => {
  const { log, activities } = fakes(600);
  const result = await run('lang', activities);
  expect(log.zaken).toHaveLength(600);
  expect(new Set(log.zaken).size).toBe(600);
  expect(log.stappen).toEqual(['naloop', 'verklaring', 'status uitgevoerd']);
  expect(result).toMatchObject({ totaal: 600, gedaan: 600, gestopt: false });
}, 120_000);

test('stop: the zaken under way end, no others begin, the list is gestopt without a verklaring', async () => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  const { log, activities } = fakes(50, {}, async (zaak) => {
    if (Number(zaak.split('-')[1]) >= 5) await held;
  });
  const result = await run('gestopt', activities, async (id) => {
    const handle = env.client.workflow.getHandle(id);
    while ((await handle.query<VernietigingVoortgang>('voortgang')).gedaan < 5) await new Promise((r) => setTimeout(r, 50));
    await handle.signal('stop');
    release();
  });
  expect(result.gestopt).toBe(true);
  expect(log.stappen).toEqual(['status gestopt']);
  // four lanes: zaak-0 to zaak-4 done, zaak-5 to zaak-8 held under way when the signal came; those end, none begins
  expect([...log.zaken].sort()).toEqual(Array.from({ length: 9 }, (_, i) => `zaak-${i}`).sort());
  expect(result.gedaan).toBe(9);
}, 60_000);

test('a permanent failure ends the list mislukt with the reason', async () => {
  const { log, activities } = fakes(5, {
    vernietigZaak: async () => {
      throw ApplicationFailure.create({ type: 'Permanent', message: 'de API weigert: 403', nonRetryable: true });
    },
  });
  await run('mislukt', activities);
  expect(log.status).toEqual([['mislukt', expect.stringContaining('de API weigert: 403')]]);
}, 60_000);
