import {
  CancellationScope,
  condition,
  continueAsNew,
  defineSignal,
  executeChild,
  getExternalWorkflowHandle,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
// (from its own file: the package's index would bring Node's modules into the workflow sandbox)
import {
  IMPORT_FASEN,
  IMPORT_HERVAT_SIGNAL,
  IMPORT_PAUZEER_SIGNAL,
  IMPORT_SOORTEN,
  importWorkflowId,
  type ImportOpdracht,
} from '@zgw/shared/dist/importen';
import type { ImportActivities } from './activities';
import { message } from '../common/failure-message';

// Type-only imports of the activities: the workflow bundle holds none of their code.

/** Pauses the run after the page under way; `hervat` goes on. Sent to the run, which passes it to its current collection. */
export const pauzeer = defineSignal(IMPORT_PAUZEER_SIGNAL);
export const hervat = defineSignal(IMPORT_HERVAT_SIGNAL);

/** Pages of one collection per workflow run before it continues as new (its history stays small). */
const PAGES_PER_RUN = 200;

const activities = (o: ImportOpdracht) =>
  proxyActivities<ImportActivities>({
    startToCloseTimeout: '2 hours',
    heartbeatTimeout: `${o.hartslagSeconden ?? 120}s`,
    retry: { initialInterval: '2s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 20, nonRetryableErrorTypes: ['Permanent'] },
  });

/**
 * One registration import (workflow `import-<run>`): the source's catalogi not here yet, then the collections of the
 * source stage by stage (IMPORT_FASEN), each collection a child workflow, those of a stage side by side; then what the
 * source deleted since the previous run of the same source removed here (ruimOp); then the verification; the run's status kept with it. A cancel ends it `geannuleerd` (what was brought stays: a later run
 * goes on from there, replacing, never copying); a failure ends it `mislukt` with the reason. (The run is kept
 * `bezig` from its start, `gepauzeerd` while paused, by the API that steers it.)
 */
export async function importeren(o: ImportOpdracht): Promise<string> {
  const a = activities(o);
  let gepauzeerd = false;
  const bezig = new Set<string>();
  const doorgeven = async (signal: 'pauzeer' | 'hervat') => {
    await Promise.all(
      [...bezig].map((id) =>
        getExternalWorkflowHandle(id)
          .signal(signal)
          .catch(() => undefined),
      ),
    );
  };
  setHandler(pauzeer, async () => {
    gepauzeerd = true;
    await doorgeven('pauzeer');
  });
  setHandler(hervat, async () => {
    gepauzeerd = false;
    await doorgeven('hervat');
  });
  const soort = async (n: number) => {
    const id = `${importWorkflowId(o.run)}-${n}`;
    bezig.add(id);
    try {
      await executeChild(importeerSoort, { workflowId: id, args: [o, n, null] });
    } finally {
      // (a failed collection is no longer steered: a pause or resume after it goes to the others only)
      bezig.delete(id);
    }
  };
  try {
    await a.brengCatalogi(o);
    // (runs begun before the stages bring one collection after another)
    const fasen = patched('import-fasen') ? IMPORT_FASEN : IMPORT_SOORTEN.map((_, n) => [n]);
    for (const fase of fasen) {
      await condition(() => !gepauzeerd);
      await Promise.all(fase.map(soort));
    }
    // the cut-over: what the source deleted since its previous run (runs begun before it go on to the verification)
    if (patched('import-opruimen')) await a.ruimImportOp(o);
    const verschillen = await a.verifieerImport(o);
    await a.zetImportStatus(o, 'afgerond', verschillen.length ? `verschillen na de import: ${verschillen.join('; ')}` : undefined);
    return 'afgerond';
  } catch (err) {
    const geannuleerd = isCancellation(err);
    await CancellationScope.nonCancellable(() =>
      a.zetImportStatus(o, geannuleerd ? 'geannuleerd' : 'mislukt', geannuleerd ? undefined : message(err)),
    );
    return geannuleerd ? 'geannuleerd' : 'mislukt';
  }
}

/**
 * One collection of the source, page by page, from each of its start pages in turn (a limited run's zaken: one list
 * per zaaktype version); continues as new every PAGES_PER_RUN pages with the pages still to go.
 */
export async function importeerSoort(o: ImportOpdracht, soort: number, rij: string[] | null): Promise<void> {
  const a = activities(o);
  let gepauzeerd = false;
  setHandler(pauzeer, () => void (gepauzeerd = true));
  setHandler(hervat, () => void (gepauzeerd = false));
  const todo = rij ?? (await a.startPaginas(o, soort));
  for (let pages = 0; todo.length; pages++) {
    if (pages === PAGES_PER_RUN) await continueAsNew<typeof importeerSoort>(o, soort, todo);
    await condition(() => !gepauzeerd);
    const { next } = await a.importeerPagina(o, soort, todo[0]!);
    if (next) todo[0] = next;
    else todo.shift();
  }
}
