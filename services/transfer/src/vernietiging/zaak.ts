import { z } from 'zod';
import { TOELICHTING, ZgwCallError, eigenReden, zgwUrl, type VernietigingslijstZaakDoc, type Weigerreden, type ZaakUitkomst } from '@zgw/shared';
import type { Uitvoer } from './lijst';
import { registreer, ruimTrailOp, schrap } from './trail';

type Item = VernietigingslijstZaakDoc;

const Object_ = z.looseObject({ url: z.string().min(1) });
const Koppeling = z.looseObject({ url: z.string().min(1), informatieobject: z.string().min(1) });
const Oio = z.looseObject({ object: z.string(), objectType: z.string().optional() });

/** A zaak as the Zaken API stores it: the facts a list checks again at execution. */
interface ZaakFeiten {
  _id: string;
  einddatum?: string | null;
  archiefnominatie?: string | null;
  archiefstatus?: string | null;
  archiefactiedatum?: string | null;
  /** Set while the zaak is on legal hold (what opBewaring of the Zaken API reads). */
  _bewaardSinds?: unknown;
  _deelzaken?: string[];
}

/** The items of the list's zaken still to do (or done) under a root: the root first, its deelzaken after it. */
async function boomVan(u: Uitvoer, wortel: Item): Promise<Item[]> {
  const out = [wortel];
  for (let i = 0; i < out.length; i++) {
    const deel = out[i]!.deelzaken;
    if (!deel.length) continue;
    const items = await u.items.find({ lijst: u.o.lijst, zaak: { $in: deel } }).toArray();
    out.push(...items.filter((x) => x.status !== 'uitgezonderd'));
  }
  return out;
}

/**
 * Each zaak of the tree checked again before anything of it goes: one whose facts changed since the approval (its
 * archiefactiedatum or archiefnominatie, a hold, no longer closed), gone, or with a deelzaak that is not on the list, is
 * skipped with why; a hoofdzaak whose deelzaak is skipped stays too (its delete would take the deelzaak with it).
 */
async function toets(u: Uitvoer, boom: Item[]): Promise<Map<string, Weigerreden>> {
  const redenen = new Map<string, Weigerreden>();
  const opLijst = new Set(boom.map((i) => i.zaak));
  const zaken = u.db.collection<ZaakFeiten>('zaken');
  for (const item of boom) {
    if (item.status === 'overgeslagen') redenen.set(item.zaak, item.reden ?? 'gewijzigd-sinds-goedkeuring');
    if (item.status !== 'voorgesteld') continue;
    const zaak = await zaken.findOne({ _id: item.zaak, _tombstone: { $exists: false } });
    let reden: Weigerreden | null = !zaak
      ? (await u.vernietigd.findOne({ _id: item.url }))
        ? 'al-vernietigd'
        : 'bestaat-niet'
      : eigenReden(zaak, !!zaak._bewaardSinds);
    if (!reden && zaak && (zaak.archiefactiedatum !== item.archiefactiedatum || zaak.archiefnominatie !== item.archiefnominatie))
      reden = 'gewijzigd-sinds-goedkeuring';
    const buiten = (zaak?._deelzaken ?? []).filter((d) => !opLijst.has(d));
    if (!reden && buiten.length && (await zaken.countDocuments({ _id: { $in: buiten }, _tombstone: { $exists: false } })))
      reden = 'deelzaak-niet-op-lijst';
    if (reden) redenen.set(item.zaak, reden);
  }
  // from the leaves up: a hoofdzaak stays with a deelzaak that stays
  for (const item of [...boom].reverse())
    if (!redenen.has(item.zaak) && item.status === 'voorgesteld' && item.deelzaken.some((d) => redenen.has(d)))
      redenen.set(item.zaak, 'deelzaak-overgeslagen');
  return redenen;
}

/** Our DELETE of `url` (as the worker, notified and audited as any): true when it went now, false when it was gone. */
async function weg(u: Uitvoer, url: string): Promise<boolean> {
  return (await u.hier.call('DELETE', url, { accept: [404, 410] })).status < 300;
}

/** Why a document stays: the objects (zaken, besluiten) that still link it, or none (it may go). */
async function nogGebruikt(u: Uitvoer, document: string): Promise<string | null> {
  const links = await u.hier.all(zgwUrl(u.documenten, 'objectinformatieobjecten', { informatieobject: document }), Oio);
  if (!links.length) return null;
  return `nog gekoppeld aan ${links
    .slice(0, 3)
    .map((l) => `${l.objectType ?? 'object'} ${l.object}`)
    .join(', ')}${links.length > 3 ? ` en ${links.length - 3} meer` : ''}`;
}

