import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import {
  IMPORT_PAGINAS,
  IMPORT_SOORTEN,
  ZgwCallError,
  ZgwClient,
  bronApi,
  legeTelling,
  mapStrings,
  platformDb,
  soortKey,
  zgwUrl,
  zijAanZij,
  type ImportOpdracht,
  type ImportPagina,
  type ImportSoort,
  type ImportTelling,
} from '@zgw/shared';
import * as A from '../antwoorden';
import { PERMANENT, uuidOf, type Deps } from '../context';
import { observeImport } from '../metrics';
import { openRun, type Run } from './run';

type Obj = Record<string, unknown>;

/** What the API answers per object of a batch (admin/importen.ts). */
const Resultaten = z.object({
  resultaten: z.array(
    z.object({ url: z.string(), uitkomst: z.enum(['nieuw', 'bijgewerkt', 'bezet', 'mislukt', 'overgeslagen']), reden: z.string().optional() }),
  ),
});

/** What the API answers for content it stored (admin/importen.ts): the file a version's `_bestand` names. */
const Opgeslagen = z.object({ id: z.string(), size: z.number().int(), sha256: z.string() });

/** The collections whose objects have an audit trail of their own. */
const TRAILS: ReadonlySet<string> = new Set(['zaken', 'enkelvoudiginformatieobjecten', 'besluiten']);

/** The links to documents: in a limited run, the documents they name are brought with them. */
const LINKS: ReadonlySet<string> = new Set(['zaakinformatieobjecten', 'besluitinformatieobjecten']);

/** At most this many objects go to the API in one batch. */
const BATCH = 400;
/** Requests to the source at once within a page (a zaak's eigenschappen, a document's versions). */
const PARALLEL = 16;

/**
 * Where collection `soort` starts at the source: its list; in a limited run the zaken of each version of the chosen
 * zaaktypen within the date range, and no documents of their own (a limited run brings the documents its zaken and
 * besluiten link, with those links).
 */
export async function startPaginas(deps: Deps, o: ImportOpdracht, soort: number): Promise<string[]> {
  const { run, bron } = await openRun(deps, o);
  const s = IMPORT_SOORTEN[soort]!;
  const lijst = `${bronApi(run, s.component)}/${s.collection}`;
  if (!run.selectie) return [lijst];
  if (s.collection === 'enkelvoudiginformatieobjecten') return [];
  if (s.collection !== 'zaken') return [lijst];
  const { zaaktypen, vanaf, tot, bronorganisatie } = run.selectie;
  const range = { startdatum__gte: vanaf, startdatum__lte: tot, bronorganisatie };
  const zaken = (q: Record<string, string | undefined>) => zgwUrl(bronApi(run, 'zaken'), 'zaken', q);
  if (!zaaktypen.length) return [zaken(range)];
  const urls: string[] = [];
  for (const identificatie of zaaktypen) {
    const versies = await bron.all(zgwUrl(bronApi(run, 'catalogi'), 'zaaktypen', { identificatie, status: 'alles' }), A.ZgwObject);
    for (const zt of versies) urls.push(zaken({ zaaktype: zt.url, ...range }));
  }
  return urls;
}

/** Pages of one collection one activity brings (its retry brings them again: each replaces what it made). */
const PAGES_PER_ACTIVITY = 24;
/** Pages stored together: more zaken side by side in the API (a zaak's own objects, its statussen, come one by one). */
const SAMEN = 4;
/** Pages read beside those being stored (their content streamed here already, their audit trails read). */
const AHEAD = 6;

/**
 * Brings pages of a collection of the source from `url` on, at most PAGES_PER_ACTIVITY: the lists one after another
 * (each names the next), what belongs to each page's objects read as soon as its list is there (lees), and SAMEN
 * pages stored at once (schrijf) while up to AHEAD pages after them are read, so the source's answers and this
 * platform's writes overlap. Answers the page to go on from, or null after the last.
 */
export async function importeerPagina(deps: Deps, o: ImportOpdracht, soort: number, url: string): Promise<{ next: string | null }> {
  const r = await openRun(deps, o);
  const onderweg: Promise<Gelezen>[] = [];
  let next: string | null = url;
  let begonnen = 0;
  const vooruit = async () => {
    while (next && onderweg.length < AHEAD && begonnen < PAGES_PER_ACTIVITY) {
      const at: string = next;
      begonnen++;
      const lijst = await leesPagina(r.bron, at);
      next = lijst.next;
      const page = lees(r, o, soort, at, lijst.items);
      // (a failed read fails the activity when its page's turn comes, not beside the page being stored)
      page.catch(() => undefined);
      onderweg.push(page);
    }
  };
  await vooruit();
  // (the pages stored before those under way: at most two writes at once; a failure waits for the other to end, so
  // a retry of the activity never writes beside a write of this attempt)
  let vorige: Promise<void> = Promise.resolve();
  try {
    while (onderweg.length) {
      const pages = onderweg.splice(0, SAMEN);
      const gelezen = await Promise.all(pages);
      const meer = vooruit();
      meer.catch(() => undefined);
      const eerder = vorige;
      const objecten = gelezen.flatMap((g) => g.objecten);
      if (!r.run.selectie && naastElkaar(gelezen[0]!.soort.collection, objecten)) {
        vorige = schrijf(deps, r, gelezen);
        vorige.catch(() => undefined);
        await eerder;
      } else {
        await eerder;
        await (vorige = schrijf(deps, r, gelezen));
      }
      await meer;
    }
    await vorige;
  } catch (err) {
    await vorige.catch(() => undefined);
    throw err;
  }
  return { next };
}

