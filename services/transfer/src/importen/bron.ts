import { setTimeout as wacht } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/activity';
import type { z } from 'zod';
import {
  IMPORT_GELIJKTIJDIG,
  IMPORTEN_COLLECTION,
  ZgwCallError,
  platformDb,
  scrub,
  type BronTempo,
  type StoredImport,
  type ZgwClient,
} from '@zgw/shared';
import * as A from '../common/antwoorden';
import { PERMANENT, attemptSignal, type Deps } from '../common/context';

/** The timeout of a request: 5 x the source's p95 latency, within these bounds (unless the run sets its own). */
const TIMEOUT_MIN_MS = 10_000;
const TIMEOUT_MAX_MS = 120_000;
/** Latencies kept for the p95 (the last ones), and how many it needs before it decides the timeout. */
const LATENCIES = 500;
const P95_NA = 20;
/** The window requests per second are counted over. */
const RPS_WINDOW_MS = 10_000;
/** The longest wait between two attempts of a request. */
const BACKOFF_MAX_MS = 30_000;
/** How often the pace is kept with the run (the progress shows it). */
const BEWAAR_MS = 2_000;

/**
 * A request to the source that failed for the object it reads (after its retries, or a 4xx): that object's failure,
 * not the run's. A ZgwCallError, so what asks for a status (404: none) still sees it.
 */
export class BronFout extends ZgwCallError {}

/**
 * Where a document version's content is read: its `inhoud`, with the `versie` its query names made the version's own.
 * Open Zaak 1.21.0's list gives every document the `inhoud` of the list's first, `?versie=` included (a document of one
 * version then names `download?versie=3`, a 404): the version is the document's own `versie`, never the list's.
 */
export function inhoudVan(rep: A.Ruw): string {
  const inhoud = String(rep.inhoud);
  const versie = Number(rep.versie);
  if (!Number.isInteger(versie) || versie < 1) return inhoud;
  try {
    const url = new URL(inhoud);
    if (!url.searchParams.has('versie') || url.searchParams.get('versie') === String(versie)) return inhoud;
    url.searchParams.set('versie', String(versie));
    return url.toString();
  } catch {
    return inhoud;
  }
}

/**
 * The pace of one run's source in this worker (every activity of the run shares it): at most `gelijktijdig` requests
 * under way (the others wait their turn, first come first served), the latencies of the last answers, the timeout
 * that follows from them, and when the source last answered at all.
 */
class Tempo {
  private bezig = 0;
  private readonly wachtrij: (() => void)[] = [];
  private readonly duren: number[] = [];
  private readonly tijden: number[] = [];
  verzoeken = 0;
  /** When the source last answered (anything below 500), or when this run began here. */
  laatsteAntwoord = Date.now();
  gebruikt = Date.now();
  bewaard = 0;

  constructor(
    readonly gelijktijdig: number,
    private readonly vast: number | undefined,
  ) {}

  /** A turn to send a request; the function given back ends it (once). */
  async beurt(): Promise<() => void> {
    this.gebruikt = Date.now();
    if (this.bezig >= this.gelijktijdig) await new Promise<void>((r) => this.wachtrij.push(r));
    else this.bezig++;
    let vrij = false;
    return () => {
      if (vrij) return;
      vrij = true;
      const next = this.wachtrij.shift();
      if (next) next();
      else this.bezig--;
    };
  }

  /** A request answered after `ms`. */
  meet(ms: number, antwoord: boolean): void {
    this.verzoeken++;
    const now = Date.now();
    this.gebruikt = now;
    if (antwoord) this.laatsteAntwoord = now;
    this.duren.push(ms);
    if (this.duren.length > LATENCIES) this.duren.shift();
    this.tijden.push(now);
    while (this.tijden.length && this.tijden[0]! < now - RPS_WINDOW_MS) this.tijden.shift();
  }

