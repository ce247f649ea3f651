import type { Document } from 'mongodb';
import type { Caller } from '../../common/auth/auth';
import {
  MAX_EXPAND_DEPTH,
  fieldOf,
  isAnswerObject,
  parseExpandTree,
  urlsIn,
  type ExpandedAnswer,
  type ExpandTree,
} from '../../common/resources/expand';
import { ZgwError } from '../../common/http/errors';
import type { Answer, Resource } from '../../common/platform/resource';
import type { Stored } from '../../common/storage/store';
import { mayOnZaak, LEZEN, zaakOfPart, type RollenRead, type Zaken } from './context';
import { V151 } from './schemas';

/**
 * `expand`: comma-separated paths of link fields, nested with dots. Every expanded object is its plain endpoint's
 * representation; a to-one link becomes the object (or `{}` when empty), a to-many link an array, and deeper levels
 * sit in the embedded object's own `_expand`. Any field holding URLs of this platform's Zaken or Catalogi objects can
 * be followed, and so can URLs of other registrations (fetched as they are).
 * - 1.5.1: on zaken only, five levels deep (VNG's own compliance collection follows `rollen.zaak.rollen.zaak.rollen`),
 *   within the Zaken and Catalogi APIs (zrc-025: a path into documents or besluiten is refused); a bad path is a 400.
 * - 1.7.0: also on the parts of a zaak, to any depth (zrc-026; bounded at twenty levels), into documents and
 *   besluiten too; a path that names no field of what it expands is a 404 (zrc-027), and so is an object of another
 *   registration that cannot be fetched (zrc-028). What the caller may not read of this platform shows as absent.
 */
const MAX_DEPTH_17 = 20;

/** The link fields of a zaak that the first level may name. */
const ZAAK_LINKS = new Set([
  'zaaktype',
  'hoofdzaak',
  'deelzaken',
  'relevanteAndereZaken',
  'eigenschappen',
  'rollen',
  'status',
  'zaakinformatieobjecten',
  'zaakobjecten',
  'resultaat',
  'communicatiekanaal',
  'selectielijstklasse',
  'productenOfDiensten',
]);

function invalid(reason: string, version = V151): ZgwError {
  return version === V151 ? ZgwError.field('expand', 'invalid-expand-field', reason) : ZgwError.notFound(`expand: ${reason}`);
}

/**
 * Parses an expand parameter into a tree; undefined when there is nothing to expand. `allowed`: the fields the first
 * level may name (1.7: those of the resource's `...Embedded`).
 */
export function parseExpand(raw: unknown, version = V151, allowed: ReadonlySet<string> = ZAAK_LINKS): ExpandTree | undefined {
  return parseExpandTree(raw, allowed, version === V151 ? MAX_EXPAND_DEPTH : MAX_DEPTH_17, (reason) => invalid(reason, version));
}

/** Loads and renders objects by URL: one query per collection; Catalogi objects through the Catalogi cache. */
class Loader {
  private readonly resources: Resource<Document>[];
  private readonly raw = new Map<string, { r: Resource<Document>; doc: Stored<Document> }>();

  constructor(
    private readonly z: Zaken,
    private readonly caller: Caller,
    readonly version: string,
    private readonly rollenRead?: RollenRead,
  ) {
    const c = z.catalogi;
    this.resources = [
      z.zaken,
      z.statussen,
      z.rollen,
      z.resultaten,
      z.zaakobjecten,
      z.zaakinformatieobjecten,
      z.klantcontacten,
      c.catalogussen,
      c.zaaktypen,
      c.statustypen,
      c.roltypen,
      c.resultaattypen,
      c.eigenschappen,
      c.zaakobjecttypen,
      c.informatieobjecttypen,
      c.besluittypen,
      c.ziot,
    ];
  }

  async load(urls: string[]): Promise<Map<string, ExpandedAnswer>> {
    const out = new Map<string, ExpandedAnswer>();
    const byResource = new Map<Resource<Document>, string[]>();
    const remote: string[] = [];
    // This platform's documents, read in-process as the caller may read them (their autorisaties, Autorisaties 1.1).
    const documenten = this.z.api.deps.components.documenten;
    const documents: string[] = [];
    // This platform's besluiten, as the caller may read them (by besluittype).
    const ours: string[] = [];
    const besluiten = this.z.api.deps.components.besluiten;
    for (const u of new Set(urls)) {
      // zrc-025: 1.5.1 expands within the Zaken and Catalogi APIs only.
      if (this.version === V151 && (documenten?.owns(u) || besluiten?.owns(u)))
        throw invalid('een document of besluit valt buiten de Zaken en Catalogi API (zrc-025); vraag het met Api-Version: 1.7.');
      if (documenten?.owns(u)) {
        documents.push(u);
        continue;
      }
      if (besluiten?.owns(u)) {
        ours.push(u);
        continue;
      }
      const eigenschap = u.includes('/zaakeigenschappen/') ? /\/zaken\/[0-9a-f-]{36}\/zaakeigenschappen\/([0-9a-f-]{36})$/i.exec(u) : null;
      const add = (r: Resource<Document>, id: string) => (byResource.get(r) ?? byResource.set(r, []).get(r)!).push(id);
      if (eigenschap && u.startsWith(this.z.api.base)) {
        add(this.z.zaakeigenschappen, eigenschap[1]!);
        continue;
      }
      let id: string | undefined;
      const r = this.resources.find((res) => (id = res.uuidOf(u)) !== undefined);
      if (r) add(r, id!);
      else remote.push(u);
    }
    await Promise.all([
      documents.length ? documenten!.readable(documents, this.caller).then((found) => found.forEach((doc, u) => out.set(u, doc))) : undefined,
      ...[...byResource].map(async ([r, ids]) => {
        const isCatalogi = r.api !== this.z.api;
        for (const doc of await this.read(r, ids)) {
          if (!isCatalogi && !this.readable(r, doc)) continue;
          const rendered = isCatalogi ? await this.catalogi(r, doc) : await r.toApi(doc);
          if (isCatalogi) this.raw.set(String(rendered.url), { r, doc });
          out.set(String(rendered.url), rendered);
        }
      }),
      ...ours.map(async (u) => {
        const besluit = await besluiten!.besluit(u);
        if (besluit && this.caller.allows('brc', 'besluiten.lezen', 'besluittype', String(besluit.besluittype))) out.set(u, besluit);
      }),
      ...remote.map(async (u) => {
        const { status, body } = await this.z.api.deps.fetchJson(u);
        if (status === 200 && isAnswerObject(body)) out.set(u, body);
        // zrc-028: in 1.7 an expansion that cannot be fetched makes the answer invalid.
        else if (this.version !== V151) throw ZgwError.notFound(`expand: ${u} kon niet worden opgehaald (${status || 'onbereikbaar'}).`);
      }),
    ]);
    return out;
  }

