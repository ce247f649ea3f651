import { randomUUID } from 'node:crypto';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import type { Document } from 'mongodb';
import { platformDb } from '@zgw/shared';
import type { Caller } from '../../common/auth/auth';
import { ZgwError, type InvalidParam } from '../../common/http/errors';
import type { CatalogusExchange, CatalogusImport, CatalogusImportReport } from '../../common/platform/links';
import type { Resource } from '../../common/platform/resource';
import type { JsonObject } from '@zgw/shared';
import { alsProef, type Stored } from '../../common/storage/store';
import type { Catalogi, Publisher } from './context';
import type { CatalogiDoc } from './schemas';

/**
 * A catalogus as one ZIP, in Open Zaak's layout (its `export` and `import` commands): flat, one `<Model>.json` per
 * resource, each a JSON array of the Catalogi API representation with snake_case keys and the exporting host's URLs; a
 * file left out when empty; `BesluitType.zaaktypen` as `[]` (the zaaktypen name their besluittypen). Ours adds
 * `ZaakObjectType.json`, which Open Zaak leaves out and ignores. An import creates in the order below, so every
 * reference is there before what refers to it, and keeps each object's UUID unless asked not to.
 */
const KINDS = [
  { file: 'Catalogus', of: 'catalogussen' },
  { file: 'InformatieObjectType', of: 'informatieobjecttypen' },
  { file: 'BesluitType', of: 'besluittypen' },
  { file: 'ZaakType', of: 'zaaktypen' },
  { file: 'StatusType', of: 'statustypen' },
  { file: 'RolType', of: 'roltypen' },
  { file: 'Eigenschap', of: 'eigenschappen' },
  { file: 'ResultaatType', of: 'resultaattypen' },
  { file: 'ZaakObjectType', of: 'zaakobjecttypen' },
  { file: 'ZaakTypeInformatieObjectType', of: 'ziot' },
] as const;
type Kind = (typeof KINDS)[number];

/** The largest ZIP taken, unpacked (a catalogus of thousands of types is a few MB). */
export const MAX_UNPACKED_BYTES = 50 * 1024 * 1024;

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** A value with every object key renamed (nested objects and arrays of objects too). */
function renameKeys(value: unknown, rename: (k: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => renameKeys(v, rename));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), renameKeys(v, rename)]));
  return value;
}

/** A value with every string that is a key of `map` replaced by its value (the source's URLs by ours). */
function rewriteUrls(value: unknown, map: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return map.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => rewriteUrls(v, map));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rewriteUrls(v, map)]));
  return value;
}

const UUID_AT_END = /\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/?$/i;

interface Planned {
  kind: Kind;
  index: number;
  source: string;
  uuid: string;
  concept: boolean;
  input: JsonObject;
}

export class CatalogusUitwisseling implements CatalogusExchange {
  constructor(private readonly c: Catalogi) {}

  private resource(kind: Kind): Resource<CatalogiDoc & Document> {
    return this.c[kind.of] as unknown as Resource<CatalogiDoc & Document>;
  }

  /** The ZIP of a catalogus of the current tenant, with every version of its types and all their parts. */
  async export(uuid: string): Promise<Uint8Array> {
    const { c } = this;
    const catalogus = await c.catalogussen.store.get(uuid);
    if (!catalogus) throw ZgwError.notFound(`Catalogus ${uuid} bestaat niet.`);
    const url = c.catalogussen.url(uuid);
    const docs = new Map<Kind, Stored<Document>[]>();
    docs.set(KINDS[0], [catalogus]);
    // by the catalogus's and each zaaktype's indexes; in UUID order, so an export of the same catalogus is the same file
    const byId = (list: Stored<Document>[]) => list.sort((x, y) => (x._id < y._id ? -1 : 1));
    for (const kind of KINDS.slice(1, 4)) docs.set(kind, byId(await this.resource(kind).store.find({ catalogus: url })));
    const zaaktypen = (docs.get(KINDS[3]) ?? []).map((z) => c.zaaktypen.url(z._id));
    for (const kind of KINDS.slice(4)) {
      const parts: Stored<Document>[] = [];
      for (const zaaktype of zaaktypen) parts.push(...(await this.resource(kind).store.find({ zaaktype })));
      docs.set(kind, byId(parts));
    }
    const files: Record<string, Uint8Array> = {};
    for (const kind of KINDS) {
      const items = docs.get(kind) ?? [];
      if (!items.length) continue;
      const views = await Promise.all(items.map((d) => this.resource(kind).toApi(d as Stored<CatalogiDoc & Document>)));
      // as Open Zaak writes them: the besluittypen's zaaktypen follow from the zaaktypen
      if (kind.file === 'BesluitType') for (const v of views) v.zaaktypen = [];
      files[`${kind.file}.json`] = strToU8(JSON.stringify(views.map((v) => renameKeys(v, snake))));
    }
    return zipSync(files, { level: 6 });
  }

