import {
  IMPORT_MAX_OPRUIMING,
  IMPORT_OBJECTEN,
  IMPORTEN_COLLECTION,
  ZgwCallError,
  bronApi,
  bronSleutel,
  platformDb,
  zgwUrl,
  zijAanZij,
  type ImportObject,
  type ImportOpdracht,
  type ImportOpgeruimd,
  type ImportOpruiming,
  type StoredImport,
} from '@zgw/shared';
import * as A from '../common/antwoorden';
import type { Deps } from '../common/context';
import { BronFout } from './bron';
import { ZAAK_DELEN } from './pagina';
import { openRun, type Run } from './run';

/** Reads of the source and writes here at once (the run's own bound on the source holds them to its pace). */
const PARALLEL = 8;

/**
 * The order the standard's deletes need: a document's gebruiksrechten and verzendingen, the links to documents, the
 * parts of a zaak, the besluiten, the zaken (the rest of their parts with them: zrc-023), and last the documents, which
 * the Documenten API refuses to delete while a zaak or besluit here links them (drc-008). A status has no delete of
 * its own: it goes with its zaak.
 */
const ORDE: readonly (readonly string[])[] = [
  ['documenten/gebruiksrechten', 'documenten/verzendingen'],
  ['zaken/zaakinformatieobjecten', 'besluiten/besluitinformatieobjecten'],
  [
    'zaken/rollen',
    'zaken/resultaten',
    'zaken/zaakobjecten',
    'zaken/klantcontacten',
    'zaken/zaakcontactmomenten',
    'zaken/zaakverzoeken',
    'zaken/zaakeigenschappen',
  ],
  ['besluiten/besluiten'],
  ['zaken/zaken'],
  ['documenten/enkelvoudiginformatieobjecten'],
];
const MET_ZAAK: ReadonlySet<string> = new Set(['zaken/statussen']);

const sleutel = (o: Pick<ImportObject, 'bron'>): string => bronSleutel(o.bron);

/**
 * The cut-over (docs/moving-in.md): what the previous completed run of the same source (base URL) into the same
 * tenant brought, that this run did not read and the source answers 404 or 410 for, is removed here (unless the run
 * only reports: `verwijderen` false, or a dry run), in the order the standard's deletes need, each through this
 * platform's own DELETE (its notification and audit entry as any delete). Only objects the import brought (its
 * register, IMPORT_OBJECTEN); a zaak that holds anything here the import did not bring, or a document a zaak or besluit
 * here still links, is kept and reported with why. A limited run looks only within its selection. What is gone is
 * reported with the run (`opruiming`); what the previous run brought and was neither read nor removed is carried over
 * into this run's register.
 */
export async function ruimOp(deps: Deps, o: ImportOpdracht): Promise<void> {
  const r = await openRun(deps, o);
  const db = platformDb(deps.db);
  const runs = db.collection<StoredImport>(IMPORTEN_COLLECTION);
  const register = db.collection<ImportObject>(IMPORT_OBJECTEN);
  const verwijderen = !r.run.dryRun && r.run.verwijderen !== false;
  const vorige = await vorigeRun(deps, r.run);
  const opruiming: ImportOpruiming = { vorigeRun: vorige?._id ?? null, verwijderen, aantallen: {}, objecten: [] };
  if (vorige) {
    const eerder = (await register.find({ run: vorige._id }).toArray()).filter((x) => x.hier);
    const nu = new Set((await register.find({ run: o.run }).toArray()).filter((x) => !x.overgenomen).map(sleutel));
    const binnen = await selectie(r, eerder, nu);
    const kandidaten = eerder.filter((x) => !nu.has(sleutel(x)) && binnen(x));
    // (gone at the source: a 404 or 410 for the object itself; a source that does not say so keeps it here)
    const uitkomsten = new Map<string, ImportOpgeruimd>();
    const weg: ImportObject[] = [];
    await zijAanZij(kandidaten, PARALLEL, async (x) => {
      const antwoord = await r.bron.get(x.bron, A.ZgwObject).then(
        () => 'er' as const,
        (err: unknown) => {
          if (err instanceof BronFout && (err.status === 404 || err.status === 410)) return 'weg' as const;
          if (err instanceof BronFout) return err;
          throw err;
        },
      );
      if (antwoord === 'weg') weg.push(x);
      else if (antwoord !== 'er') uitkomsten.set(sleutel(x), uitkomst(x, 'behouden', `de bron zegt niet of het er nog is: ${antwoord.message}`));
    });
    await r.bron.bewaarTempo();
    for (const x of weg) uitkomsten.set(sleutel(x), uitkomst(x, 'te-verwijderen'));
    if (verwijderen) await verwijder(r, weg, eerder, uitkomsten);
    for (const u of uitkomsten.values()) {
      const a = (opruiming.aantallen[u.soort] ??= { verwijderd: 0, behouden: 0, teVerwijderen: 0 });
      a[u.uitkomst === 'te-verwijderen' ? 'teVerwijderen' : u.uitkomst]++;
      if (opruiming.objecten.length < IMPORT_MAX_OPRUIMING) opruiming.objecten.push(u);
    }
    // what the previous run brought, not read now and still here: carried over (so the next run compares with it too)
    const over = eerder.filter((x) => !nu.has(sleutel(x)) && uitkomsten.get(sleutel(x))?.uitkomst !== 'verwijderd');
    for (let i = 0; i < over.length; i += 500)
      await register.bulkWrite(
        over.slice(i, i + 500).map((x) => {
          const _id = `${o.run} ${sleutel(x)}`;
          return { replaceOne: { filter: { _id }, replacement: { ...x, _id, run: o.run, overgenomen: true }, upsert: true } };
        }),
        { ordered: false },
      );
  }
  await runs.updateOne({ _id: o.run }, { $set: { opruiming, bijgewerkt: new Date() } });
  const tellen = (u: ImportOpgeruimd['uitkomst']) => opruiming.objecten.filter((x) => x.uitkomst === u).length;
  deps.log.info(
    {
      run: o.run,
      vorigeRun: opruiming.vorigeRun,
      verwijderd: tellen('verwijderd'),
      behouden: tellen('behouden'),
      teVerwijderen: tellen('te-verwijderen'),
    },
    'import: what the source deleted since the previous run',
  );
}

