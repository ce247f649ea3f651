import {
  IMPORT_PAGINAS,
  IMPORT_PROEF,
  IMPORT_TYPEN,
  IMPORT_SOORTEN,
  IMPORTEN_COLLECTION,
  bronApi,
  platformDb,
  soortKey,
  type ImportOpdracht,
  type ImportPagina,
  type ImportStatus,
  type StoredImport,
  type ZgwClient,
} from '@zgw/shared';
import * as A from '../common/antwoorden';
import type { Deps } from '../common/context';
import { observeImportEnd } from '../common/metrics';
import type { Bron } from './bron';
import { vergelijkInhoud } from './inhoud';
import { openRun } from './run';

/** How many objects a list of this platform holds: its `count`, or the length of a plain list. */
async function aantal(client: ZgwClient, url: string): Promise<number> {
  const lijst = await client.get(url, A.Lijst(A.ZgwObject));
  return lijst.count ?? lijst.results.length;
}

/** How many objects a list of the source holds: its `count`, else counted page by page (a source may send no count). */
async function aantalBron(bron: Bron, url: string): Promise<number> {
  const eerste = await bron.get(url, A.Lijst(A.ZgwObject));
  if (eerste.count !== undefined) return eerste.count;
  let n = eerste.results.length;
  for (let next = eerste.next ?? null; next;) {
    const page = await bron.pagina(next);
    n += page.items.length + page.onleesbaar.length;
    next = page.next;
  }
  return n;
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
      aantalBron(r.bron, `${bronApi(r.run, s.component)}/${s.collection}`),
      aantal(r.hier, `${r.base}/${s.component}/api/v1/${s.collection}`),
    ]);
    return [soortKey(s), { bron, hier }] as const;
  });
  const [inhoudVerificatie, ...tellingen] = await Promise.all([
    vergelijkInhoud(r, r.run.selectie ? await gekoppeld(deps, o.run) : undefined),
    ...tellen,
  ]);
  await r.bron.bewaarTempo();
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

/** The documents a limited run's links named (kept with their pages: see Pagina.documenten), each once. */
async function gekoppeld(deps: Deps, run: string): Promise<string[]> {
  const soorten = IMPORT_SOORTEN.filter((s) => s.collection === 'zaakinformatieobjecten' || s.collection === 'besluitinformatieobjecten').map(
    soortKey,
  );
  const pages = platformDb(deps.db)
    .collection<ImportPagina>(IMPORT_PAGINAS)
    .find({ run, soort: { $in: soorten } }, { projection: { documenten: 1 } });
  const out = new Set<string>();
  for await (const p of pages) for (const d of p.documenten ?? []) out.add(d);
  return [...out];
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