  /** Reads a ZIP (or its files) and plans its import (nothing written): what will be made, and every object that cannot be. */
  async plan(
    zip: Uint8Array | ReadonlyMap<string, string>,
    opts: CatalogusImport,
  ): Promise<{ planned: Planned[]; problems: InvalidParam[]; report: CatalogusImportReport }> {
    const files = zip instanceof Uint8Array ? unpack(zip) : zip;
    const problems: InvalidParam[] = [];
    const planned: Planned[] = [];
    const map = new Map<string, string>();
    for (const kind of KINDS) {
      const raw = files.get(`${kind.file}.json`);
      if (raw === undefined) continue;
      let items: unknown;
      try {
        items = JSON.parse(raw);
      } catch {
        throw ZgwError.field('bestand', 'invalid', `${kind.file}.json is geen JSON.`);
      }
      if (!Array.isArray(items)) throw ZgwError.field('bestand', 'invalid', `${kind.file}.json moet een JSON-lijst zijn.`);
      for (const [index, item] of items.entries()) {
        const source = item && typeof item === 'object' ? (item as { url?: unknown }).url : undefined;
        const found = typeof source === 'string' ? UUID_AT_END.exec(source) : null;
        if (!found) {
          problems.push({ name: `${kind.file}[${index}].url`, code: 'invalid', reason: 'Elk object heeft een url die eindigt op zijn UUID.' });
          continue;
        }
        const uuid = opts.nieuweUuids ? randomUUID() : found[1]!.toLowerCase();
        map.set(source as string, this.resource(kind).url(uuid));
        const input = renameKeys(item, camel) as JsonObject;
        planned.push({ kind, index, source: source as string, uuid, concept: input.concept !== false, input });
      }
    }
    const catalogi = planned.filter((p) => p.kind.file === 'Catalogus');
    if (catalogi.length !== 1)
      throw ZgwError.field('bestand', 'invalid', `Het bestand moet precies één catalogus bevatten (Catalogus.json), niet ${catalogi.length}.`);
    for (const p of planned) p.input = rewriteUrls(p.input, map) as JsonObject;
    zaaktypenBijNaam(planned.filter((p) => p.kind.file === 'ZaakType').map((p) => ({ url: this.c.zaaktypen.url(p.uuid), input: p.input })));
    // an object whose UUID is taken (in any tenant: UUIDs are global) is refused; --nieuwe-uuids gives new ones
    if (!opts.nieuweUuids) {
      for (const kind of KINDS) {
        const mine = planned.filter((p) => p.kind === kind);
        if (!mine.length) continue;
        const taken = await platformDb(this.c.api.deps.db)
          .collection(this.resource(kind).store.name)
          .find({ _id: { $in: mine.map((p) => p.uuid) } } as Document, { projection: { _id: 1 } })
          .toArray();
        const ids = new Set(taken.map((t) => String(t._id)));
        for (const p of mine.filter((m) => ids.has(m.uuid)))
          problems.push({
            name: `${kind.file}[${p.index}].url`,
            code: 'unique',
            reason: `UUID ${p.uuid} is op dit platform al in gebruik (importeer met nieuwe UUID's).`,
          });
      }
    }
    return { planned, problems, report: this.reportOf(planned, catalogi[0]!, opts) };
  }

  /** Imports a ZIP into the current tenant: everything or, on the first refusal, nothing (what was made is removed). */
  async import(zip: Uint8Array | ReadonlyMap<string, string>, opts: CatalogusImport, caller: Caller): Promise<CatalogusImportReport> {
    const { planned, problems, report } = await this.plan(zip, opts);
    if (problems.length) throw ZgwError.validation(problems);
    if (opts.dryRun) return report;
    if (opts.proef) {
      await this.proef(planned, opts.proef, caller);
      return report;
    }
    const made: { resource: Resource<CatalogiDoc & Document>; doc: Stored<CatalogiDoc & Document> }[] = [];
    try {
      for (const p of planned) {
        const resource = this.resource(p.kind);
        const ctx = resource.ctx(caller, p.uuid);
        const doc = await this.prepared(p, resource, caller);
        try {
          made.push({ resource, doc: await resource.insert(doc, ctx) });
        } catch (err) {
          throw refusal(err, `${p.kind.file}[${p.index}]`);
        }
      }
      // published as they were: the types a zaaktype uses before the zaaktype
      for (const p of planned.filter((x) => !x.concept)) {
        const publish = this.publisher(p.kind);
        try {
          await publish?.(p.uuid);
        } catch (err) {
          throw refusal(err, `${p.kind.file}[${p.index}]`);
        }
      }
    } catch (err) {
      for (const m of made.reverse()) await m.resource.destroy(m.doc, m.resource.ctx(caller, m.doc._id));
      throw err;
    } finally {
      // as any write to the Catalogi: its read cache goes, here and in the other instances
      const { deps, def } = this.c.api;
      if (made.length && deps.caches.has(def.name)) deps.caches.clear(def.name);
    }
    return { ...report, geimporteerd: true };
  }