/**
 * A document of a destroyed zaak: destroyed (with its content, through the Documenten API's DELETE) unless another
 * zaak or besluit still uses it; then kept, with why. Registered before its delete, out of the register when it stays.
 */
export async function documentWeg(u: Uitvoer, document: string): Promise<{ weg: boolean; reden?: string }> {
  // (gone already: destroyed before a crash of the step, which is done again)
  if (!(await u.hier.find(document, Object_))) return { weg: true };
  const gebruikt = await nogGebruikt(u, document);
  if (gebruikt) return { weg: false, reden: gebruikt };
  await registreer(u, 'document', [document]);
  try {
    await weg(u, document);
    return { weg: true };
  } catch (err) {
    // (the Documenten API refuses while a zaak or besluit links it: pending-relations)
    if (!(err instanceof ZgwCallError) || err.status !== 400) throw err;
    await schrap(u, document);
    return { weg: false, reden: `de Documenten API weigert: ${JSON.stringify(err.problem ?? '').slice(0, 300)}` };
  }
}

/**
 * One zaak of the list destroyed in the standard's order: its zaakobjecten; its besluiten with their
 * besluitinformatieobjecten; its zaakinformatieobjecten; the documents no other zaak or besluit still uses (their
 * content goes with them); its deelzaken on the list (each the same way); then the zaak (its rollen, statussen,
 * resultaat, eigenschappen with it). Every delete goes through this platform's API as the worker, so it is notified
 * and audited as any; a delete done before (a retry after a crash) is a 404 and does nothing. The documents and
 * besluiten found are kept on the item before their links go, so a retry still knows them. Then the trail of what
 * went goes too, and the item says what went and what stayed.
 */
async function vernietigItem(u: Uitvoer, item: Item, kinderen: (i: Item) => Item[], redenen: Map<string, Weigerreden>): Promise<void> {
  const url = item.url;
  await u.items.updateOne({ _id: item._id, status: 'voorgesteld' }, { $set: { status: 'bezig' } });
  await registreer(u, 'zaak', [url]);
  const tel: Record<string, number> = {};
  const plus = (veld: string, ging: boolean) => void (ging && (tel[veld] = (tel[veld] ?? 0) + 1));

  for (const zo of await u.hier.all(zgwUrl(u.zaken, 'zaakobjecten', { zaak: url }), Object_)) plus('zaakobjecten', await weg(u, zo.url));

  const besluiten = await u.hier.all(zgwUrl(u.besluiten, 'besluiten', { zaak: url }), Object_);
  if (besluiten.length) {
    await u.items.updateOne({ _id: item._id }, { $addToSet: { _besluiten: { $each: besluiten.map((b) => b.url) } } });
    await registreer(
      u,
      'besluit',
      besluiten.map((b) => b.url),
    );
  }
  for (const besluit of besluiten) {
    const bios = await u.hier.all(zgwUrl(u.besluiten, 'besluitinformatieobjecten', { besluit: besluit.url }), Koppeling);
    if (bios.length) await u.items.updateOne({ _id: item._id }, { $addToSet: { _documenten: { $each: bios.map((b) => b.informatieobject) } } });
    for (const bio of bios) plus('besluitinformatieobjecten', await weg(u, bio.url));
    plus('besluiten', await weg(u, besluit.url));
  }

  const zios = await u.hier.all(zgwUrl(u.zaken, 'zaakinformatieobjecten', { zaak: url }), Koppeling);
  if (zios.length) await u.items.updateOne({ _id: item._id }, { $addToSet: { _documenten: { $each: zios.map((z) => z.informatieobject) } } });
  for (const zio of zios) plus('zaakinformatieobjecten', await weg(u, zio.url));

  const documenten = (await u.items.findOne({ _id: item._id }, { projection: { _documenten: 1 } }))?._documenten ?? [];
  const behouden: { url: string; reden: string }[] = [];
  for (const document of documenten) {
    const r = await documentWeg(u, document);
    if (r.weg) plus('documenten', true);
    else behouden.push({ url: document, reden: r.reden ?? '' });
  }

  for (const deel of kinderen(item)) {
    await voerUit(u, deel, kinderen, redenen);
    plus('deelzaken', (await u.items.findOne({ _id: deel._id }, { projection: { status: 1 } }))?.status === 'vernietigd');
  }
  // a document the zaak shared only with its deelzaken goes now that they are gone
  for (const b of [...behouden]) {
    const r = await documentWeg(u, b.url);
    if (r.weg) {
      behouden.splice(behouden.indexOf(b), 1);
      plus('documenten', true);
    } else b.reden = r.reden ?? b.reden;
  }

  // The zaak stays (what went of it is gone) when its delete would take a deelzaak that stays with it, or when the
  // Zaken API refuses it: a hold set on it (or on a deelzaak) since it was checked (400 juridische-bewaring).
  const blijft = async (reden: Weigerreden, toelichting: string) => {
    await schrap(u, url);
    await u.items.updateOne({ _id: item._id }, { $set: { status: 'overgeslagen', reden, toelichting }, $unset: { _openZaak: '' } });
  };
  if (await u.items.countDocuments({ _id: { $in: kinderen(item).map((k) => k._id) }, status: 'overgeslagen' }))
    return blijft('deelzaak-overgeslagen', TOELICHTING['deelzaak-overgeslagen']);
  try {
    await weg(u, url);
  } catch (err) {
    if (!(err instanceof ZgwCallError) || err.status !== 400) throw err;
    const hold = JSON.stringify(err.problem ?? '').includes('juridische-bewaring');
    return blijft(
      hold ? 'juridische-bewaring' : 'gewijzigd-sinds-goedkeuring',
      `De Zaken API weigert de zaak te verwijderen: ${JSON.stringify(err.problem ?? '').slice(0, 300)}`,
    );
  }
  const gegaan = await u.vernietigd.find({ lijst: u.o.lijst, _id: { $in: [url, ...documenten] } }, { projection: { _id: 1 } }).toArray();
  const besluitUrls = (await u.items.findOne({ _id: item._id }, { projection: { _besluiten: 1 } }))?._besluiten ?? [];
  await ruimTrailOp(u, [...gegaan.map((g) => g._id), ...besluitUrls]);
  const inc = Object.fromEntries(Object.entries(tel).map(([k, v]) => [`verslag.${k}`, v]));
  await u.items.updateOne(
    { _id: item._id },
    {
      $set: { status: 'vernietigd', vernietigdOp: new Date().toISOString(), 'verslag.documentenBehouden': behouden },
      ...(Object.keys(inc).length ? { $inc: inc } : {}),
      $unset: { _openZaak: '' },
    },
  );
}

