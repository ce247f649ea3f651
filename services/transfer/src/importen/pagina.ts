import { ApplicationFailure } from '@temporalio/activity';
import { z } from 'zod';
import {
  IMPORT_OBJECTEN,
  IMPORT_PAGINAS,
  IMPORT_SOORTEN,
  bronSleutel,
  ZgwCallError,
  ZgwClient,
  bronApi,
  legeTelling,
  mapStrings,
  platformDb,
  soortKey,
  zgwUrl,
  zijAanZij,
  type ImportObject,
  type ImportOpdracht,
  type ImportPagina,
  type ImportSoort,
  type ImportTelling,
} from '@zgw/shared';
import * as A from '../common/antwoorden';
import { PERMANENT, uuidOf, type Deps } from '../common/context';
import { observeImport } from '../common/metrics';
import { BronFout, inhoudVan, type BronPagina } from './bron';
import { openRun, type Run } from './run';

/** What the API answers per object of a batch (admin/importen.ts). */
const Resultaten = z.object({
  resultaten: z.array(
    z.object({
      url: z.string(),
      uitkomst: z.enum(['nieuw', 'bijgewerkt', 'bezet', 'mislukt', 'overgeslagen']),
      reden: z.string().optional(),
      hier: z.string().optional(),
    }),
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
/**
 * Reads of the source started at once within a page (a zaak's eigenschappen, a document's versions); the run's own
 * bound on requests under way at the source (Bron, `--gelijktijdig`) holds them to its pace.
 */
const PARALLEL = 16;
/** A document version's content read from its start at most this often when its stream breaks off (Pagina.overbrengen). */
const INHOUD_POGINGEN = 3;

/**
 * Where collection `soort` starts at the source: its list. A limited run asks the source for what it brings with the
 * source's own filters: its zaken by zaaktype (each version's URL), startdatum and bronorganisatie, and for the parts
 * of a zaak, its besluiten and their documents' gebruiksrechten and verzendingen those same lists of zaken, each page
 * of zaken read again for the parts of its zaken (delenVanZaken); no documents of their own (a limited run brings the
 * documents its zaken and besluiten link, with those links).
 */
export async function startPaginas(deps: Deps, o: ImportOpdracht, soort: number): Promise<string[]> {
  const { run, bron } = await openRun(deps, o);
  const s = IMPORT_SOORTEN[soort]!;
  const lijst = `${bronApi(run, s.component)}/${s.collection}`;
  if (!run.selectie) return [lijst];
  if (s.collection === 'enkelvoudiginformatieobjecten') return [];
  const { zaaktypen, vanaf, tot, bronorganisatie } = run.selectie;
  const range = { startdatum__gte: vanaf, startdatum__lte: tot, bronorganisatie };
  const zaken = (q: Record<string, string | undefined>) => zgwUrl(bronApi(run, 'zaken'), 'zaken', q);
  if (!zaaktypen.length) return [zaken(range)];
  const urls: string[] = [];
  for (const identificatie of zaaktypen) {
    const versies = await bron.all(zgwUrl(bronApi(run, 'catalogi'), 'zaaktypen', { identificatie, status: 'alles' }), A.ZgwObject);
    for (const zt of versies) urls.push(zaken({ zaaktype: zt.url, ...range }));
  }
  await bron.bewaarTempo();
  return urls;
}

/** The parts of a zaak the Zaken API lists by `zaak` (zrc-023: they go with their zaak). */
export const ZAAK_DELEN = [
  'rollen',
  'statussen',
  'resultaten',
  'zaakobjecten',
  'klantcontacten',
  'zaakcontactmomenten',
  'zaakverzoeken',
  'zaakinformatieobjecten',
] as const;

/** What a limited run reads of its zaken per collection: the list, and the field that names the zaak. */
const PER_ZAAK: ReadonlySet<string> = new Set([...ZAAK_DELEN, 'besluiten']);

/** Whether `url` is a list of the source's zaken (a limited run's page of zaken, whose parts a page of another collection brings). */
const isZakenLijst = (url: string): boolean => {
  try {
    return /\/zaken\/?$/.test(new URL(url).pathname);
  } catch {
    return false;
  }
};

/** The same URL in either form (with or without a trailing slash). */
const zelfde = (a: unknown, b: string): boolean => typeof a === 'string' && a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/**
 * A limited run's page of collection `s`: the objects of the zaken on the page of zaken at `url`, each list asked
 * for with the source's filter (the parts of a zaak and its besluiten by `zaak`, a besluit's documents by `besluit`,
 * the gebruiksrechten and verzendingen of the documents the zaak and its besluiten link by `informatieobject`). An
 * object the source lists that is not of the one asked for is left out (a source that does not know a filter lists
 * everything); a list that cannot be read is reported as that list's failure.
 */
async function delenVanZaken(r: Run, s: ImportSoort, url: string): Promise<BronPagina> {
  const zaken = await r.bron.pagina(url);
  const onleesbaar: BronPagina['onleesbaar'] = [];
  const per = async (component: ImportSoort['component'], collection: string, veld: string, waarden: string[]): Promise<A.ZgwObject[]> => {
    const lijsten = await zijAanZij(waarden, PARALLEL, async (waarde) => {
      const lijst = zgwUrl(bronApi(r.run, component), collection, { [veld]: waarde });
      try {
        return (await r.bron.lijstVan(lijst, A.ZgwObject)).filter((o) => zelfde(o[veld], waarde));
      } catch (err) {
        if (!(err instanceof BronFout)) throw err;
        onleesbaar.push({ url: lijst, reden: err.message });
        return [];
      }
    });
    const uniek = new Map<string, A.ZgwObject>();
    for (const o of lijsten.flat()) uniek.set(o.url.replace(/\/+$/, ''), o);
    return [...uniek.values()];
  };
  const zaakUrls = zaken.items.map((z) => z.url);
  const urls = (list: A.ZgwObject[], veld: string) => [...new Set(list.map((o) => o[veld]).filter((u): u is string => typeof u === 'string' && !!u))];
  const besluiten = () => per('besluiten', 'besluiten', 'zaak', zaakUrls);
  let items: A.ZgwObject[];
  if (PER_ZAAK.has(s.collection)) items = await per(s.component, s.collection, 'zaak', zaakUrls);
  else if (s.collection === 'besluitinformatieobjecten') items = await per('besluiten', s.collection, 'besluit', urls(await besluiten(), 'url'));
  else {
    const [zios, bios] = await Promise.all([
      per('zaken', 'zaakinformatieobjecten', 'zaak', zaakUrls),
      besluiten().then((b) => per('besluiten', 'besluitinformatieobjecten', 'besluit', urls(b, 'url'))),
    ]);
    items = await per(s.component, s.collection, 'informatieobject', urls([...zios, ...bios], 'informatieobject'));
  }
  return { items, next: zaken.next, onleesbaar };
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
      // (a limited run's page of another collection than zaken is a page of its zaken: delenVanZaken)
      const s = IMPORT_SOORTEN[soort]!;
      const perZaak = !!r.run.selectie && s.collection !== 'zaken' && isZakenLijst(at);
      const lijst = await (perZaak ? delenVanZaken(r, s, at) : r.bron.pagina(at));
      next = lijst.next;
      const page = lees(r, o, soort, perZaak ? `${s.collection} ${at}` : at, lijst);
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
  } finally {
    await r.bron.bewaarTempo();
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
export function naastElkaar(collection: string, objecten: A.Ruw[]): boolean {
  if (collection === 'zaken' || collection === 'enkelvoudiginformatieobjecten') return false;
  return collection !== 'statussen' || objecten.every((st) => typeof st.indicatieLaatstGezetteStatus === 'boolean');
}

/** A page of the source as read: its objects with what belongs to them, to be stored. */
interface Gelezen {
  soort: ImportSoort;
  p: Pagina;
  main: ImportTelling;
  /** What is stored of the page's objects: a document's versions oldest first, each with its content here already. */
  objecten: A.ZgwObject[];
  eigenschappen: A.Ruw[];
  trails: A.Ruw[];
}

/**
 * Reads what belongs to the objects of one page of a collection (a list or a paginated page, kept under `url`): a
 * zaak's zaakeigenschappen; a document's earlier versions, each version's content streamed here; the audit trails of
 * zaken, documents and besluiten. What cannot be read of one object is that object's failure (see Pagina); an entry of
 * the list that is no object is reported as one.
 */
async function lees(r: Run, o: ImportOpdracht, soort: number, url: string, lijst: BronPagina): Promise<Gelezen> {
  const s = IMPORT_SOORTEN[soort]!;
  const p = new Pagina(r, o.run, url);
  const { items } = lijst;
  const main = p.telling(soortKey(s), items.length + lijst.onleesbaar.length);
  for (const f of lijst.onleesbaar) {
    main.mislukt++;
    p.fout(f.url, f.reden);
  }
  // a limited run brings only the besluiten of its zaken
  const mee = r.run.selectie && s.collection === 'besluiten' ? items.filter((b) => b.zaak) : items;
  main.overgeslagen += items.length - mee.length;
  // (the documents a limited run's links name: its verification compares those)
  if (r.run.selectie && LINKS.has(s.collection)) p.documenten = [...new Set(mee.map((l) => String(l.informatieobject)))];
  const [objecten, eigenschappen, trails] = await Promise.all([
    s.collection === 'enkelvoudiginformatieobjecten' ? p.metVersies(mee, main) : mee,
    // (a zaak that lists no eigenschappen has none to read)
    s.collection === 'zaken'
      ? p.perObject(
          mee.filter((z) => !Array.isArray(z.eigenschappen) || z.eigenschappen.length),
          (z) => `${bronApi(r.run, 'zaken')}/zaken/${uuidOf(String(z.url))}/zaakeigenschappen`,
          'zaken/zaakeigenschappen',
        )
      : [],
    TRAILS.has(s.collection) ? p.leesTrails(mee, s.component) : [],
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
    // (each read in its turn; one that cannot be read is that document's failure, and its links are refused again)
    const gelezen = (await zijAanZij(docs, PARALLEL, (d) => p.leesObject(d.url, documenten))).filter((d) => d !== null);
    await p.schrijf('objecten', await p.metVersies(gelezen, documenten), documenten);
    await p.schrijfTrails(await p.leesTrails(gelezen, 'documenten'), 'documenten');
    main.mislukt -= links.length;
    p.fouten = p.fouten.filter((f) => !geweigerd.includes(f.url));
    await p.schrijf('objecten', links, main);
  }
}

/** Every object of a list (of the source, or of this platform), page by page; an answer that is no list ends the run. */
export function leesAlles(client: Pick<ZgwClient, 'all'>, url: string): Promise<A.ZgwObject[]> {
  return client.all(url, A.ZgwObject).catch(geenLijst);
}

/** An answer that is no ZGW list, or whose objects are not (status 200), is the source's fault: no retry mends it. */
function geenLijst(err: unknown): never {
  if (err instanceof ZgwCallError && err.status === 200)
    throw ApplicationFailure.create({ type: PERMANENT, nonRetryable: true, message: err.message });
  throw err;
}

/** Why a read of the source failed, for the run's failures. */
const reden = (err: BronFout): string => err.message;

/** What one page brings, counted per collection (kept under the page's URL, one document per collection). */
export class Pagina {
  private readonly tellingen = new Map<string, ImportTelling>();
  fouten: { url: string; reden: string }[] = [];
  /** A limited run's links: the documents they name (kept with the page, for the verification). */
  documenten?: string[];

  constructor(
    private readonly r: Run,
    private readonly run: string,
    private readonly url: string,
  ) {}

  /** What the page read of the source and brought, per object (ImportObject; kept with the page's counts). */
  private readonly objecten = new Map<string, ImportObject>();

  /** An object of the source the API was given, and what became of it: kept in the run's register (IMPORT_OBJECTEN). */
  gezien(o: A.Ruw, res: { url: string; uitkomst: string; hier?: string }): void {
    const bron = String(o.url ?? res.url);
    const key = bronSleutel(bron);
    if (!key) return;
    const gebracht = !this.r.run.dryRun && (res.uitkomst === 'nieuw' || res.uitkomst === 'bijgewerkt') && !!res.hier;
    const eerder = this.objecten.get(key);
    const naam = (f: string) => (typeof o[f] === 'string' && o[f] ? { [f]: bronSleutel(o[f]) } : {});
    const soort = soortVanUrl(key);
    const zaak = soort === 'zaken/zaken';
    const record: ImportObject = {
      _id: `${this.run} ${key}`,
      run: this.run,
      soort,
      bron,
      ...(gebracht ? { hier: res.hier } : eerder?.hier ? { hier: eerder.hier } : {}),
      ...(zaak ? {} : naam('zaak')),
      ...naam('besluit'),
      ...naam('informatieobject'),
      ...(zaak ? { ...naam('zaaktype'), ...(typeof o.startdatum === 'string' ? { startdatum: o.startdatum } : {}) } : {}),
      ...(zaak && typeof o.bronorganisatie === 'string' ? { bronorganisatie: o.bronorganisatie } : {}),
    };
    this.objecten.set(key, record);
  }

  /** The counts of a collection on this page (made with `gelezen` objects read). */
  telling(soort: string, gelezen: number): ImportTelling {
    let t = this.tellingen.get(soort);
    if (!t) this.tellingen.set(soort, (t = legeTelling()));
    t.gelezen += gelezen;
    return t;
  }

  /** Has the API store `list` in batches; answers the URLs it refused. */
  schrijf(pad: 'objecten' | 'audittrail', list: A.Ruw[], t: ImportTelling): Promise<string[]> {
    return Pagina.schrijfSamen(pad, [{ p: this, list, t }]);
  }

  /**
   * Has the API store the objects of one or more pages together, in batches (the API keeps the order of a batch's
   * objects that name one another, so a zaak's statussen on two pages still come one after another), each page
   * counting what became of its own. Answers the URLs refused.
   */
  static async schrijfSamen(pad: 'objecten' | 'audittrail', delen: { p: Pagina; list: A.Ruw[]; t: ImportTelling }[]): Promise<string[]> {
    const refused: string[] = [];
    const alle = delen.flatMap((deel) => deel.list.map((o) => ({ o, deel })));
    for (const batch of chunks(alle, BATCH)) {
      const { p } = batch[0]!.deel;
      const { bron, apis, selectie, dryRun } = p.r.run;
      // (the URLs of the source's types that are here under another UUID: ours, see brengCatalogi)
      const { typen } = p.r;
      const objecten = batch.map(({ o }) => (typen.size ? mapStrings(o, (s) => typen.get(s) ?? s) : o));
      const body = { run: p.run, bron, apis, selectie: !!selectie, proef: dryRun, objecten };
      const { resultaten } = await p.r.hier.post(`${p.r.base}/admin/api/v1/importen/${pad}`, body, Resultaten);
      resultaten.forEach((res, i) => {
        const { deel, o } = batch[i]!;
        deel.t[res.uitkomst]++;
        if (pad === 'objecten') deel.p.gezien(o, res);
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
  leesTrails(objects: A.ZgwObject[], component: string): Promise<A.Ruw[]> {
    if (this.r.run.dryRun) return Promise.resolve([]);
    return this.perObject(objects, (x) => `${x.url.replace(/\/+$/, '')}/audittrail`, `${component}/audittrail`);
  }

  /** Has the API store audit trail entries read by leesTrails (none in a dry run). */
  schrijfTrails(trails: A.Ruw[], component: string): Promise<void> {
    return Pagina.schrijfTrailsSamen([{ p: this, trails }], component);
  }

  /** The audit trail entries of one or more pages stored together (none in a dry run), each page counting its own. */
  static async schrijfTrailsSamen(delen: { p: Pagina; trails: A.Ruw[] }[], component: string): Promise<void> {
    if (!delen.length || delen[0]!.p.r.run.dryRun) return;
    await Pagina.schrijfSamen(
      'audittrail',
      delen.map(({ p, trails }) => ({ p, list: trails, t: p.telling(`${component}/audittrail`, trails.length) })),
    );
  }

  /**
   * What the source lists at `listOf(object)` for each object (its zaakeigenschappen, its audit trail), together; a
   * 404 is an empty list (Open Zaak's answer for an empty trail), a list that cannot be read is counted `mislukt` in
   * `soort` with why (the object itself is stored).
   */
  async perObject(objects: A.ZgwObject[], listOf: (o: A.ZgwObject) => string, soort: string): Promise<A.Ruw[]> {
    const lists = await zijAanZij(objects, PARALLEL, async (x) => {
      const url = listOf(x);
      try {
        return await this.r.bron.lijstVan(url, A.Ruw);
      } catch (err) {
        if (!(err instanceof BronFout)) throw err;
        this.telling(soort, 1).mislukt++;
        this.fout(url, reden(err));
        return [];
      }
    });
    return lists.flat();
  }

  /** The object at `url` of the source, or null when it cannot be read (counted `mislukt` in `t` with why). */
  async leesObject(url: string, t: ImportTelling): Promise<A.ZgwObject | null> {
    try {
      return await this.r.bron.get(url, A.ZgwObject);
    } catch (err) {
      if (!(err instanceof BronFout)) throw err;
      t.mislukt++;
      this.fout(url, reden(err));
      return null;
    }
  }

  /**
   * Every version of each source document, oldest first, each with its content stored here first (`_bestand`); the
   * list shows the newest. In a dry run only read. A document with a version whose content is over the limit
   * (IMPORT_MAX_INHOUD_BYTES) is left out, counted `mislukt` with why.
   */
  async metVersies(docs: A.ZgwObject[], t: ImportTelling): Promise<A.ZgwObject[]> {
    return (await zijAanZij(docs, PARALLEL, (doc) => this.versiesVan(doc, t))).flat();
  }

  /** A document's versions (versiesUit); one that cannot be read whole from the source is that document's failure. */
  private async versiesVan(doc: A.ZgwObject, t: ImportTelling): Promise<A.ZgwObject[]> {
    try {
      return await this.versiesUit(doc, t);
    } catch (err) {
      if (!(err instanceof BronFout)) throw err;
      t.mislukt++;
      this.fout(doc.url, reden(err));
      return [];
    }
  }

  private async versiesUit(doc: A.ZgwObject, t: ImportTelling): Promise<A.ZgwObject[]> {
    const reps: A.ZgwObject[] = [];
    for (let v = 1; v < (Number(doc.versie) || 1); v++) reps.push(await this.r.bron.get(`${String(doc.url)}?versie=${v}`, A.ZgwObject));
    reps.push(doc);
    const teGroot = reps.find((rep) => rep.inhoud && Number(rep.bestandsomvang) > this.r.maxInhoud);
    if (teGroot) return this.telGroot(doc, t, Number(teGroot.bestandsomvang));
    if (this.r.run.dryRun) return reps;
    const out: A.ZgwObject[] = [];
    for (const rep of reps) {
      if (!rep.inhoud) {
        out.push(rep);
        continue;
      }
      const bestand = await this.overbrengen(inhoudVan(rep)).catch((err: unknown) => {
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
  private telGroot(doc: A.ZgwObject, t: ImportTelling, omvang?: number): A.ZgwObject[] {
    t.mislukt++;
    const grootte = omvang ? `${omvang} bytes, ` : '';
    this.fout(String(doc.url), `inhoud-te-groot: een versie heeft meer inhoud (${grootte}grens ${this.r.maxInhoud} bytes) dan de import brengt`);
    return [];
  }

  /** Reports an object not stored, with why (the first 100 of a page). */
  fout(url: string, reden: string): void {
    if (this.fouten.length < 100) this.fouten.push({ url, reden });
  }

  /**
   * Streams content from the source into this platform's content store (never whole in memory); the stored file. A
   * stream that breaks off is read again from its start, at most INHOUD_POGINGEN times in all (Bron's retries are per
   * request, and a stream cannot go on where it broke); then it is a BronFout (the document's failure).
   */
  private async overbrengen(url: string): Promise<z.output<typeof Opgeslagen>> {
    const target = `${this.r.base}/admin/api/v1/importen/inhoud`;
    for (let poging = 1; ; poging++) {
      let gebroken: BronFout | undefined;
      const bron = (await this.r.bron.download(url)).getReader();
      const body = new ReadableStream<Uint8Array>({
        pull: async (c) => {
          try {
            const part = await bron.read();
            if (part.done) c.close();
            else c.enqueue(part.value);
          } catch (err) {
            gebroken = err instanceof BronFout ? err : new BronFout('GET', url, 0, { detail: String((err as Error).message) });
            c.error(gebroken);
          }
        },
        cancel: (reason) => bron.cancel(reason),
      });
      try {
        const res = await this.r.hier.fetch('PUT', target, { body, headers: { 'content-type': 'application/octet-stream' }, duplex: 'half' });
        const answer = Opgeslagen.safeParse(await res.json().catch(() => undefined));
        if (!gebroken && res.ok && answer.success) return answer.data;
        if (!gebroken) throw new ZgwCallError('PUT', target, res.status, answer.success ? undefined : answer.error.message);
      } catch (err) {
        if (!gebroken) throw err;
      }
      if (poging >= INHOUD_POGINGEN) throw gebroken;
    }
  }

  /** Keeps the counts (one document per collection, under the page's URL: a retried page replaces its own). */
  async bewaar(deps: Deps): Promise<void> {
    const coll = platformDb(deps.db).collection<ImportPagina>(IMPORT_PAGINAS);
    let first = true;
    for (const [soort, telling] of this.tellingen) {
      const page: ImportPagina = { _id: `${this.run} ${this.url} ${soort}`, run: this.run, soort, telling, fouten: first ? this.fouten : [] };
      if (first && this.documenten) page.documenten = this.documenten;
      first = false;
      await coll.replaceOne({ _id: page._id }, page, { upsert: true });
    }
    if (this.objecten.size)
      await platformDb(deps.db)
        .collection<ImportObject>(IMPORT_OBJECTEN)
        .bulkWrite(
          [...this.objecten.values()].map((o) => ({ replaceOne: { filter: { _id: o._id }, replacement: o, upsert: true } })),
          { ordered: false },
        );
    observeImport(this.tellingen);
    const mislukt = [...this.tellingen.values()].reduce((n, t) => n + t.mislukt, 0);
    if (mislukt) deps.log.warn({ run: this.run, page: this.url, mislukt, eerste: this.fouten[0]?.reden }, 'import: objects not stored');
  }
}

/** The collection of a source URL (`documenten/enkelvoudiginformatieobjecten`, `zaken/zaakeigenschappen` ...). */
export function soortVanUrl(url: string): string {
  const segments = bronSleutel(url).split('/');
  const collection = segments[segments.length - 2] ?? '';
  if (collection === 'zaakeigenschappen') return 'zaken/zaakeigenschappen';
  const s = IMPORT_SOORTEN.find((x) => x.collection === collection);
  return s ? soortKey(s) : collection;
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
