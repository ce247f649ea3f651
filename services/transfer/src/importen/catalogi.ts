import { ApplicationFailure } from '@temporalio/activity';
import { IMPORT_TYPEN, ZgwCallError, ZgwClient, bronApi, platformDb, zgwUrl, type ImportOpdracht, type ImportType } from '@zgw/shared';
import type * as A from '../common/antwoorden';
import { PERMANENT, uuidOf, type Deps } from '../common/context';
import { Pagina, leesAlles } from './pagina';
import { openRun } from './run';

/** The parts of a zaaktype, by the file a catalogus ZIP keeps them in and the collection the source lists them at. */
const DELEN = [
  ['StatusType', 'statustypen'],
  ['RolType', 'roltypen'],
  ['Eigenschap', 'eigenschappen'],
  ['ResultaatType', 'resultaattypen'],
  ['ZaakTypeInformatieObjectType', 'zaaktype-informatieobjecttypen'],
] as const;

/**
 * How a type is known in any installation: by what identifies it within its catalogus, its version date included (a
 * part of a zaaktype by that zaaktype's key and its own).
 */
const SLEUTELS: Record<string, (o: A.ZgwObject, zaaktype: (url: unknown) => string) => string> = {
  Catalogus: () => '',
  ZaakType: (o) => `${String(o.identificatie)} ${String(o.versiedatum)}`,
  InformatieObjectType: (o) => `${String(o.omschrijving)} ${String(o.beginGeldigheid)}`,
  BesluitType: (o) => `${String(o.omschrijving)} ${String(o.beginGeldigheid)}`,
  StatusType: (o, zt) => `${zt(o.zaaktype)} ${String(o.volgnummer)}`,
  RolType: (o, zt) => `${zt(o.zaaktype)} ${String(o.omschrijving)}`,
  ResultaatType: (o, zt) => `${zt(o.zaaktype)} ${String(o.omschrijving)}`,
  Eigenschap: (o, zt) => `${zt(o.zaaktype)} ${String(o.naam)}`,
  ZaakObjectType: (o, zt) => `${zt(o.zaaktype)} ${String(o.objecttype)} ${String(o.relatieOmschrijving)}`,
};

/**
 * Before anything else, each catalogus of the source that is not here by UUID: when this tenant has a catalogus with
 * its rsin and domein (imported with new UUIDs, or made here), the source's types are found in it by identificatie
 * and version date and the objects the run brings name those (IMPORT_TYPEN); otherwise it is brought as its catalogus
 * ZIP would be imported (UUIDs kept, published as it is there, all or nothing). A catalogus that cannot be brought
 * ends the run with why (its zaken could not be stored); in a dry run it is reported with why and the run goes on.
 */
export async function brengCatalogi(deps: Deps, o: ImportOpdracht): Promise<void> {
  const r = await openRun(deps, o);
  const api = bronApi(r.run, 'catalogi');
  const hier = `${r.base}/catalogi/api/v1`;
  const lijst = `${api}/catalogussen`;
  const catalogi = await leesAlles(r.bron, lijst);
  const p = new Pagina(r, o.run, lijst);
  const t = p.telling('catalogi/catalogussen', catalogi.length);
  for (const catalogus of catalogi) {
    const { url } = catalogus;
    if ((await r.hier.fetch('GET', `${hier}/catalogussen/${uuidOf(url)}`)).ok) {
      t.overgeslagen++;
      continue;
    }
    const [elders] = await leesAlles(r.hier, zgwUrl(hier, 'catalogussen', { rsin: String(catalogus.rsin), domein: String(catalogus.domein) }));
    if (elders) {
      const { gevonden, niet } = await koppel(deps, o.run, await bestanden(r.bron, api, catalogus), await bestanden(r.hier, hier, elders));
      t.overgeslagen++;
      const log = { run: o.run, catalogus: url, hier: elders.url, gevonden, niet };
      deps.log.info(log, 'import: the catalogus is here under other UUIDs; its types found by identificatie and version date');
      continue;
    }
    const body = { run: o.run, proef: r.run.dryRun, bestanden: await bestanden(r.bron, api, catalogus) };
    try {
      await r.hier.post(`${r.base}/admin/api/v1/importen/catalogus`, body);
      t.nieuw++;
    } catch (err) {
      if (!(err instanceof ZgwCallError) || err.status !== 400) throw err;
      const reden = `de catalogus van de bron kon niet worden overgebracht: ${err.message}`;
      if (!r.run.dryRun) throw ApplicationFailure.create({ type: PERMANENT, nonRetryable: true, message: `${url}: ${reden}` });
      t.mislukt++;
      p.fout(url, reden);
    }
  }
  await p.bewaar(deps);
  deps.log.info({ run: o.run, catalogi: catalogi.length, gebracht: t.nieuw }, 'import: catalogi');
}

