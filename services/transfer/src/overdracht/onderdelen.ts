import { heartbeat } from '@temporalio/activity';
import { zgwUrl, type OverdrachtOpdracht } from '@zgw/shared';
import * as A from '../common/antwoorden';
import { routeOf, tracedOf, uuidOf, type Deps } from '../common/context';
import { eindstatusVan, leesDossier, pick, vingerafdruk } from './bronzaak';
import { statusBody } from './doelzaak';
import type { Plan } from './valideer';

const ROL = [
  'betrokkene',
  'betrokkeneType',
  'afwijkendeNaamBetrokkene',
  'roltoelichting',
  'indicatieMachtiging',
  'contactpersoonRol',
  'betrokkeneIdentificatie',
] as const;
const ZAAKOBJECT = ['object', 'objectType', 'objectTypeOverige', 'objectTypeOverigeDefinitie', 'relatieomschrijving', 'objectIdentificatie'] as const;
/** What finds a copied zaakobject again in the target. */
const OBJECT_SLEUTEL = ['zaakobjecttype', ...ZAAKOBJECT] as const;
const KLANTCONTACT = ['identificatie', 'datumtijd', 'kanaal', 'onderwerp', 'toelichting'] as const;

export interface Onderdelen {
  /** Source rol URL -> copied rol URL (for the `gezetdoor` of statussen). */
  rollen: Record<string, string>;
  gemaakt: number;
}

/**
 * Step `onderdelen_gekopieerd`: rollen (every betrokkeneType and identification as in the source), statussen in
 * their order and dates (the last of a closed zaak waits, see sluitDoelzaak), resultaat, zaakeigenschappen,
 * zaakobjecten and klantcontacten. Each part is looked up among the copy's parts by its content before it is made.
 */
export async function kopieerOnderdelen(deps: Deps, o: OverdrachtOpdracht, plan: Plan, doelZaak: string): Promise<Onderdelen> {
  const { bron, doel } = await routeOf(deps, o);
  const delen = ['rollen', 'statussen', 'resultaat', 'eigenschappen', 'objecten', 'klantcontacten'] as const;
  const [src, dst] = await Promise.all([leesDossier(bron, o.zaak, delen), leesDossier(doel, doelZaak, delen)]);
  const c = doel.client;
  let gemaakt = 0;
  const make = async (path: string, body: object) => {
    gemaakt++;
    heartbeat(gemaakt);
    return c.post(zgwUrl(doel.zaken, path), body, A.ZgwObject);
  };
  const t = (url: string) => plan.typen[url]!;

  const rollen: Record<string, string> = {};
  const rolKey = (r: A.Rol, roltype: string) => vingerafdruk({ ...r, roltype }, ['roltype', ...ROL]);
  const haveRol = new Map(dst.rollen.map((r) => [rolKey(r, r.roltype), r.url]));
  for (const r of src.rollen) {
    const key = rolKey(r, t(r.roltype));
    rollen[r.url] = haveRol.get(key) ?? (await make('rollen', { ...pick(r, ROL), zaak: doelZaak, roltype: t(r.roltype) })).url;
    haveRol.set(key, rollen[r.url]!);
  }

  const eind = eindstatusVan(src);
  const haveStatus = new Set(dst.statussen.map((s) => vingerafdruk(s, ['statustype', 'datumStatusGezet'])));
  for (const s of src.statussen) {
    if (s === eind || haveStatus.has(vingerafdruk({ ...s, statustype: t(s.statustype) }, ['statustype', 'datumStatusGezet']))) continue;
    await make('statussen', statusBody(s, doelZaak, t(s.statustype), rollen));
  }

  if (src.resultaat && !dst.resultaat)
    await make('resultaten', { ...pick(src.resultaat, ['toelichting']), zaak: doelZaak, resultaattype: t(src.resultaat.resultaattype) });

  const haveEig = new Set(dst.eigenschappen.map((e) => vingerafdruk(e, ['eigenschap', 'waarde'])));
  for (const e of src.eigenschappen) {
    const body = { zaak: doelZaak, eigenschap: t(e.eigenschap), waarde: e.waarde };
    if (!haveEig.has(vingerafdruk(body, ['eigenschap', 'waarde']))) await make(`zaken/${uuidOf(doelZaak)}/zaakeigenschappen`, body);
  }

  const haveObj = new Set(dst.objecten.map((z) => vingerafdruk(z, OBJECT_SLEUTEL)));
  for (const z of src.objecten) {
    const body = { ...pick(z, ZAAKOBJECT), zaak: doelZaak, ...(z.zaakobjecttype ? { zaakobjecttype: t(z.zaakobjecttype) } : {}) };
    if (!haveObj.has(vingerafdruk(body, OBJECT_SLEUTEL))) await make('zaakobjecten', body);
  }

  const haveKc = new Set(dst.klantcontacten.map((k) => vingerafdruk(k, KLANTCONTACT)));
  for (const k of src.klantcontacten) {
    if (!haveKc.has(vingerafdruk(k, KLANTCONTACT))) await make('klantcontacten', { ...pick(k, KLANTCONTACT), zaak: doelZaak });
  }
  deps.log.info({ ...tracedOf(o), gemaakt }, 'overdracht: onderdelen gekopieerd');
  return { rollen, gemaakt };
}