/**
 * Whether pages of `collection` holding `objecten` may be stored beside the pages before them (two writes under way,
 * so this platform's API and store both have work): when no object needs one of an earlier page stored first. Zaken
 * and documents may name one another (a deelzaak its hoofdzaak; their stage keeps both cores busy as it is); the
 * statussen of a zaak come in order, unless the source says which one is its last (ZRC 1.1 and later), which then
 * alone updates the zaak. The other parts of a zaak each name objects of an earlier stage only. (A limited run brings
 * the documents its links name with them, one page at a time: two pages naming one document would bring it twice at
 * once.)
 */
export function naastElkaar(collection: string, objecten: Obj[]): boolean {
  if (collection === 'zaken' || collection === 'enkelvoudiginformatieobjecten') return false;
  return collection !== 'statussen' || objecten.every((st) => typeof st.indicatieLaatstGezetteStatus === 'boolean');
}

/** A page of the source as read: its objects with what belongs to them, to be stored. */
interface Gelezen {
  soort: ImportSoort;
  p: Pagina;
  main: ImportTelling;
  /** What is stored of the page's objects: a document's versions oldest first, each with its content here already. */
  objecten: Obj[];
  eigenschappen: Obj[];
  trails: Obj[];
}

/**
 * Reads what belongs to the objects of one page of a collection (a list or a paginated page, at `url`): a zaak's
 * zaakeigenschappen; a document's earlier versions, each version's content streamed here; the audit trails of zaken,
 * documents and besluiten.
 */
async function lees(r: Run, o: ImportOpdracht, soort: number, url: string, items: Obj[]): Promise<Gelezen> {
  const s = IMPORT_SOORTEN[soort]!;
  const p = new Pagina(r, o.run, url);
  const main = p.telling(soortKey(s), items.length);
  // a limited run brings only the besluiten of its zaken
  const mee = r.run.selectie && s.collection === 'besluiten' ? items.filter((b) => b.zaak) : items;
  main.overgeslagen += items.length - mee.length;
  const [objecten, eigenschappen, trails] = await Promise.all([
    s.collection === 'enkelvoudiginformatieobjecten' ? p.metVersies(mee, main) : mee,
    // (a zaak that lists no eigenschappen has none to read)
    s.collection === 'zaken'
      ? p.perObject(
          mee.filter((z) => !Array.isArray(z.eigenschappen) || z.eigenschappen.length),
          (z) => `${bronApi(r.run, 'zaken')}/zaken/${uuidOf(String(z.url))}/zaakeigenschappen`,
        )
      : [],
    TRAILS.has(s.collection) ? p.leesTrails(mee) : [],
  ]);
  return { soort: s, p, main, objecten, eigenschappen, trails };
}

/**
 * Has the API store pages as read, together, in batches, and keeps what became of each object under its page's URL (a
 * retried page replaces its own counts).
 */
async function schrijf(deps: Deps, r: Run, gs: Gelezen[]): Promise<void> {
  // (a dry run has each object through the rules as well, and is told what would become of it)
  const geweigerd = await Pagina.schrijfSamen(
    'objecten',
    gs.map((g) => ({ p: g.p, list: g.objecten, t: g.main })),
  );
  for (const g of gs) await koppelingenOpnieuw(r, g, geweigerd);
  await Pagina.schrijfSamen(
    'objecten',
    gs.map((g) => ({ p: g.p, list: g.eigenschappen, t: g.p.telling('zaken/zaakeigenschappen', g.eigenschappen.length) })),
  );
  const { soort: s } = gs[0]!;
  if (TRAILS.has(s.collection))
    await Pagina.schrijfTrailsSamen(
      gs.map((g) => ({ p: g.p, trails: g.trails })),
      s.component,
    );
  for (const g of gs) await g.p.bewaar(deps);
}

