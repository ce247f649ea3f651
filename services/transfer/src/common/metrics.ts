import { Counter, Histogram, makeRoom, type ImportTelling, type Registry, type Voortgang } from '@zgw/shared';

/** Changes of a transfer's status reported by this worker, by the new status (`afgerond`, `mislukt`, ...). */
const transfers = new Counter({
  name: 'zgw_transfers_total',
  help: 'Transfers that reached a status (bezig, afgerond, geweigerd, mislukt, geannuleerd), as the transfer worker reported it',
  labelNames: ['status'],
  registers: [],
});

const steps = new Histogram({
  name: 'zgw_transfer_step_duration_seconds',
  help: 'Time from the start to the end of a transfer step, by step',
  labelNames: ['stap'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800],
  registers: [],
});

/** The registration import's objects by collection and what became of them (a page retried counts again). */
const importObjects = new Counter({
  name: 'zgw_import_objects_total',
  help: 'Objects of registration imports by collection (zaken/zaken ...) and outcome: gelezen, nieuw, bijgewerkt, bezet, mislukt, overgeslagen',
  labelNames: ['collectie', 'uitkomst'],
  registers: [],
});

const importBytes = new Counter({
  name: 'zgw_import_content_bytes_total',
  help: 'Document content brought by registration imports, in bytes',
  registers: [],
});

const importRuns = new Counter({
  name: 'zgw_imports_total',
  help: 'Registration imports that ended, by status (afgerond, mislukt, geannuleerd)',
  labelNames: ['status'],
  registers: [],
});

export function registerTransferMetrics(registry: Registry): void {
  registry.registerMetric(transfers);
  registry.registerMetric(steps);
  registry.registerMetric(importObjects);
  registry.registerMetric(importBytes);
  registry.registerMetric(importRuns);
}

/** Counts what one page of an import brought, per collection. */
export function observeImport(tellingen: ReadonlyMap<string, ImportTelling>): void {
  for (const [collectie, telling] of tellingen) {
    const { bytes, ...uitkomsten } = telling;
    for (const [uitkomst, n] of Object.entries(uitkomsten)) if (n) importObjects.inc({ collectie, uitkomst }, n);
    if (bytes) importBytes.inc(bytes);
  }
}

/** Counts an import that ended. */
export function observeImportEnd(status: string): void {
  importRuns.inc({ status });
}

/** Steps begun in this worker, by `<overdracht>/<stap>`: when (bounded: a step that ends elsewhere is forgotten). */
const begun = new Map<string, number>();
const MAX_BEGUN = 10_000;

/** Counts what a progress report says: a status reached, a step's duration once it ends. */
export function observe(overdracht: string, v: Voortgang): void {
  if (v.status) transfers.inc({ status: v.status });
  if (!v.stap) return;
  const key = `${overdracht}/${v.stap}`;
  if (v.fase === 'start') {
    makeRoom(begun, MAX_BEGUN);
    begun.set(key, performance.now());
  } else if (v.fase === 'einde') {
    const at = begun.get(key);
    begun.delete(key);
    if (at !== undefined) steps.observe({ stap: v.stap }, (performance.now() - at) / 1000);
  }
}