/** A zaak of the tree: skipped with why, or destroyed; a skipped hoofdzaak's deelzaken that may go, go on their own. */
async function voerUit(u: Uitvoer, item: Item, kinderen: (i: Item) => Item[], redenen: Map<string, Weigerreden>): Promise<void> {
  const reden = redenen.get(item.zaak);
  if (item.status === 'vernietigd' || (reden && item.status === 'overgeslagen')) {
    for (const deel of kinderen(item)) await voerUit(u, deel, kinderen, redenen);
    return;
  }
  if (reden && item.status === 'voorgesteld') {
    await u.items.updateOne(
      { _id: item._id, status: 'voorgesteld' },
      { $set: { status: 'overgeslagen', reden, toelichting: TOELICHTING[reden] }, $unset: { _openZaak: '' } },
    );
    for (const deel of kinderen(item)) await voerUit(u, deel, kinderen, redenen);
    return;
  }
  await vernietigItem(u, item, kinderen, redenen);
}

/**
 * A root zaak of the list (one that is no deelzaak of another zaak on it) and its deelzaken on the list, carried out:
 * checked again, then destroyed or skipped. Done again after a crash, it goes on where it was: what is gone is a 404,
 * what is done is done. Answers how many of the tree are destroyed and skipped.
 */
export async function vernietigWortel(u: Uitvoer, zaak: string): Promise<ZaakUitkomst> {
  const wortel = await u.items.findOne({ lijst: u.o.lijst, zaak });
  if (!wortel || wortel.status === 'uitgezonderd') return { vernietigd: 0, overgeslagen: 0 };
  const boom = await boomVan(u, wortel);
  const byZaak = new Map(boom.map((i) => [i.zaak, i]));
  const kinderen = (i: Item) => i.deelzaken.map((d) => byZaak.get(d)).filter((x): x is Item => !!x);
  const redenen = await toets(u, boom);
  await voerUit(u, wortel, kinderen, redenen);
  const na = await u.items.find({ _id: { $in: boom.map((i) => i._id) } }, { projection: { status: 1 } }).toArray();
  return { vernietigd: na.filter((i) => i.status === 'vernietigd').length, overgeslagen: na.filter((i) => i.status === 'overgeslagen').length };
}