const uitkomst = (x: ImportObject, u: ImportOpgeruimd['uitkomst'], reden?: string): ImportOpgeruimd => ({
  soort: x.soort,
  bron: x.bron,
  hier: x.hier ?? '',
  uitkomst: u,
  ...(reden ? { reden } : {}),
});

/** The latest run of the same source into the same tenant, before this one, that ended `afgerond` (no dry run). */
async function vorigeRun(deps: Deps, run: StoredImport): Promise<StoredImport | null> {
  const runs = platformDb(deps.db).collection<StoredImport>(IMPORTEN_COLLECTION);
  const cursor = runs.find({ tenant: run.tenant }).sort({ tenant: 1, aangemaakt: -1 });
  for await (const r of cursor)
    if (r._id !== run._id && r.aangemaakt < run.aangemaakt && r.bron === run.bron && r.status === 'afgerond' && !r.dryRun) return r;
  return null;
}

/**
 * Whether an object of the register lies within this run's selection: everything for a whole registration; for a
 * limited run, its zaken by their zaaktype (each version of those named), startdatum and bronorganisatie as the
 * register keeps them, what names one of those zaken, the besluiten's documents by besluit, and the documents (with
 * their gebruiksrechten and verzendingen) those links name.
 */
async function selectie(r: Run, eerder: ImportObject[], nu: Set<string>): Promise<(x: ImportObject) => boolean> {
  const sel = r.run.selectie;
  if (!sel) return () => true;
  const versies = new Set<string>();
  for (const identificatie of sel.zaaktypen)
    for (const zt of await r.bron.all(zgwUrl(bronApi(r.run, 'catalogi'), 'zaaktypen', { identificatie, status: 'alles' }), A.ZgwObject))
      versies.add(bronSleutel(zt.url));
  const zaakBinnen = (x: ImportObject) =>
    (!sel.zaaktypen.length || versies.has(x.zaaktype ?? '')) &&
    (!sel.vanaf || (x.startdatum ?? '') >= sel.vanaf) &&
    (!sel.tot || (x.startdatum ?? '') <= sel.tot) &&
    (!sel.bronorganisatie || x.bronorganisatie === sel.bronorganisatie);
  const zaken = new Set(eerder.filter((x) => x.soort === 'zaken/zaken' && (zaakBinnen(x) || nu.has(sleutel(x)))).map(sleutel));
  const besluiten = new Set(eerder.filter((x) => x.soort === 'besluiten/besluiten' && x.zaak && zaken.has(x.zaak)).map(sleutel));
  const links = eerder.filter((x) => (x.zaak && zaken.has(x.zaak)) || (x.besluit && besluiten.has(x.besluit)));
  const documenten = new Set(links.map((x) => x.informatieobject).filter((d): d is string => !!d));
  return (x) => {
    if (x.soort === 'zaken/zaken') return zaken.has(sleutel(x));
    if (x.zaak) return zaken.has(x.zaak);
    if (x.besluit) return besluiten.has(x.besluit);
    if (x.informatieobject) return documenten.has(x.informatieobject);
    return documenten.has(sleutel(x));
  };
}

