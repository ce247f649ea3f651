import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { IMPORT_FASEN, IMPORT_SOORTEN, importWorkflowId, type ImportOpdracht, type ImportStatus } from '@zgw/shared';
import type { ImportActivities } from '../../src/importen/activities';
import { recordHistories, suiteEnvironment, WORKFLOWS } from '../temporal.helpers';

// The registration import's workflows (importeren, one child importeerSoort per collection) in Temporal's test
// environment, their activities replaced by fakes: the order of the stages and of each collection's pages, the end status,
// pause and resume, a failure, and a collection long enough to continue as new. ZGW_RECORD_HISTORIES=1 keeps the
// histories for the replay test.

let env: TestWorkflowEnvironment;
suiteEnvironment((e) => (env = e));

interface Log {
  pages: string[];
  status: [ImportStatus, string | undefined][];
}

/** Fakes: each collection starts at `s<soort>` (the zaken at two start pages), and each start page has one more page. */
function fakes(overrides: Partial<ImportActivities> = {}) {
  const log: Log = { pages: [], status: [] };
  const ok: ImportActivities = {
    brengCatalogi: async () => undefined,
    startPaginas: async (_o, soort) => (soort === 1 ? ['s1-a', 's1-b'] : [`s${soort}`]),
    importeerPagina: async (_o, soort, url) => {
      log.pages.push(url);
      return { next: url.endsWith('+') ? undefined : `${url}+` } as Awaited<ReturnType<ImportActivities['importeerPagina']>>;
    },
    ruimImportOp: async () => undefined,
    verifieerImport: async () => [],
    zetImportStatus: async (_o, status, fout) => void log.status.push([status, fout]),
  };
  return { log, activities: { ...ok, ...overrides } };
}