/** A limited run's links to documents it has not brought yet (refused): the documents first, then the links again. */
async function koppelingenOpnieuw(r: Run, g: Gelezen, geweigerd: string[]): Promise<void> {
  const { soort: s, p, main, objecten } = g;
  if (r.run.selectie && LINKS.has(s.collection) && geweigerd.length) {
    const links = objecten.filter((l) => geweigerd.includes(String(l.url)));
    const docs = [...new Set(links.map((l) => String(l.informatieobject)))].map((u) => ({ url: u }));
    const documenten = p.telling('documenten/enkelvoudiginformatieobjecten', docs.length);
    const gelezen = await Promise.all(docs.map((d) => r.bron.get(d.url, A.ZgwObject)));
    await p.schrijf('objecten', await p.metVersies(gelezen, documenten), documenten);
    await p.schrijfTrails(await p.leesTrails(gelezen), 'documenten');
    main.mislukt -= links.length;
    p.fouten = p.fouten.filter((f) => !geweigerd.includes(f.url));
    await p.schrijf('objecten', links, main);
  }
}

/** Every object of a list (of the source, or of this platform), page by page; an answer that is no list ends the run. */
export function leesAlles(client: ZgwClient, url: string): Promise<Obj[]> {
  return client.all(url, A.ZgwObject).catch(geenLijst);
}

/** A page of the source: its objects and the next page (a plain list has none); an answer that is no list ends the run. */
async function leesPagina(client: ZgwClient, url: string): Promise<{ items: Obj[]; next: string | null }> {
  const page = await client.page(url, A.ZgwObject).catch(geenLijst);
  return { items: page.results, next: page.next };
}

/** An answer that is no ZGW list, or whose objects are not (status 200), is the source's fault: no retry mends it. */
function geenLijst(err: unknown): never {
  if (err instanceof ZgwCallError && err.status === 200)
    throw ApplicationFailure.create({ type: PERMANENT, nonRetryable: true, message: err.message });
  throw err;
}

/** What one page brings, counted per collection (kept under the page's URL, one document per collection). */
export class Pagina {
  private readonly tellingen = new Map<string, ImportTelling>();
  fouten: { url: string; reden: string }[] = [];

  constructor(
    private readonly r: Run,
    private readonly run: string,
    private readonly url: string,
  ) {}

  /** The counts of a collection on this page (made with `gelezen` objects read). */
  telling(soort: string, gelezen: number): ImportTelling {
    let t = this.tellingen.get(soort);
    if (!t) this.tellingen.set(soort, (t = legeTelling()));
    t.gelezen += gelezen;
    return t;
  }

  /** Has the API store `list` in batches; answers the URLs it refused. */
  schrijf(pad: 'objecten' | 'audittrail', list: Obj[], t: ImportTelling): Promise<string[]> {
    return Pagina.schrijfSamen(pad, [{ p: this, list, t }]);
  }

  /**
   * Has the API store the objects of one or more pages together, in batches (the API keeps the order of a batch's
   * objects that name one another, so a zaak's statussen on two pages still come one after another), each page
   * counting what became of its own. Answers the URLs refused.
   */
  static async schrijfSamen(pad: 'objecten' | 'audittrail', delen: { p: Pagina; list: Obj[]; t: ImportTelling }[]): Promise<string[]> {
    const refused: string[] = [];
    const alle = delen.flatMap((deel) => deel.list.map((o) => ({ o, deel })));
    for (const batch of chunks(alle, BATCH)) {
      const { p } = batch[0]!.deel;
      const { bron, apis, selectie, dryRun } = p.r.run;
      // (the URLs of the source's types that are here under another UUID: ours, see brengCatalogi)
      const { typen } = p.r;
      const objecten = batch.map(({ o }) => (typen.size ? (mapStrings(o, (s) => typen.get(s) ?? s) as Obj) : o));
      const body = { run: p.run, bron, apis, selectie: !!selectie, proef: dryRun, objecten };
      const { resultaten } = await p.r.hier.post(`${p.r.base}/admin/api/v1/importen/${pad}`, body, Resultaten);
      resultaten.forEach((res, i) => {
        const { deel } = batch[i]!;
        deel.t[res.uitkomst]++;
        if (res.uitkomst !== 'mislukt') return;
        refused.push(res.url);
        deel.p.fout(res.url, res.reden ?? '');
      });
    }
    return refused;
  }

  /**
   * The audit trails of zaken, documents or besluiten (a zaak's holds those of its parts), listed per object; none in
   * a dry run (an entry is kept as the source has it: nothing to check).
   */
  leesTrails(objects: Obj[]): Promise<Obj[]> {
    return this.r.run.dryRun ? Promise.resolve([]) : this.perObject(objects, (x) => `${String(x.url)}/audittrail`);
  }

  /** Has the API store audit trail entries read by leesTrails (none in a dry run). */
  schrijfTrails(trails: Obj[], component: string): Promise<void> {
    return Pagina.schrijfTrailsSamen([{ p: this, trails }], component);
  }

