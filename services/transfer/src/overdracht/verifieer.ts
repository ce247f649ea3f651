import { ApplicationFailure } from '@temporalio/activity';
import type { OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { PERMANENT, routeOf, tracedOf, type Deps } from '../common/context';
import { leesDossier, type Zaakdossier } from './bronzaak';
import { inhoudVan, type Documenten } from './documenten';

const tellingen = (d: Zaakdossier): Record<string, number> => ({
  rollen: d.rollen.length,
  statussen: d.statussen.length,
  resultaat: d.resultaat ? 1 : 0,
  zaakeigenschappen: d.eigenschappen.length,
  zaakobjecten: d.objecten.length,
  klantcontacten: d.klantcontacten.length,
  zaakinformatieobjecten: d.zios.length,
  besluiten: d.besluiten.length,
});

/**
 * Step `geverifieerd`: the copy holds as many parts of each kind as the source, and every copied document the same
 * number of bytes with the same SHA-256 (both read as streams). A difference is permanent: compensated, `mislukt`.
 */
export async function verifieer(deps: Deps, o: OverdrachtOpdracht, doelZaak: string, documenten: Documenten): Promise<string> {
  const { bron, doel } = await routeOf(deps, o);
  const [src, dst] = await Promise.all([leesDossier(bron, o.zaak), leesDossier(doel, doelZaak)]);
  const a = tellingen(src);
  const b = tellingen(dst);
  const verschillen = Object.keys(a)
    .filter((k) => a[k] !== b[k])
    .map((k) => `${k}: bron ${a[k]}, doel ${b[k]}`);
  for (const [bronDoc, doelDoc] of Object.entries(documenten)) {
    const [x, y] = await Promise.all([
      bron.client.get(bronDoc, A.Informatieobject).then((d) => inhoudVan(bron, d)),
      doel.client.get(doelDoc, A.Informatieobject).then((d) => inhoudVan(doel, d)),
    ]);
    if (x.omvang !== y.omvang || x.sha256 !== y.sha256)
      verschillen.push(`document ${doelDoc}: ${x.omvang} bytes in de bron, ${y.omvang} in het doel${x.omvang === y.omvang ? ', andere inhoud' : ''}`);
  }
  if (verschillen.length) {
    throw ApplicationFailure.create({ type: PERMANENT, nonRetryable: true, message: `De kopie verschilt van de bron: ${verschillen.join('; ')}` });
  }
  const samenvatting = `${Object.entries(a)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ')}; ${Object.keys(documenten).length} documenten gelijk (omvang en SHA-256)`;
  deps.log.info({ ...tracedOf(o), tellingen: a }, 'overdracht: kopie geverifieerd');
  return samenvatting;
}