/**
 * The source's types that a catalogus here has too (by SLEUTELS), kept for the run: their URL there to ours. Answers
 * how many were found and how many not (objects that name one of those are refused with why).
 */
async function koppel(
  deps: Deps,
  run: string,
  bron: Record<string, A.ZgwObject[]>,
  hier: Record<string, A.ZgwObject[]>,
): Promise<{ gevonden: number; niet: number }> {
  const sleutels = (kant: Record<string, A.ZgwObject[]>) => {
    const zaaktypen = new Map((kant.ZaakType ?? []).map((z) => [String(z.url), SLEUTELS.ZaakType!(z, String)]));
    return (file: string, o: A.ZgwObject) => `${file} ${SLEUTELS[file]!(o, (u) => zaaktypen.get(String(u)) ?? '')}`;
  };
  const onze = new Map<string, string>();
  const sleutelHier = sleutels(hier);
  for (const [file, list] of Object.entries(hier)) if (SLEUTELS[file]) for (const x of list) onze.set(sleutelHier(file, x), String(x.url));
  const sleutelBron = sleutels(bron);
  const typen: ImportType[] = [];
  let niet = 0;
  for (const [file, list] of Object.entries(bron)) {
    if (!SLEUTELS[file]) continue;
    for (const x of list) {
      const ons = onze.get(sleutelBron(file, x));
      if (ons) typen.push({ _id: `${run} ${String(x.url)}`, run, bron: String(x.url), hier: ons });
      else niet++;
    }
  }
  const coll = platformDb(deps.db).collection<ImportType>(IMPORT_TYPEN);
  for (let i = 0; i < typen.length; i += 500)
    await coll.bulkWrite(typen.slice(i, i + 500).map((t) => ({ replaceOne: { filter: { _id: t._id }, replacement: t, upsert: true } })));
  return { gevonden: typen.length, niet };
}

/** A catalogus with every version of its types and their parts, as a catalogus ZIP holds them (read at `api`). */
async function bestanden(client: Pick<ZgwClient, 'all'>, api: string, catalogus: A.ZgwObject): Promise<Record<string, A.ZgwObject[]>> {
  const lees = (collection: string, q: Record<string, string>) => leesAlles(client, zgwUrl(api, collection, q));
  const van = { catalogus: String(catalogus.url) };
  const alles = { ...van, status: 'alles' };
  const zaaktypen = await lees('zaaktypen', alles);
  const out: Record<string, A.ZgwObject[]> = {
    Catalogus: [catalogus],
    InformatieObjectType: await lees('informatieobjecttypen', alles),
    // (the zaaktypen name their besluittypen; they come after them)
    BesluitType: (await lees('besluittypen', alles)).map((b) => ({ ...b, zaaktypen: [] })),
    ZaakType: zaaktypen,
    // (not every Catalogi API serves them: Catalogi before 1.2)
    ZaakObjectType: await lees('zaakobjecttypen', van).catch((err: unknown) => {
      if (err instanceof ZgwCallError && err.status === 404) return [];
      throw err;
    }),
  };
  for (const [file, collection] of DELEN) {
    out[file] = [];
    for (const zt of zaaktypen) out[file].push(...(await lees(collection, { zaaktype: String(zt.url), status: 'alles' })));
  }
  return out;
}
