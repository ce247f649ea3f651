import { heartbeat } from '@temporalio/activity';
import {
  IMPORT_PAGINAS,
  IMPORT_SOORTEN,
  ZgwCallError,
  bronApi,
  platformDb,
  soortKey,
  type ImportOpdracht,
  type ImportPagina,
  type ImportTelling,
} from '@zgw/shared';
import type { Deps } from '../context';
import { openRun, type Run } from './run';

type Obj = Record<string, unknown>;

/** What the API answers per object of a batch (admin/importen.ts). */
interface Resultaat {
  url: string;
  uitkomst: 'nieuw' | 'bijgewerkt' | 'bezet' | 'mislukt';
  reden?: string;
}

/** At most this many objects go to the API in one batch. */
const BATCH = 200;
/** Requests to the source at once within a page (a zaak's eigenschappen, a document's versions). */
const PARALLEL = 8;

/** The first page of collection `soort` at the source. */
export async function eerstePagina(deps: Deps, o: ImportOpdracht, soort: number): Promise<string> {
  const { run } = await openRun(deps, o);
  const s = IMPORT_SOORTEN[soort]!;
  return `${bronApi(run, s.component)}/${s.collection}`;
}

/**
 * Brings one page of a collection of the source: reads it (a list or a paginated page), adds what belongs to its
 * objects (a zaak's zaakeigenschappen; a document's earlier versions with each version's content streamed here), has
 * the API store it all in batches, and keeps what became of each object under the page's URL (a retried page replaces
 * its own counts). Answers the next page, or null after the last.
 */
export async function importeerPagina(deps: Deps, o: ImportOpdracht, soort: number, url: string): Promise<{ next: string | null }> {
  const r = await openRun(deps, o);
  const s = IMPORT_SOORTEN[soort]!;
  const body = await r.bron.get<unknown>(url);
  const items = (Array.isArray(body) ? body : ((body as { results?: Obj[] }).results ?? [])) as Obj[];
  const next = Array.isArray(body) ? null : ((body as { next?: string | null }).next ?? null);
  const telling: ImportTelling = { gelezen: items.length, nieuw: 0, bijgewerkt: 0, bezet: 0, mislukt: 0, bytes: 0 };
  const fouten: { url: string; reden: string }[] = [];
  const objecten: Obj[] = [];
  if (s.collection === 'enkelvoudiginformatieobjecten') {
    for (const chunk of chunks(items, PARALLEL)) {
      for (const versies of await Promise.all(chunk.map((doc) => versiesVan(r, doc, telling, !r.run.dryRun)))) objecten.push(...versies);
      heartbeat(objecten.length);
    }
  } else objecten.push(...items);
  // a zaak's zaakeigenschappen, listed per zaak only, come with its page and are counted apart
  const eigenschappen: Obj[] = [];
  if (s.collection === 'zaken') {
    for (const chunk of chunks(items, PARALLEL)) {
      const lists = await Promise.all(chunk.map((z) => r.bron.all(`${bronApi(r.run, 'zaken')}/zaken/${uuidOf(String(z.url))}/zaakeigenschappen`)));
      eigenschappen.push(...lists.flat());
      heartbeat(eigenschappen.length);
    }
  }
  const apart: ImportTelling = { gelezen: eigenschappen.length, nieuw: 0, bijgewerkt: 0, bezet: 0, mislukt: 0, bytes: 0 };
  if (!r.run.dryRun) {
    for (const [list, t] of [
      [objecten, telling],
      [eigenschappen, apart],
    ] as const) {
      for (const batch of chunks(list, BATCH)) {
        const { resultaten } = await r.hier.post<{ resultaten: Resultaat[] }>(`${r.base}/admin/api/v1/importen/objecten`, {
          run: o.run,
          bron: r.run.bron,
          apis: r.run.apis,
          objecten: batch,
        });
        for (const res of resultaten) {
          t[res.uitkomst]++;
          if (res.uitkomst === 'mislukt' && fouten.length < 100) fouten.push({ url: res.url, reden: res.reden ?? '' });
        }
        heartbeat(t.nieuw + t.bijgewerkt);
      }
    }
  }
  const paginas: ImportPagina[] = [{ _id: `${o.run} ${url}`, run: o.run, soort: soortKey(s), telling, fouten }];
  if (s.collection === 'zaken')
    paginas.push({ _id: `${o.run} ${url} zaakeigenschappen`, run: o.run, soort: 'zaken/zaakeigenschappen', telling: apart, fouten: [] });
  for (const p of paginas) await platformDb(deps.db).collection<ImportPagina>(IMPORT_PAGINAS).replaceOne({ _id: p._id }, p, { upsert: true });
  const mislukt = telling.mislukt + apart.mislukt;
  if (mislukt) deps.log.warn({ run: o.run, soort: soortKey(s), mislukt, eerste: fouten[0]?.reden }, 'import: objects not stored');
  return { next };
}

/**
 * Every version of a source document, oldest first, each with its content stored here first (`_bestand`); the page
 * shows the newest. Without `store` (a dry run) only read.
 */
async function versiesVan(r: Run, doc: Obj, telling: ImportTelling, store: boolean): Promise<Obj[]> {
  const newest = Number(doc.versie) || 1;
  const reps: Obj[] = [];
  for (let v = 1; v < newest; v++) reps.push(await r.bron.get<Obj>(`${String(doc.url)}?versie=${v}`));
  reps.push(doc);
  if (!store) return reps;
  const out: Obj[] = [];
  for (const rep of reps) {
    if (!rep.inhoud) {
      out.push(rep);
      continue;
    }
    const bestand = await overbrengen(r, String(rep.inhoud));
    telling.bytes += bestand.size;
    out.push({ ...rep, _bestand: bestand });
  }
  return out;
}

/** Streams content from the source into this platform's content store (never whole in memory); the stored file. */
async function overbrengen(r: Run, url: string): Promise<{ id: string; size: number; sha256: string }> {
  const src = await r.bron.fetch('GET', url);
  if (!src.ok || !src.body) throw new ZgwCallError('GET', url, src.status, { detail: await src.text().catch(() => '') });
  const target = `${r.base}/admin/api/v1/importen/inhoud`;
  const res = await r.hier.fetch('PUT', target, { body: src.body, headers: { 'content-type': 'application/octet-stream' }, duplex: 'half' });
  const answer = (await res.json().catch(() => undefined)) as { id: string; size: number; sha256: string } | undefined;
  if (!res.ok || !answer) throw new ZgwCallError('PUT', target, res.status, answer);
  return answer;
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

const uuidOf = (url: string): string => url.replace(/\/+$/, '').split('/').pop()!;
