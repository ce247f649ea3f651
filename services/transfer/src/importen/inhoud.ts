import { createHash } from 'node:crypto';
import { heartbeat } from '@temporalio/activity';
import { IMPORT_MAX_FOUTEN, ZgwCallError, bronApi, type InhoudVerificatie, type ZgwClient } from '@zgw/shared';
import type { Run } from './run';

type Obj = Record<string, unknown>;

/** The size and SHA-256 of content read as a stream (never whole in memory). */
async function vingerafdruk(client: ZgwClient, url: string): Promise<{ size: number; sha256: string }> {
  const res = await client.fetch('GET', url);
  if (!res.ok || !res.body) throw new ZgwCallError('GET', url, res.status, { detail: await res.text().catch(() => '') });
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

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
  for (let next: string | null = `${bronBase}/enkelvoudiginformatieobjecten`; next;) {
    const page: { results: Obj[]; next: string | null } = await r.bron.get(next);
    for (const doc of page.results) {
      for (let v = 1; v <= (Number(doc.versie) || 1); v++) {
        const url = `${String(doc.url)}?versie=${v}`;
        const [bron, hier] = await Promise.all([r.bron.get<Obj>(url), r.hier.find<Obj>(ours(url))]);
        heartbeat(uit.versies);
        if (!hier) {
          // (a limited run brings the documents of its zaken and besluiten only)
          if (!r.run.selectie) afwijking(url, 'ontbreekt hier');
          continue;
        }
        uit.versies++;
        if (!bron.inhoud !== !hier.inhoud) {
          afwijking(url, bron.inhoud ? 'de inhoud ontbreekt hier' : 'hier is inhoud die de bron niet heeft');
          continue;
        }
        if (!bron.inhoud) continue;
        const [a, b] = await Promise.all([vingerafdruk(r.bron, String(bron.inhoud)), vingerafdruk(r.hier, String(hier.inhoud))]);
        if (a.size !== b.size) afwijking(url, `${a.size} bytes in de bron, ${b.size} hier`);
        else if (a.sha256 !== b.sha256) afwijking(url, `SHA-256 ${a.sha256} in de bron, ${b.sha256} hier`);
      }
    }
    next = page.next;
  }
  return uit;
}