  p95(): number | null {
    if (!this.duren.length) return null;
    const sorted = [...this.duren].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))]!;
  }

  /** The run's own timeout, else min(120 s, max(10 s, 5 x p95)); until enough answers tell the p95, 120 s. */
  timeoutMs(): number {
    if (this.vast) return this.vast;
    const p95 = this.duren.length >= P95_NA ? this.p95() : null;
    return p95 === null ? TIMEOUT_MAX_MS : Math.min(TIMEOUT_MAX_MS, Math.max(TIMEOUT_MIN_MS, 5 * p95));
  }

  voortgang(): BronTempo {
    const now = Date.now();
    const recent = this.tijden.filter((t) => t >= now - RPS_WINDOW_MS);
    const span = recent.length ? Math.max(1000, now - recent[0]!) : RPS_WINDOW_MS;
    return {
      verzoeken: this.verzoeken,
      verzoekenPerSeconde: Math.round((recent.length / span) * 10_000) / 10,
      p95Ms: this.p95(),
      timeoutMs: this.timeoutMs(),
      gelijktijdig: this.gelijktijdig,
      wachtend: this.wachtrij.length,
      bijgewerkt: new Date(now),
    };
  }
}

/** The pace of each run under way in this worker, by run (dropped an hour after its last request). */
const tempi = new Map<string, Tempo>();

function tempoVan(run: StoredImport): Tempo {
  const now = Date.now();
  for (const [id, t] of tempi) if (id !== run._id && now - t.gebruikt > 3_600_000) tempi.delete(id);
  let t = tempi.get(run._id);
  if (!t) tempi.set(run._id, (t = new Tempo(run.gelijktijdig ?? IMPORT_GELIJKTIJDIG, run.timeoutSeconden ? run.timeoutSeconden * 1000 : undefined)));
  return t;
}

/** The page of a list as read by `Bron.pagina`: its objects, the next page, and the entries that are no object. */
export interface BronPagina {
  items: A.ZgwObject[];
  next: string | null;
  onleesbaar: { url: string; reden: string }[];
}

/**
 * The source of a run as the import reads it (docs/moving-in.md): each request in its turn (at most the run's
 * `gelijktijdig` at once), with a timeout from the source's own latencies, tried again on its own with backoff while
 * it fails for want of an answer (no answer, a timeout, 5xx, 429) for up to IMPORT_BRON_RETRY_SECONDS; then it fails
 * for its object (BronFout), unless the source has answered nothing for that long: then the run ends. A source that
 * refuses the credentials (401, or 403 on a list) ends the run.
 */
export class Bron {
  private readonly tempo: Tempo;
  private readonly retryMs: number;

  constructor(
    private readonly deps: Deps,
    private readonly run: StoredImport,
    private readonly client: ZgwClient,
  ) {
    this.tempo = tempoVan(run);
    this.retryMs = deps.config.IMPORT_BRON_RETRY_SECONDS * 1000;
  }

  /** The object at `url`, parsed with `schema` (an answer that does not fit: a BronFout). */
  async get<S extends z.ZodType>(url: string, schema: S): Promise<z.output<S>> {
    const body = await this.json(url, false);
    const r = schema.safeParse(body);
    if (!r.success) throw new BronFout('GET', url, 200, { detail: 'het antwoord voldoet niet aan de standaard', invalidParams: issues(r.error) });
    return r.data;
  }

  /** One page of a list (or a list without pages), each entry parsed with `item`; an entry that does not fit fails the page. */
  async page<S extends z.ZodType>(url: string, item: S): Promise<{ results: z.output<S>[]; next: string | null }> {
    const p = await this.pagina(url);
    const bad = p.onleesbaar[0];
    if (bad) throw new BronFout('GET', url, 200, { detail: bad.reden });
    const results = p.items.map((x, i) => {
      const r = item.safeParse(x);
      if (!r.success)
        throw new BronFout('GET', url, 200, {
          detail: 'het antwoord voldoet niet aan de standaard',
          invalidParams: issues(r.error, `results.${i}.`),
        });
      return r.data as z.output<S>;
    });
    return { results, next: p.next };
  }

  /** Every entry of a list, page by page (see page). */
  async all<S extends z.ZodType>(url: string, item: S): Promise<z.output<S>[]> {
    const out: z.output<S>[] = [];
    for (let next: string | null = url; next;) {
      const p: { results: z.output<S>[]; next: string | null } = await this.page(next, item);
      out.push(...p.results);
      next = p.next;
    }
    return out;
  }