  /**
   * The dry run of a registration import: every object through the rules, in order, kept aside for run `run` as it
   * would be stored (published as it was), so the rules of the next objects and of the run's zaken meet it.
   */
  private async proef(planned: Planned[], run: string, caller: Caller): Promise<void> {
    await alsProef(run, async () => {
      const docs = [];
      for (const p of planned) {
        const resource = this.resource(p.kind);
        const doc = await this.prepared(p, resource, caller);
        await resource.store.proefBewaar(run, p.uuid, doc);
        docs.push({ p, resource, doc });
      }
      // published after all its parts are made, as import does
      for (const { p, resource, doc } of docs)
        if (!p.concept && this.publisher(p.kind)) await resource.store.proefBewaar(run, p.uuid, { ...doc, concept: false });
    });
  }

  /** An object of the import through its resource's rules: the document it would be stored as, or its refusal. */
  private async prepared(p: Planned, resource: Resource<CatalogiDoc & Document>, caller: Caller): Promise<CatalogiDoc & Document> {
    try {
      const ctx = resource.ctx(caller, p.uuid);
      const body = resource.parseInput(p.input, ctx);
      return resource.def.prepare ? await resource.def.prepare(body, ctx) : (body as CatalogiDoc & Document);
    } catch (err) {
      throw refusal(err, `${p.kind.file}[${p.index}]`);
    }
  }

  /** How a kind is published, for the kinds that have a concept phase. */
  private publisher(kind: Kind): Publisher | undefined {
    return (this.c.publishers as Partial<Record<string, Publisher>>)[kind.of];
  }

  /** What an import of `planned` makes (not made yet). */
  private reportOf(planned: Planned[], catalogus: Planned, opts: CatalogusImport): CatalogusImportReport {
    const aantallen: Record<string, number> = {};
    for (const p of planned) aantallen[p.kind.file] = (aantallen[p.kind.file] ?? 0) + 1;
    return {
      catalogus: this.c.catalogussen.url(catalogus.uuid),
      bron: catalogus.source,
      nieuweUuids: !!opts.nieuweUuids,
      aantallen,
      gepubliceerd: planned.filter((p) => !p.concept && this.publisher(p.kind)).length,
      geimporteerd: false,
    };
  }
}

/**
 * The zaaktypen of one ZIP name each other (`deelzaaktypen`, `gerelateerdeZaaktypen`) by URL, in any order of the file
 * and also both ways (A a deelzaaktype of B and B of A). A zaaktype keeps these relations by identificatie (they
 * resolve to the version valid on a date), so a URL of a zaaktype of the same ZIP is given as its identificatie: the
 * relation is then what it would be had the other been made first, and none waits for another (a cycle included).
 * URLs of zaaktypen that are not in the ZIP stay as they are (and are refused when they are not here).
 */
function zaaktypenBijNaam(zaaktypen: { url: string; input: JsonObject }[]): void {
  const naam = new Map<string, string>();
  for (const z of zaaktypen) if (typeof z.input.identificatie === 'string' && z.input.identificatie) naam.set(z.url, z.input.identificatie);
  const bijNaam = (v: unknown) => (typeof v === 'string' ? (naam.get(v.replace(/\/+$/, '')) ?? v) : v);
  for (const { input } of zaaktypen) {
    if (Array.isArray(input.deelzaaktypen)) input.deelzaaktypen = input.deelzaaktypen.map(bijNaam);
    if (Array.isArray(input.gerelateerdeZaaktypen))
      input.gerelateerdeZaaktypen = input.gerelateerdeZaaktypen.map((g) =>
        g && typeof g === 'object' && !Array.isArray(g) ? { ...g, zaaktype: bijNaam(g.zaaktype) } : g,
      );
  }
}

/** A refusal of one object, named by its file and place (`ZaakType[1].identificatie`). */
function refusal(err: unknown, at: string): unknown {
  if (!(err instanceof ZgwError)) return err;
  const params = err.invalidParams?.length
    ? err.invalidParams.map((p) => ({ ...p, name: `${at}.${p.name}` }))
    : [{ name: at, code: err.code, reason: err.message }];
  return ZgwError.validation(params);
}

/**
 * The files of a catalogus ZIP: flat (no folders, no path outside it), JSON only, at most MAX_UNPACKED_BYTES
 * unpacked (checked from the directory before anything is inflated).
 */
function unpack(zip: Uint8Array): Map<string, string> {
  let total = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (file) => {
        if (file.name.endsWith('/')) return false;
        if (file.name.includes('/') || file.name.includes('\\') || file.name.includes('..'))
          throw ZgwError.field('bestand', 'invalid', `Het bestand bevat een pad (${file.name}): een catalogus-export is plat.`);
        total += file.originalSize;
        if (total > MAX_UNPACKED_BYTES)
          throw ZgwError.field('bestand', 'max_size', `Uitgepakt is het bestand groter dan ${MAX_UNPACKED_BYTES / 1024 / 1024} MB.`);
        return file.name.endsWith('.json');
      },
    });
  } catch (err) {
    if (err instanceof ZgwError) throw err;
    throw ZgwError.field('bestand', 'invalid', 'Dit is geen ZIP-bestand (of het is beschadigd).');
  }
  return new Map(Object.entries(entries).map(([name, data]) => [name, strFromU8(data)]));
}