  /** The live objects of `r` with these uuids: rollen this request read before (a `_zoek` by BSN) are not read again. */
  private async read(r: Resource<Document>, ids: string[]): Promise<Stored<Document>[]> {
    const known = r === this.z.rollen ? this.rollenRead : undefined;
    if (!known?.size) return r.store.getMany(ids);
    const found: Stored<Document>[] = [];
    const missing: string[] = [];
    for (const id of ids) {
      const rol = known.get(id);
      if (rol) found.push(rol);
      else missing.push(id);
    }
    return missing.length ? found.concat(await r.store.getMany(missing)) : found;
  }

  /** A Catalogi object loaded before, as it shows on `datum` (its relations resolved on that date). */
  at(url: string, datum: string): Promise<Answer<Document>> | undefined {
    const raw = this.raw.get(url);
    return raw ? this.catalogi(raw.r, raw.doc, datum) : undefined;
  }

  /** Cached Catalogi renderings are shared: each expansion gets its own copy to add `_expand` to. */
  private async catalogi(r: Resource<Document>, doc: Stored<Document>, datum?: string): Promise<Answer<Document>> {
    const query = datum ? { datumGeldigheid: datum } : undefined;
    return structuredClone(await r.api.cached(`expand:${r.url(doc._id)}@${datum ?? ''}`, () => r.toApi(doc, query)));
  }

  /** Whether the caller may read a zaak or a part of one (`r` is one of this API's resources: a stored zaak or part). */
  private readable(r: Resource<Document>, doc: Stored<Document>): boolean {
    const zaak =
      r === this.z.zaken
        ? { zaaktype: doc.zaaktype, vertrouwelijkheidaanduiding: doc.vertrouwelijkheidaanduiding }
        : zaakOfPart({ _zaaktype: doc._zaaktype, _vertrouwelijkheid: doc._vertrouwelijkheid });
    return mayOnZaak(this.caller, zaak, [LEZEN]);
  }
}

/**
 * Adds `_expand` to every object (zaken; in 1.7 also their parts) in place, following `tree`. `rollenRead`: rollen the
 * request read whole before (its filter's), taken as they are instead of read again.
 */
export async function expand(
  z: Zaken,
  caller: Caller,
  objects: readonly ExpandedAnswer[],
  tree: ExpandTree | undefined,
  version = V151,
  rollenRead?: RollenRead,
): Promise<void> {
  if (!tree || !objects.length) return;
  await expandLevel(new Loader(z, caller, version, rollenRead), objects, tree, 1);
}

async function expandLevel(loader: Loader, objects: readonly ExpandedAnswer[], tree: ExpandTree, depth: number): Promise<void> {
  for (const obj of objects) obj._expand ??= {};
  for (const [field, sub] of Object.entries(tree)) {
    if (depth > 1 && !objects.some((o) => field in o)) throw invalid(`"${field}" is geen veld van de uitgeklapte objecten.`, loader.version);
    const many = objects.some((o) => Array.isArray(fieldOf(o, field)));
    const found = await loader.load(objects.flatMap((o) => urlsIn(fieldOf(o, field))));
    // A zaak sees its Catalogi objects as they were on its startdatum (their relations resolved on that date).
    const seen = new Map<ExpandedAnswer, ExpandedAnswer[]>();
    for (const obj of objects) {
      const startdatum = fieldOf(obj, 'startdatum');
      const datum = typeof startdatum === 'string' ? startdatum : undefined;
      const list: ExpandedAnswer[] = [];
      for (const u of urlsIn(fieldOf(obj, field))) {
        const dated = datum ? loader.at(u, datum) : undefined;
        const doc = (dated ? await dated : undefined) ?? found.get(u);
        if (doc) list.push(doc);
      }
      seen.set(obj, list);
    }
    const children = [...new Set([...seen.values()].flat())];
    if (Object.keys(sub).length && children.length) await expandLevel(loader, children, sub, depth + 1);
    for (const obj of objects) {
      const list = seen.get(obj)!;
      obj._expand![field] = many || Array.isArray(fieldOf(obj, field)) ? list : (list[0] ?? {});
    }
  }
}