  /**
   * One page of a list, read liberally: a paginated page with or without `count`, or a plain array; an entry that is
   * no object with a URL is left out and reported (onleesbaar). An answer that is no list ends the run (status 200: no
   * retry mends it).
   */
  async pagina(url: string): Promise<BronPagina> {
    const body = await this.json(url, true);
    const page = Array.isArray(body) ? { results: body, next: null } : (body as { results?: unknown; next?: unknown } | undefined);
    if (!page || typeof page !== 'object' || !Array.isArray(page.results))
      throw ApplicationFailure.create({
        type: PERMANENT,
        nonRetryable: true,
        message: new ZgwCallError('GET', url, 200, { detail: 'het antwoord is geen ZGW-lijst' }).message,
      });
    const items: A.ZgwObject[] = [];
    const onleesbaar: BronPagina['onleesbaar'] = [];
    (page.results as unknown[]).forEach((x, i) => {
      const item = A.ZgwObject.safeParse(x);
      if (item.success) items.push(item.data);
      else onleesbaar.push({ url: `${url}#results.${i}`, reden: 'onleesbaar: een object zonder url' });
    });
    return { items, next: typeof page.next === 'string' && page.next ? page.next : null, onleesbaar };
  }

  /**
   * Every entry of a list that belongs to one object (its audit trail, its zaakeigenschappen) that fits `item` (one that
   * does not is left out); a 404 is an empty list.
   */
  async lijstVan<S extends z.ZodType>(url: string, item: S): Promise<z.output<S>[]> {
    const out: z.output<S>[] = [];
    for (let next: string | null = url; next;) {
      let body: unknown;
      try {
        body = await this.json(next, false);
      } catch (err) {
        // (Open Zaak answers 404 for the trail of an object that has no entries)
        if (err instanceof BronFout && err.status === 404 && next === url) return [];
        throw err;
      }
      const page = Array.isArray(body) ? { results: body, next: null } : (body as { results?: unknown; next?: unknown } | undefined);
      if (!page || !Array.isArray(page.results)) throw new BronFout('GET', next, 200, { detail: 'het antwoord is geen ZGW-lijst' });
      for (const x of page.results as unknown[]) {
        const entry = item.safeParse(x);
        if (entry.success) out.push(entry.data);
      }
      next = typeof page.next === 'string' && page.next ? page.next : null;
    }
    return out;
  }

