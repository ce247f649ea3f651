import { ApplicationFailure } from '@temporalio/activity';
import { ZgwCallError, bronApi, zgwUrl, type ImportOpdracht } from '@zgw/shared';
import { PERMANENT, uuidOf, type Deps } from '../context';
import { Pagina, leesAlles } from './pagina';
import { openRun, type Run } from './run';

type Obj = Record<string, unknown>;

/** The parts of a zaaktype, by the file a catalogus ZIP keeps them in and the collection the source lists them at. */
const DELEN = [
  ['StatusType', 'statustypen'],
  ['RolType', 'roltypen'],
  ['Eigenschap', 'eigenschappen'],
  ['ResultaatType', 'resultaattypen'],
  ['ZaakTypeInformatieObjectType', 'zaaktype-informatieobjecttypen'],
] as const;

/**
 * Brings each catalogus of the source that is not here yet (by UUID) before anything else, as its catalogus ZIP
 * would be imported (UUIDs kept, published as it is there, all or nothing): the zaken, documents and besluiten the
 * run brings then name types that are here. A catalogus that cannot be brought ends the run with why (its zaken
 * could not be stored); in a dry run it is reported with why and the run goes on.
 */
export async function brengCatalogi(deps: Deps, o: ImportOpdracht): Promise<void> {
  const r = await openRun(deps, o);
  const api = bronApi(r.run, 'catalogi');
  const lijst = `${api}/catalogussen`;
  const catalogi = await leesAlles(r, lijst);
  const p = new Pagina(r, o.run, lijst);
  const t = p.telling('catalogi/catalogussen', catalogi.length);
  for (const catalogus of catalogi) {
    const url = String(catalogus.url);
    if ((await r.hier.fetch('GET', `${r.base}/catalogi/api/v1/catalogussen/${uuidOf(url)}`)).ok) {
      t.overgeslagen++;
      continue;
    }
    const body = { run: o.run, proef: r.run.dryRun, bestanden: await bestanden(r, api, catalogus) };
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

/** A catalogus of the source with every version of its types and their parts, as a catalogus ZIP holds them. */
async function bestanden(r: Run, api: string, catalogus: Obj): Promise<Record<string, Obj[]>> {
  const lees = (collection: string, q: Record<string, string>) => leesAlles(r, zgwUrl(api, collection, q));
  const van = { catalogus: String(catalogus.url) };
  const alles = { ...van, status: 'alles' };
  const zaaktypen = await lees('zaaktypen', alles);
  const out: Record<string, Obj[]> = {
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
