import { INHOUD_CONTROLE_MAX, IMPORT_MAX_FOUTEN, InhoudControle, ZgwCallError, bronApi, zijAanZij, type InhoudVerificatie } from '@zgw/shared';
import { omvangEnHash } from '../common/inhoud';
import * as A from '../common/antwoorden';
import { inhoudVan } from './bron';
import type { Run } from './run';

/** Documents of the source compared at once. */
const PARALLEL = 32;

type Hier = InhoudControle['documenten'][number]['versies'][number];

/**
 * Every version of every document of the source compared with ours: the size and the SHA-256 of the content must be
 * equal (and a version without content here too). The source's content is read and hashed here; ours is told by the
 * API per page of documents (the hash taken as the import stored the bytes: see `/admin/api/v1/importen/inhoud-
 * controle`), so our side's content is not downloaded again. A limited run's documents are those here; given the
 * documents its links named (`documenten`), only those are read from the source, each by its URL (no list of every
 * document of the source). A version the source does not give (after the retries of its request) is reported with why.
 */
export async function vergelijkInhoud(r: Run, documenten?: string[]): Promise<InhoudVerificatie> {
  const bronBase = bronApi(r.run, 'documenten');
  const ours = (url: string) => `${r.base}/documenten/api/v1${url.slice(bronBase.length).replace(/\/+$/, '')}`;
  const uit: InhoudVerificatie = { versies: 0, afwijkend: [], aantalAfwijkend: 0 };
  const afwijking = (url: string, reden: string) => {
    uit.aantalAfwijkend++;
    if (uit.afwijkend.length < IMPORT_MAX_FOUTEN) uit.afwijkend.push({ url, reden });
  };
  const vergelijk = async (doc: A.Informatieobject, v: number, hier: Hier | undefined) => {
    const url = `${doc.url}?versie=${v}`;
    try {
      await vergelijkVersie(doc, v, hier, url);
    } catch (err) {
      if (!(err instanceof ZgwCallError) || err.url === `${r.base}/admin/api/v1/importen/inhoud-controle`) throw err;
      afwijking(url, `niet te lezen in de bron: ${err.message}`);
    }
  };
  const vergelijkVersie = async (doc: A.Informatieobject, v: number, hier: Hier | undefined, url: string) => {
    if (!hier) {
      // (a limited run brings the documents of its zaken and besluiten only)
      if (!r.run.selectie) afwijking(url, 'ontbreekt hier');
      return;
    }
    uit.versies++;
    // (the list shows each document's newest version)
    const bron = v === doc.versie ? doc : await r.bron.get(url, A.Informatieobject);
    if (!bron.inhoud !== !hier.sha256) {
      afwijking(url, bron.inhoud ? 'de inhoud ontbreekt hier' : 'hier is inhoud die de bron niet heeft');
      return;
    }
    if (!bron.inhoud) return;
    const a = await omvangEnHash(r.bron, inhoudVan(bron));
    if (a.omvang !== hier.omvang) afwijking(url, `${a.omvang} bytes in de bron, ${hier.omvang} hier`);
    else if (a.sha256 !== hier.sha256) afwijking(url, `SHA-256 ${a.sha256} in de bron, ${hier.sha256} hier`);
  };
  const pagina = async (docs: A.Informatieobject[]) => {
    const hier = await versiesHier(
      r,
      docs.map((doc) => ours(doc.url)),
    );
    // PARALLEL documents at once, each one's versions one after another
    await zijAanZij(docs, PARALLEL, async (doc) => {
      const versies = hier.get(ours(doc.url));
      for (let v = 1; v <= (doc.versie || 1); v++)
        await vergelijk(
          doc,
          v,
          versies?.find((x) => x.versie === v),
        );
    });
  };
  if (r.run.selectie && documenten) {
    for (let i = 0; i < documenten.length; i += 100) {
      // (one the run could not bring is not here: reported with the run's failures, not read again)
      const chunk = documenten.slice(i, i + 100);
      const hier = await versiesHier(
        r,
        chunk.map((url) => ours(url)),
      );
      const docs = await zijAanZij(
        chunk.filter((url) => hier.has(ours(url))),
        PARALLEL,
        async (url) => {
          try {
            return await r.bron.get(url, A.Informatieobject);
          } catch (err) {
            if (!(err instanceof ZgwCallError)) throw err;
            afwijking(url, `niet te lezen in de bron: ${err.message}`);
            return null;
          }
        },
      );
      await pagina(docs.filter((d): d is A.Informatieobject => !!d));
    }
    return uit;
  }
  for (let next: string | null = `${bronBase}/enkelvoudiginformatieobjecten`; next;) {
    const page: { results: A.Informatieobject[]; next: string | null } = await r.bron.page(next, A.Informatieobject);
    await pagina(page.results);
    next = page.next;
  }
  return uit;
}

/** Our versions of these documents (by our URL), with the size and SHA-256 of their content. */
async function versiesHier(r: Run, urls: string[]): Promise<Map<string, Hier[]>> {
  const out = new Map<string, Hier[]>();
  for (let i = 0; i < urls.length; i += INHOUD_CONTROLE_MAX) {
    const vraag = { documenten: urls.slice(i, i + INHOUD_CONTROLE_MAX) };
    const { documenten } = await r.hier.post(`${r.base}/admin/api/v1/importen/inhoud-controle`, vraag, InhoudControle);
    for (const doc of documenten) out.set(doc.url, doc.versies);
  }
  return out;
}