  /**
   * The content at `url` as a stream (never whole in memory), its turn held until the stream ends; the timeout is
   * the wait for the answer and for each next part of it. A stream that breaks off errors with a BronFout.
   */
  async download(url: string): Promise<ReadableStream<Uint8Array>> {
    return this.poog<ReadableStream<Uint8Array>>(url, false, async (vrij, signal, klaar, afbreken) => {
      const res = await fetch(url, { headers: this.headers(), signal });
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        klaar(res.status < 500);
        let problem: unknown;
        try {
          problem = JSON.parse(text);
        } catch {
          problem = { detail: text.slice(0, 200) };
        }
        return { status: res.status, problem };
      }
      klaar(true);
      const reader = res.body.getReader();
      const timeoutMs = this.tempo.timeoutMs();
      let idle: NodeJS.Timeout | undefined;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => afbreken(), timeoutMs);
      };
      const einde = () => {
        clearTimeout(idle);
        vrij();
      };
      arm();
      const stream = new ReadableStream<Uint8Array>({
        pull: async (c) => {
          try {
            const part = await reader.read();
            if (part.done) {
              einde();
              c.close();
            } else {
              arm();
              c.enqueue(part.value);
            }
          } catch (err) {
            einde();
            c.error(new BronFout('GET', url, 0, { detail: `de inhoud brak af: ${(err as Error).message}` }));
          }
        },
        cancel: async (reason) => {
          einde();
          await reader.cancel(reason).catch(() => undefined);
        },
      });
      return { stream };
    });
  }

  /** Keeps the source's pace with the run (now, or when it was last kept longer ago than BEWAAR_MS). */
  async bewaarTempo(nu = true): Promise<void> {
    if (!nu && Date.now() - this.tempo.bewaard < BEWAAR_MS) return;
    this.tempo.bewaard = Date.now();
    await platformDb(this.deps.db)
      .collection<StoredImport>(IMPORTEN_COLLECTION)
      .updateOne({ _id: this.run._id }, { $set: { tempo: this.tempo.voortgang() } })
      .catch((err: unknown) => this.deps.log.warn({ err, run: this.run._id }, 'import: the pace of the source not kept'));
  }

  private headers(): Record<string, string> {
    return { authorization: `Bearer ${this.client.token()}`, 'accept-crs': 'EPSG:4326', 'content-crs': 'EPSG:4326' };
  }

  /** A JSON answer (retried as `poog` says). `lijst`: a list of the source, whose 403 is a refusal of the credentials. */
  private json(url: string, lijst: boolean): Promise<unknown> {
    return this.poog(url, lijst, async (vrij, signal, klaar) => {
      try {
        const res = await fetch(url, { headers: this.headers(), signal });
        const text = await res.text();
        klaar(res.status < 500);
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // (a 200 that is no JSON is no ZGW answer: pagina and get say so, no retry mends it)
          body = res.ok ? undefined : { detail: text.slice(0, 200) };
        }
        return res.ok ? { stream: body } : { status: res.status, problem: body };
      } finally {
        vrij();
      }
    });
  }

  /**
   * One request in its turn, tried again while it fails for want of an answer (see the class). `doe` sends it once:
   * answers the result, or the status and problem of an answer that is no success; it calls `klaar` when the answer
   * came (whether it counts as one: below 500) and frees its turn with `vrij` (a stream when it ends).
   */
  private async poog<T>(
    url: string,
    lijst: boolean,
    doe: (
      vrij: () => void,
      signal: AbortSignal,
      klaar: (antwoord: boolean) => void,
      afbreken: () => void,
    ) => Promise<{ stream: T } | { status: number; problem: unknown }>,
  ): Promise<T> {
    const begin = Date.now();
    for (let poging = 0; ; poging++) {
      const outer = attemptSignal();
      const vrij = await this.tempo.beurt();
      const timeoutMs = this.tempo.timeoutMs();
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), timeoutMs);
      const signal = outer ? AbortSignal.any([ctrl.signal, outer]) : ctrl.signal;
      const start = Date.now();
      let gemeten = false;
      const klaar = (antwoord: boolean) => {
        clearTimeout(timer);
        if (!gemeten) this.tempo.meet(Date.now() - start, antwoord);
        gemeten = true;
      };
      let fout: BronFout;
      try {
        if (outer?.aborted) throw new ZgwCallError('GET', url, 0, { detail: 'afgebroken: deze poging is niet meer de lopende' });
        const r = await doe(vrij, signal, klaar, () => ctrl.abort());
        if ('stream' in r) return r.stream;
        fout = new BronFout('GET', url, r.status, r.problem);
        if (r.status === 401 || (r.status === 403 && lijst))
          throw ApplicationFailure.create({ type: PERMANENT, nonRetryable: true, message: `${fout.message}: de bron weigert de inloggegevens` });
        if (!fout.technisch) throw fout;
      } catch (err) {
        clearTimeout(timer);
        if (err instanceof BronFout || err instanceof ApplicationFailure) {
          vrij();
          throw err;
        }
        vrij();
        if (outer?.aborted) throw err;
        klaar(false);
        const timedOut = ctrl.signal.aborted;
        fout = new BronFout('GET', url, 0, { detail: timedOut ? `geen antwoord binnen ${timeoutMs / 1000} s` : scrub((err as Error).message) });
      }
      vrij();
      const pauze = Math.min(BACKOFF_MAX_MS, 500 * 2 ** poging) * (0.8 + Math.random() * 0.4);
      if (Date.now() + pauze - begin > this.retryMs) {
        if (Date.now() - this.tempo.laatsteAntwoord > this.retryMs)
          throw ApplicationFailure.create({
            type: PERMANENT,
            nonRetryable: true,
            message: `de bron is niet bereikbaar: ${Math.round((Date.now() - this.tempo.laatsteAntwoord) / 1000)} s geen antwoord (${fout.message})`,
          });
        throw fout;
      }
      this.deps.log.info({ run: this.run._id, url, poging: poging + 1, fout: fout.message }, 'import: a request to the source tried again');
      await wacht(pauze, undefined, outer ? { signal: outer } : undefined);
    }
  }
}

function issues(error: z.ZodError, prefix = ''): { name: string; reason: string }[] {
  return error.issues.slice(0, 5).map((i) => ({ name: `${prefix}${i.path.join('.')}`, reason: i.message }));
}