  /** The audit trail entries of one or more pages stored together (none in a dry run), each page counting its own. */
  static async schrijfTrailsSamen(delen: { p: Pagina; trails: Obj[] }[], component: string): Promise<void> {
    if (!delen.length || delen[0]!.p.r.run.dryRun) return;
    await Pagina.schrijfSamen(
      'audittrail',
      delen.map(({ p, trails }) => ({ p, list: trails, t: p.telling(`${component}/audittrail`, trails.length) })),
    );
  }

  /** What the source lists at `listOf(object)` for each object (its zaakeigenschappen, its audit trail), together. */
  async perObject(objects: Obj[], listOf: (o: Obj) => string): Promise<Obj[]> {
    return (await zijAanZij(objects, PARALLEL, (x) => this.r.bron.all(listOf(x), A.Ruw))).flat();
  }

  /**
   * Every version of each source document, oldest first, each with its content stored here first (`_bestand`); the
   * list shows the newest. In a dry run only read. A document with a version whose content is over the limit
   * (IMPORT_MAX_INHOUD_BYTES) is left out, counted `mislukt` with why.
   */
  async metVersies(docs: Obj[], t: ImportTelling): Promise<Obj[]> {
    return (await zijAanZij(docs, PARALLEL, (doc) => this.versiesVan(doc, t))).flat();
  }

  private async versiesVan(doc: Obj, t: ImportTelling): Promise<Obj[]> {
    const reps: Obj[] = [];
    for (let v = 1; v < (Number(doc.versie) || 1); v++) reps.push(await this.r.bron.get(`${String(doc.url)}?versie=${v}`, A.ZgwObject));
    reps.push(doc);
    const teGroot = reps.find((rep) => rep.inhoud && Number(rep.bestandsomvang) > this.r.maxInhoud);
    if (teGroot) return this.telGroot(doc, t, Number(teGroot.bestandsomvang));
    if (this.r.run.dryRun) return reps;
    const out: Obj[] = [];
    for (const rep of reps) {
      if (!rep.inhoud) {
        out.push(rep);
        continue;
      }
      const bestand = await this.overbrengen(String(rep.inhoud)).catch((err: unknown) => {
        // (more content than its bestandsomvang said: the API stopped it at the limit)
        if (err instanceof ZgwCallError && err.status === 413) return null;
        throw err;
      });
      if (!bestand) return this.telGroot(doc, t);
      t.bytes += bestand.size;
      out.push({ ...rep, _bestand: bestand });
    }
    return out;
  }

  /** A document not brought because a version's content is over the limit: counted and reported; no versions. */
  private telGroot(doc: Obj, t: ImportTelling, omvang?: number): Obj[] {
    t.mislukt++;
    const grootte = omvang ? `${omvang} bytes, ` : '';
    this.fout(String(doc.url), `inhoud-te-groot: een versie heeft meer inhoud (${grootte}grens ${this.r.maxInhoud} bytes) dan de import brengt`);
    return [];
  }

  /** Reports an object not stored, with why (the first 100 of a page). */
  fout(url: string, reden: string): void {
    if (this.fouten.length < 100) this.fouten.push({ url, reden });
  }

  /** Streams content from the source into this platform's content store (never whole in memory); the stored file. */
  private async overbrengen(url: string): Promise<z.output<typeof Opgeslagen>> {
    const bytes = await this.r.bron.download(url);
    const target = `${this.r.base}/admin/api/v1/importen/inhoud`;
    const res = await this.r.hier.fetch('PUT', target, { body: bytes, headers: { 'content-type': 'application/octet-stream' }, duplex: 'half' });
    const body: unknown = await res.json().catch(() => undefined);
    const answer = Opgeslagen.safeParse(body);
    if (!res.ok || !answer.success) throw new ZgwCallError('PUT', target, res.status, body);
    return answer.data;
  }

  /** Keeps the counts (one document per collection, under the page's URL: a retried page replaces its own). */
  async bewaar(deps: Deps): Promise<void> {
    const coll = platformDb(deps.db).collection<ImportPagina>(IMPORT_PAGINAS);
    let first = true;
    for (const [soort, telling] of this.tellingen) {
      const page: ImportPagina = { _id: `${this.run} ${this.url} ${soort}`, run: this.run, soort, telling, fouten: first ? this.fouten : [] };
      first = false;
      await coll.replaceOne({ _id: page._id }, page, { upsert: true });
    }
    observeImport(this.tellingen);
    const mislukt = [...this.tellingen.values()].reduce((n, t) => n + t.mislukt, 0);
    if (mislukt) deps.log.warn({ run: this.run, page: this.url, mislukt, eerste: this.fouten[0]?.reden }, 'import: objects not stored');
  }
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
