import { BSON } from 'mongodb';
import type { Document } from 'mongodb';
import { READ_FIELDS } from '../audit/audit-reads';
import type { Page } from '../http/pagination';
import { fieldOf, type ExpandedAnswer } from './expand';

/** An object as a version of the API shows it: its JSON text (UTF-8), and what the read audit sees of it (its `url` and the field naming its main object: READ_FIELDS). */
export interface Rendered {
  text: Buffer;
  shown: object;
}

interface Entry extends Rendered {
  /** The stored bytes (BSON) it was rendered from. */
  stored: Buffer;
  /** Whose rendering it is: tenant, resource and API version (one object has an entry per scope that read it). */
  scope: string;
  /** The block its bytes (stored, then text) were cut from; none when they have one of their own. */
  slab?: Slab;
}

/** A block the cache cuts entries from, one after the other; it is held while one of them is. */
interface Slab {
  bytes: Buffer;
  used: number;
  live: number;
}

/** How an object's stored document is shown. */
type Render = (doc: Document) => Promise<object>;
/** Whether an object's rendering may be kept (not when its answer reads more than its stored bytes). */
type Keeps = (doc: Document) => boolean;
const keepsAll: Keeps = () => true;

/** The largest block the cache cuts entries from. */
const SLAB_BYTES = 256 * 1024;

/**
 * The JSON text of objects as a version of the API shows them, each kept beside the stored bytes it was rendered
 * from: a page whose objects did not change since they were last shown is written from their texts, without decoding
 * them, copying them into API shapes or `JSON.stringify`. An entry serves only while the object's stored bytes are
 * the same, byte for byte, so a change made by any instance (or by a tool beside the API) is shown at once: there is
 * nothing to invalidate and no window of staleness. Which objects a caller sees is decided by the page's query, as
 * without the cache; only resources whose answer depends on the stored object, the version and the base URL alone
 * use it (ResourceDef.renderCache). Bounded by bytes (RENDER_CACHE_MB); the objects stored longest ago go first.
 * Entries are found by the object's id, then its scope (no key string made per object of a page). What an entry
 * keeps is cut from blocks of the cache's own, counted whole while any entry cut from them stays: copies made with
 * `Buffer.from` are slices of Node's shared 8 KB slabs, each holding its whole slab (and whatever else was cut from
 * it) while it is kept, which made 64 MB of entries hold about 300 MB. The oldest entries are found by one walk of
 * the map kept from eviction to eviction: a new walk from the start each time passed every entry deleted since the
 * map last rehashed (about 15 µs an eviction at 18,000 objects).
 */
