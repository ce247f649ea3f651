import type { Db } from 'mongodb';
import type { Logger } from '@zgw/shared';
import type { InhoudStore } from './inhoud';

/** The collections whose documents point to files (`_inhoud`: one id, or a list of a document's bestandsdelen). */
export const INHOUD_HOLDERS = ['enkelvoudiginformatieobjecten', 'enkelvoudiginformatieobject_versies', 'bestandsdelen'] as const;

/** Whether any document (a live one, a version, a part of an upload in progress) points to the file. */
async function referenced(db: Db, id: string): Promise<boolean> {
  for (const name of INHOUD_HOLDERS) {
    if (await db.collection(name).findOne({ _inhoud: id }, { projection: { _id: 1 } })) return true;
  }
  return false;
}

/**
 * Removes the files no document points to that were stored more than `graceMs` ago: a file is written before its
 * document, so a crash (or an outage of MongoDB) between the two leaves one behind, as does a document deleted while its
 * files could not be removed. Each removal is logged. Several instances sweeping at once do no harm (a removal of a
 * removed file is none); a file younger than the grace period may still be waiting for its document.
 */
export async function sweepInhoud(db: Db, store: InhoudStore, graceMs: number, log: Logger): Promise<{ checked: number; removed: number }> {
  const before = new Date(Date.now() - graceMs);
  let checked = 0;
  let removed = 0;
  for await (const file of store.list(before)) {
    checked++;
    if (await referenced(db, file.id)) continue;
    await store.delete([file.id]);
    removed++;
    log.warn(
      { inhoud: file.id, bytes: file.size, stored: file.at.toISOString(), store: store.kind },
      'removed document content no document points to',
    );
  }
  return { checked, removed };
}

/** The sweep every `everyMs` (a quarter of the grace period, at most hourly), the first a minute after start. */
export function scheduleSweep(db: Db, store: InhoudStore, graceMs: number, log: Logger): () => void {
  const everyMs = Math.min(graceMs / 4, 3_600_000);
  const run = () =>
    void sweepInhoud(db, store, graceMs, log).then(
      (r) => r.removed && log.info({ ...r, store: store.kind }, 'document content sweep done'),
      (err: Error) => log.error({ err, store: store.kind }, 'document content sweep failed'),
    );
  const first = setTimeout(run, Math.min(60_000, everyMs));
  const timer = setInterval(run, everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