/** Why our DELETE was refused, for the report. */
const waarom = (err: unknown): string => {
  if (err instanceof ZgwCallError) {
    const p = err.problem as { detail?: string; invalidParams?: { name?: string; code?: string; reason?: string }[] } | undefined;
    const params = (p?.invalidParams ?? []).map((i) => `${i.name}: ${i.code ? `${i.code}: ` : ''}${i.reason}`).join('; ');
    return `${err.status}: ${params || p?.detail || err.message}`.slice(0, 500);
  }
  return String((err as Error)?.message ?? err).slice(0, 500);
};

/** Removes here what is gone at the source (see ruimOp), in ORDE; each outcome set in `uitkomsten`. */
async function verwijder(r: Run, weg: ImportObject[], eerder: ImportObject[], uitkomsten: Map<string, ImportOpgeruimd>): Promise<void> {
  const eigen = new Set(eerder.map((x) => x.hier!));
  const wegHier = new Set(weg.map((x) => x.hier!));
  const zet = (x: ImportObject, u: ImportOpgeruimd['uitkomst'], reden?: string) => uitkomsten.set(sleutel(x), uitkomst(x, u, reden));
  for (const fase of ORDE) {
    const deze = weg.filter((x) => fase.includes(x.soort));
    await zijAanZij(deze, fase.includes('zaken/zaken') ? 1 : PARALLEL, async (x) => {
      try {
        if (x.soort === 'zaken/zaken') {
          const anders = await nietVanDeImport(r, x.hier!, eigen, wegHier);
          if (anders.length) return void zet(x, 'behouden', `de zaak heeft hier wat de import niet bracht: ${anders.slice(0, 5).join(', ')}`);
        }
        await verwijderHier(r, x.hier!);
        zet(x, 'verwijderd');
      } catch (err) {
        if (!(err instanceof ZgwCallError) || err.technisch) throw err;
        zet(x, 'behouden', waarom(err));
      }
    });
  }
  // a status goes with its zaak
  const zaken = new Set(weg.filter((x) => x.soort === 'zaken/zaken' && uitkomsten.get(sleutel(x))?.uitkomst === 'verwijderd').map(sleutel));
  for (const x of weg.filter((w) => MET_ZAAK.has(w.soort) || !ORDE.some((f) => f.includes(w.soort))))
    if (x.zaak && zaken.has(x.zaak)) zet(x, 'verwijderd');
    else zet(x, 'behouden', 'gaat alleen met zijn zaak, en die is er hier nog');
}

/**
 * Our DELETE of `url`. A document's delete leaves a tombstone until the outbox relay has published its notification,
 * and two such tombstones clash on the documents' unique index (bronorganisatie, identificatie) until then (a 400
 * `unique`): tried again, up to half a minute.
 */
async function verwijderHier(r: Run, url: string): Promise<void> {
  for (let poging = 0; ; poging++) {
    try {
      return await r.hier.delete(url);
    } catch (err) {
      const uniek = err instanceof ZgwCallError && err.status === 400 && JSON.stringify(err.problem ?? '').includes('"unique"');
      if (!uniek || poging >= 60) throw err;
      await new Promise((done) => setTimeout(done, 500));
    }
  }
}

const Lijst = A.Lijst(A.ZgwObject);

/**
 * What our zaak at `zaak` holds that would go with it and is not the import's (its parts here that the import did not
 * bring, a besluit, a deelzaak that is not gone at the source too): our URLs. A zaak gone here already holds nothing.
 */
async function nietVanDeImport(r: Run, zaak: string, eigen: Set<string>, weg: Set<string>): Promise<string[]> {
  const hier = await r.hier.find(zaak, A.Ruw);
  if (!hier) return [];
  const alle = async (url: string) => {
    const out: string[] = [];
    for (let next: string | null = url; next;) {
      const page: { results: { url: string }[]; next?: string | null } = await r.hier.get(next, Lijst);
      out.push(...page.results.map((x) => x.url));
      next = page.next ?? null;
    }
    return out;
  };
  const lijsten = await Promise.all([
    // (the parts that go with it: a zaak is removed only when each is the import's)
    ...ZAAK_DELEN.map((c) => alle(zgwUrl(`${r.base}/zaken/api/v1`, c, { zaak }))),
    alle(`${zaak}/zaakeigenschappen`),
    alle(zgwUrl(`${r.base}/besluiten/api/v1`, 'besluiten', { zaak })),
  ]);
  const deelzaken = Array.isArray(hier.deelzaken) ? hier.deelzaken.filter((u): u is string => typeof u === 'string') : [];
  return [...lijsten.flat().filter((u) => !eigen.has(u)), ...deelzaken.filter((u) => !weg.has(u))];
}