export class RenderCache {
  private entries = new Map<string, Entry[]>();
  /** The walk that finds the oldest entries: everything before it has been dropped, what is kept again is met again at the end. */
  private walk = this.entries.entries();
  private bytes = 0;
  /** The block entries are cut from now, and its size: a sixteenth of the bound at most. */
  private slab?: Slab;
  private readonly slabBytes: number;
  /** Objects written from their kept text, and objects rendered (for the metrics). */
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes: number) {
    this.slabBytes = Math.min(SLAB_BYTES, Math.floor(maxBytes / 16));
  }

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  /**
   * The object `id` whose stored bytes are `stored`, as `render` shows it in `scope` (tenant, resource and version):
   * without both, nothing is looked up or kept; nor is it when `keeps` says its answer reads more than its stored
   * bytes. `stored` may be a slice of the driver's reply: what is kept is a copy.
   */
  async get(scope: string | undefined, id: string | undefined, stored: Buffer, render: Render, keeps: Keeps = keepsAll): Promise<Rendered> {
    return this.kept(scope, id, stored) ?? this.renderAndKeep(scope, id, stored, render, keeps);
  }

  /** The kept rendering of the object whose stored bytes are `stored`, if there is one (no promise: a page of hits needs none). */
  kept(scope: string | undefined, id: string | undefined, stored: Buffer): Rendered | undefined {
    const held = scope === undefined || id === undefined ? undefined : this.entries.get(id);
    if (!held) return undefined;
    for (let i = 0; i < held.length; i++) {
      const e = held[i]!;
      if (e.scope !== scope) continue;
      if (!e.stored.equals(stored)) return undefined;
      this.hits++;
      return e;
    }
    return undefined;
  }

  /** As get, for an object `kept` has just not found (its stored bytes are not compared again). */
  async renderAndKeep(scope: string | undefined, id: string | undefined, stored: Buffer, render: Render, keeps: Keeps = keepsAll): Promise<Rendered> {
    this.misses++;
    const doc = BSON.deserialize(stored);
    const body = await render(doc);
    const shown = Object.fromEntries(READ_FIELDS.map((f) => [f, fieldOf(body, f)]).filter(([, v]) => typeof v === 'string'));
    const json = JSON.stringify(body);
    const kept = scope !== undefined && id !== undefined && keeps(doc) ? this.keep(id, scope, stored, json, shown) : undefined;
    return kept ?? { text: Buffer.from(json), shown };
  }

  /**
   * Keeps the rendering `json` of object `id` from `stored` in place of the one of its scope, making room; one larger
   * than a sixteenth of the bound is not kept.
   */
  private keep(id: string, scope: string, stored: Buffer, json: string, shown: object): Entry | undefined {
    const length = stored.length + Buffer.byteLength(json);
    const size = length + id.length + scope.length;
    if (size > this.maxBytes / 16) return undefined;
    const held = this.entries.get(id) ?? [];
    this.entries.delete(id); // (back in last: the object's entries go with the newest of them)
    const old = held.findIndex((e) => e.scope === scope);
    if (old >= 0) this.release(id, held.splice(old, 1)[0]!);
    // An entry of more than an eighth of a block gets one of its own; a block that cannot take it is followed by a new one.
    const own = length > this.slabBytes / 8;
    const next = !own && (!this.slab || this.slab.used + length > this.slabBytes);
    // What the entry adds to the bound besides a new block: its id and scope, and its bytes when they have their own.
    const charge = own ? size : size - length;
    while (this.bytes + charge + (next ? this.slabBytes : 0) > this.maxBytes) {
      const oldest = this.oldest();
      if (oldest) this.drop(...oldest);
      else if (held.length) held.splice(0).forEach((e) => this.release(id, e));
      else break; // (only the current block is left)
    }
    let block: Buffer;
    let slab: Slab | undefined;
    if (own) block = Buffer.allocUnsafeSlow(length);
    else {
      if (next) {
        if (this.slab?.live === 0) this.bytes -= this.slab.bytes.length;
        this.slab = { bytes: Buffer.allocUnsafeSlow(this.slabBytes), used: 0, live: 0 };
        this.bytes += this.slabBytes;
      }
      slab = this.slab!;
      block = slab.bytes.subarray(slab.used, slab.used + length);
      slab.used += length;
      slab.live++;
    }
    stored.copy(block);
    block.write(json, stored.length);
    const entry: Entry = { stored: block.subarray(0, stored.length), text: block.subarray(stored.length), shown, scope, slab };
    held.push(entry);
    this.entries.set(id, held);
    this.bytes += charge;
    return entry;
  }

  /** The object kept longest ago (a walk that has ended begins again, at what was kept since). */
  private oldest(): [string, Entry[]] | undefined {
    let next = this.walk.next();
    if (next.done) next = (this.walk = this.entries.entries()).next();
    return next.value;
  }

  private drop(id: string, held: Entry[]): void {
    this.entries.delete(id);
    for (const e of held) this.release(id, e);
  }

  /** Gives back what an entry held: its id and scope, and its bytes or its share of its block (the block when it was the last). */
  private release(id: string, entry: Entry): void {
    this.bytes -= id.length + entry.scope.length;
    const slab = entry.slab;
    if (!slab) this.bytes -= entry.stored.length + entry.text.length;
    else if (--slab.live === 0 && slab !== this.slab) this.bytes -= slab.bytes.length;
  }
}

/**
 * A page of rendered objects as answered: written from their texts; when the request expands them, each text with the
 * `_expand` its object (read back from the text) was given put in before its closing brace, where `JSON.stringify`
 * of the object would put it (the read audit sees the expanded objects too); when it chooses `fields`, those of the
 * objects read back.
 */
export async function answerPage(
  page: Page<Rendered>,
  expand?: (objects: ExpandedAnswer[]) => Promise<void>,
  choose?: (object: ExpandedAnswer) => ExpandedAnswer,
): Promise<WrittenAnswer | Page<ExpandedAnswer>> {
  if (!expand && !choose) return writtenPage(page);
  // (the rendered texts read back: each an answer as its resource renders it)
  const objects = page.results.map((r) => JSON.parse(r.text.toString()) as ExpandedAnswer);
  if (expand) await expand(objects);
  if (choose) return { ...page, results: objects.map(choose) };
  const results = page.results.map((r, i) => {
    const expansion = objects[i]!._expand;
    if (expansion === undefined) return r;
    const tail = Buffer.from(`${r.text.length > 2 ? ',' : ''}"_expand":${JSON.stringify(expansion)}}`);
    return { text: Buffer.concat([r.text.subarray(0, r.text.length - 1), tail]), shown: { ...r.shown, _expand: expansion } };
  });
  return writtenPage({ ...page, results });
}

/**
 * A page answer written from rendered texts: `{count, next, previous, results}` in the order every page has, the
 * results' texts put in as they are kept; the read audit sees the page with what it reads of each result.
 */
function writtenPage(page: Page<Rendered>): WrittenAnswer {
  const { count, next, previous, results } = page;
  const parts: Buffer[] = [Buffer.from(`{"count":${count},"next":${JSON.stringify(next)},"previous":${JSON.stringify(previous)},"results":[`)];
  results.forEach((r, i) => {
    if (i) parts.push(COMMA);
    parts.push(r.text);
  });
  parts.push(END);
  return new WrittenAnswer(Buffer.concat(parts), { count, next, previous, results: results.map((r) => r.shown) });
}

const COMMA = Buffer.from(',');
const END = Buffer.from(']}');

/** An answer already written as JSON: the route wrapper sends `payload` as it is; the read audit sees `shown`. */
export class WrittenAnswer {
  constructor(
    readonly payload: Buffer,
    readonly shown: unknown,
  ) {}
}
