import type { Caller } from '../../common/auth/auth';
import { expandObjects, expandTree, isAnswerObject, type ExpandedAnswer, type Expansion } from '../../common/resources/expand';
import { LEZEN as ZAKEN_LEZEN, mayOnZaak, zaakOfPart } from '../../common/platform/zaak-rechten';
import { LEZEN, mayOnBesluittype, type Besluiten } from './context';

/**
 * `expand` (Besluiten 1.1.0): a besluit expands its besluittype and zaak, a besluitinformatieobject its besluit and
 * informatieobject; deeper levels follow any link field of the expanded object. Every expanded object is its own
 * endpoint's representation as the caller may read it (besluiten by besluittype, zaken by zaaktype and
 * vertrouwelijkheid, documents by their autorisaties and readiness for publication); what the caller may not read is
 * left out as if absent. A to-one link becomes the object (`{}` when empty), a to-many link an array; deeper levels
 * sit in the embedded object's own `_expand`. The paths were checked with the query (schemas.ts).
 */

/** Loads objects by URL as the caller may read them: ours in-process, others fetched. */
class Loader {
  constructor(
    private readonly b: Besluiten,
    private readonly caller: Caller,
  ) {}

  async load(urls: string[]): Promise<Map<string, ExpandedAnswer>> {
    const out = new Map<string, ExpandedAnswer>();
    const documenten = this.b.api.deps.components.documenten;
    const documents = urls.filter((u) => documenten?.owns(u));
    if (documents.length) for (const [u, doc] of await documenten!.readable(documents, this.caller)) out.set(u, doc);
    await Promise.all(
      urls
        .filter((u) => !documenten?.owns(u))
        .map(async (u) => {
          const doc = await this.one(u);
          if (doc) out.set(u, doc);
        }),
    );
    return out;
  }

  private async one(url: string): Promise<ExpandedAnswer | undefined> {
    const { b, caller } = this;
    const besluit = b.besluiten.uuidOf(url);
    if (besluit) {
      const doc = await b.besluiten.store.get(besluit);
      return doc && mayOnBesluittype(caller, doc.besluittype, [LEZEN]) ? b.besluiten.toApi(doc) : undefined;
    }
    const zaken = b.api.deps.components.zaken;
    const zaak = zaken?.zaken.uuidOf(url);
    if (zaken && zaak) {
      const doc = await zaken.zaken.store.get(zaak);
      return doc && mayOnZaak(caller, doc, [ZAKEN_LEZEN]) ? zaken.zaken.toApi(doc) : undefined;
    }
    const zakenParts = zaken ? [zaken.statussen, zaken.resultaten, zaken.rollen, zaken.zaakobjecten, zaken.zaakinformatieobjecten] : [];
    const part = zakenParts.find((r) => r.uuidOf(url));
    if (part) {
      const doc = await part.store.get(part.uuidOf(url)!);
      if (!doc || !mayOnZaak(caller, zaakOfPart(doc), [ZAKEN_LEZEN])) return undefined;
      return part.toApi(doc);
    }
    const catalogi = (await b.catalogi.views([url])).get(url);
    if (catalogi) return catalogi;
    const { status, body } = await b.api.deps.fetchJson(url);
    return status === 200 && isAnswerObject(body) ? body : undefined;
  }
}

/** The `_expand` of one besluit or besluitinformatieobject (its API view with `url`) for `expand` as asked. */
export async function expand(b: Besluiten, caller: Caller, object: object, raw: string): Promise<Expansion> {
  const obj: ExpandedAnswer = { ...object };
  const loader = new Loader(b, caller);
  await expandObjects((urls) => loader.load(urls), [obj], expandTree(raw));
  return obj._expand ?? {};
}
