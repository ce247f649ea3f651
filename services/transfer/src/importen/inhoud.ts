import { IMPORT_MAX_FOUTEN, bronApi, zijAanZij, type InhoudVerificatie } from '@zgw/shared';
import { omvangEnHash } from '../activities/inhoud';
import * as A from '../antwoorden';
import type { Run } from './run';

/** Documents compared at once. */
const PARALLEL = 32;

/**
 * Every version of every document of the source compared with ours, content read from both sides: the size and the
 * SHA-256 of the bytes must be equal (and a version without content here too). A limited run's documents are those
 * here.
 */
export async function vergelijkInhoud(r: Run): Promise<InhoudVerificatie> {
  const bronBase = bronApi(r.run, 'documenten');
  const ours = (url: string) => `${r.base}/documenten/api/v1${url.slice(bronBase.length)}`;
  const uit: InhoudVerificatie = { versies: 0, afwijkend: [], aantalAfwijkend: 0 };
  const afwijking = (url: string, reden: string) => {
    uit.aantalAfwijkend++;
    if (uit.afwijkend.length < IMPORT_MAX_FOUTEN) uit.afwijkend.push({ url, reden });
  };
  const vergelijk = async (doc: A.Informatieobject, v: number) => {
    const url = `${doc.url}?versie=${v}`;
    // (the list shows each document's newest version)
    const [bron, hier] = await Promise.all([
      v === doc.versie ? doc : r.bron.get(url, A.Informatieobject),
      r.hier.find(ours(url), A.Informatieobject),
    ]);
    if (!hier) {
      // (a limited run brings the documents of its zaken and besluiten only)
      if (!r.run.selectie) afwijking(url, 'ontbreekt hier');
      return;
    }
    uit.versies++;
    if (!bron.inhoud !== !hier.inhoud) {
      afwijking(url, bron.inhoud ? 'de inhoud ontbreekt hier' : 'hier is inhoud die de bron niet heeft');
      return;
    }
    if (!bron.inhoud) return;
    const [a, b] = await Promise.all([omvangEnHash(r.bron, bron.inhoud), omvangEnHash(r.hier, hier.inhoud!)]);
    if (a.omvang !== b.omvang) afwijking(url, `${a.omvang} bytes in de bron, ${b.omvang} hier`);
    else if (a.sha256 !== b.sha256) afwijking(url, `SHA-256 ${a.sha256} in de bron, ${b.sha256} hier`);
  };
  for (let next: string | null = `${bronBase}/enkelvoudiginformatieobjecten`; next;) {
    const page: { results: A.Informatieobject[]; next: string | null } = await r.bron.page(next, A.Informatieobject);
    // PARALLEL documents at once, each one's versions one after another
    await zijAanZij(page.results, PARALLEL, async (doc) => {
      for (let v = 1; v <= (doc.versie || 1); v++) await vergelijk(doc, v);
    });
    next = page.next;
  }
  return uit;
}