async function run(name: string, activities: ImportActivities, during?: (id: string) => Promise<void>): Promise<string> {
  const taskQueue = `test-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowsPath: WORKFLOWS, activities });
  const o: ImportOpdracht = { run: randomUUID(), tenant: '002220647', hartslagSeconden: 5 };
  const id = importWorkflowId(o.run);
  return worker.runUntil(async () => {
    const handle = await env.client.workflow.start('importeren', { taskQueue, workflowId: id, args: [o] });
    await during?.(id);
    const result = (await handle.result()) as string;
    await recordHistories({ [`importeren-${name}`]: handle, [`importeerSoort-${name}`]: env.client.workflow.getHandle(`${id}-1`) });
    return result;
  });
}

const pagesOf = (soort: number) => (soort === 1 ? ['s1-a', 's1-a+', 's1-b', 's1-b+'] : [`s${soort}`, `s${soort}+`]);
const allPages = IMPORT_SOORTEN.flatMap((_, soort) => pagesOf(soort));
const soortOf = (page: string) => Number(/^s(\d+)/.exec(page)![1]);
const faseOf = (page: string) => IMPORT_FASEN.findIndex((f) => f.includes(soortOf(page)));

/** Every page of every collection read once; a stage's pages all before the next stage's; a collection's pages in order. */
function expectStagesInOrder(pages: string[]): void {
  expect([...pages].sort()).toEqual([...allPages].sort());
  const fasen = pages.map(faseOf);
  expect(fasen).toEqual([...fasen].sort((x, y) => x - y));
  IMPORT_SOORTEN.forEach((_, soort) => expect(pages.filter((p) => soortOf(p) === soort)).toEqual(pagesOf(soort)));
}

test('the stages cover every collection once, each after what its objects name', () => {
  expect(IMPORT_FASEN.flat().sort((x, y) => x - y)).toEqual(IMPORT_SOORTEN.map((_, n) => n));
  const fase = (c: string) => IMPORT_FASEN.findIndex((f) => f.some((n) => IMPORT_SOORTEN[n]!.collection === c));
  for (const part of ['rollen', 'resultaten', 'zaakobjecten', 'klantcontacten', 'zaakcontactmomenten', 'zaakverzoeken', 'besluiten'])
    expect(fase(part)).toBeGreaterThan(fase('zaken'));
  expect(fase('statussen')).toBeGreaterThan(fase('rollen'));
  expect(fase('besluitinformatieobjecten')).toBeGreaterThan(Math.max(fase('besluiten'), fase('enkelvoudiginformatieobjecten')));
  expect(fase('zaakinformatieobjecten')).toBeGreaterThan(Math.max(fase('statussen'), fase('enkelvoudiginformatieobjecten')));
  for (const part of ['gebruiksrechten', 'verzendingen'])
    expect(fase(part)).toBeGreaterThan(Math.max(fase('zaakinformatieobjecten'), fase('besluitinformatieobjecten')));
});

test('the stages in turn, the collections of a stage side by side, each page after the one before, then the verification and the status', async () => {
  const { log, activities } = fakes();
  expect(await run('fasen-afgerond', activities)).toBe('afgerond');
  expectStagesInOrder(log.pages);
  expect(log.status).toEqual([['afgerond', undefined]]);
}, 60_000);

test('differences found by the verification are reported with the status', async () => {
  const { log, activities } = fakes({ verifieerImport: async () => ['zaken: 3 bij de bron, 2 hier'] });
  expect(await run('fasen-verschillen', activities)).toBe('afgerond');
  expect(log.status).toEqual([['afgerond', 'verschillen na de import: zaken: 3 bij de bron, 2 hier']]);
}, 60_000);

test('a page that fails for good ends the run mislukt with the reason; nothing of a later stage is read', async () => {
  const { log, activities } = fakes();
  const importeerPagina = activities.importeerPagina;
  activities.importeerPagina = async (o, soort, url) => {
    if (url === 's1-b') throw ApplicationFailure.create({ type: 'Permanent', message: 'bron antwoordt 403', nonRetryable: true });
    return importeerPagina(o, soort, url);
  };
  expect(await run('fasen-mislukt', activities)).toBe('mislukt');
  expect(log.pages).toEqual(expect.arrayContaining(['s1-a', 's1-a+']));
  expect(log.pages.filter((p) => faseOf(p) > 0 || p.startsWith('s1-b'))).toEqual([]);
  expect(log.status).toHaveLength(1);
  expect(log.status[0]![0]).toBe('mislukt');
  expect(log.status[0]![1]).toContain('bron antwoordt 403');
}, 60_000);

test('a paused run reads no page until it is resumed, then goes on where it stood', async () => {
  const { log, activities } = fakes();
  let paused!: () => void;
  const pausedNow = new Promise<void>((r) => (paused = r));
  let sent!: () => void;
  const signalSent = new Promise<void>((r) => (sent = r));
  let signalled = false;
  const importeerPagina = activities.importeerPagina;
  activities.importeerPagina = async (o, soort, url) => {
    const out = await importeerPagina(o, soort, url);
    if (url === 's1-a+' && !signalled) {
      signalled = true;
      paused();
      // the page under way ends only after the pause is signalled, however slow the machine
      await signalSent;
    }
    return out;
  };
  const result = await run('fasen-gepauzeerd', activities, async (id) => {
    await pausedNow;
    await env.client.workflow.getHandle(id).signal('pauzeer');
    sent();
    await new Promise((r) => setTimeout(r, 1500));
    const stood = log.pages.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(log.pages.length).toBe(stood); // nothing read while paused
    // each collection of the stage finished at most the page under way and one begun before the pause reached it
    expect(stood).toBeLessThanOrEqual(log.pages.indexOf('s1-a+') + 1 + 2 * IMPORT_FASEN[0]!.length);
    await env.client.workflow.getHandle(id).signal('hervat');
  });
  expect(result).toBe('afgerond');
  expectStagesInOrder(log.pages);
}, 60_000);

test('a collection of many pages continues as new and reads each page once', async () => {
  const { log, activities } = fakes({
    startPaginas: async (_o, soort) => (soort === 1 ? ['z-0'] : []),
    importeerPagina: async (_o, _soort, url) => {
      log.pages.push(url);
      const n = Number(url.slice(2));
      return { next: n < 249 ? `z-${n + 1}` : undefined } as Awaited<ReturnType<ImportActivities['importeerPagina']>>;
    },
  });
  let id = '';
  expect(await run('fasen-lang', activities, async (started) => void (id = started))).toBe('afgerond');
  expect(log.pages).toEqual(Array.from({ length: 250 }, (_, i) => `z-${i}`));
  // the zaken's child went on in a new run after 200 pages, which began with the 50 pages still to go
  const history = await env.client.workflow.getHandle(`${id}-1`).fetchHistory();
  const started = history.events![0]!.workflowExecutionStartedEventAttributes!;
  expect(started.continuedExecutionRunId).toBeTruthy();
}, 120_000);
