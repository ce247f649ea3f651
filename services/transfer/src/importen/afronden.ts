import {
  IMPORT_PROEF,
  IMPORT_TYPEN,
  IMPORT_SOORTEN,
  IMPORTEN_COLLECTION,
  bronApi,
  platformDb,
  soortKey,
  type ImportOpdracht,
  type ImportStatus,
  type StoredImport,
  type ZgwClient,
} from '@zgw/shared';
import * as A from '../antwoorden';
import type { Deps } from '../context';
import { observeImportEnd } from '../metrics';
import { vergelijkInhoud } from './inhoud';
import { openRun } from './run';

/** How many objects a list holds: its `count`, or the length of a plain list. */
async function aantal(client: ZgwClient, url: string): Promise<number> {
  const lijst = await client.get(url, A.Lijst(A.ZgwObject));
  return lijst.count ?? lijst.results.length;
}

/**
 * The verification at the end of a run: per collection the number of objects at the source and here (in the run's
 * tenant; not for a limited run), and every document version's content (vergelijkInhoud), kept with the run. Answers
 * what differs. A dry run wrote nothing: nothing to compare.
 */
export async function verifieer(deps: Deps, o: ImportOpdracht): Promise<string[]> {
  const r = await openRun(deps, o);
  if (r.run.dryRun) return [];
  // (a limited run brings part of each collection: its counts say nothing; its documents' content is compared)
  const tellen = (r.run.selectie ? [] : IMPORT_SOORTEN).map(async (s) => {
    const [bron, hier] = await Promise.all([
      aantal(r.bron, `${bronApi(r.run, s.component)}/${s.collection}`),
      aantal(r.hier, `${r.base}/${s.component}/api/v1/${s.collection}`),
    ]);
    return [soortKey(s), { bron, hier }] as const;
  });
  const [inhoudVerificatie, ...tellingen] = await Promise.all([vergelijkInhoud(r), ...tellen]);
  const verificatie: NonNullable<StoredImport['verificatie']> = Object.fromEntries(tellingen);
  await platformDb(deps.db)
    .collection<StoredImport>(IMPORTEN_COLLECTION)
    .updateOne({ _id: o.run }, { $set: { verificatie, inhoudVerificatie, bijgewerkt: new Date() } });
  const anders = Object.entries(verificatie)
    .filter(([, v]) => v.bron !== v.hier)
    .map(([k, v]) => `${k}: ${v.bron} in de bron, ${v.hier} hier`);
  if (inhoudVerificatie.aantalAfwijkend) anders.push(`${inhoudVerificatie.aantalAfwijkend} documentversies met andere inhoud`);
  deps.log.info({ run: o.run, verschillen: anders.length }, 'import verified');
  return anders;
}

/** Sets the run's status (and the reason it failed), as the workflow reaches it; what the run kept aside goes. */
export async function zetStatus(deps: Deps, o: ImportOpdracht, status: ImportStatus, fout?: string): Promise<void> {
  const db = platformDb(deps.db);
  await db.collection(IMPORT_PROEF).deleteMany({ run: o.run });
  await db.collection(IMPORT_TYPEN).deleteMany({ run: o.run });
  await db
    .collection<StoredImport>(IMPORTEN_COLLECTION)
    .updateOne({ _id: o.run }, { $set: { status, bijgewerkt: new Date(), ...(fout ? { fout } : {}) } });
  deps.log.info({ run: o.run, status, ...(fout ? { fout } : {}) }, `import ${status}`);
  observeImportEnd(status);
}
