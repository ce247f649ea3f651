import type { Caller } from '../../common/auth/auth';
import { publicFields, type Stored } from '../../common/storage/store';
import { AFGELEID, afleiden, volgen } from './archief';
import { linkedIds, type Zaken } from './context';
import type { ZaakDoc } from './schemas';

/**
 * Archive dates that stay true: what a closed zaak derives of its archiving (zrc-021, see archief.ts) follows its
 * sources when they change after it closed. A write of a source (its resultaat, a zaakeigenschap, a zaakobject, a
 * besluit) first marks the zaak (`_follow`), then is stored, then the zaak is recomputed: a zaak update with its
 * notification and audit entry when anything changed, after which the mark goes. A process that stops in between
 * leaves the mark, and the follow-up sweep (Resource.settle, the zaak's afterWrite) recomputes the zaak. An open zaak
 * costs nothing: nothing of it is derived yet.
 */

/**
 * Whether the zaak's archiving follows its sources: it is closed, was closed by this platform (`_archief`), and is not
 * archived yet (once archived or transferred, its dates are what was done: zrc-022).
 */
export const volgt = (zaak: ZaakDoc | null | undefined): zaak is ZaakDoc =>
  !!zaak?.einddatum && Array.isArray(zaak._archief) && nogTeArchiveren(zaak);
const nogTeArchiveren = (zaak: ZaakDoc) => (zaak.archiefstatus ?? 'nog_te_archiveren') === 'nog_te_archiveren';

/** Before a write to a source of this zaak: marks the zaak when its archiving follows; whether it did. */
export async function markeer(z: Zaken, zaak: Stored<ZaakDoc> | null | undefined): Promise<boolean> {
  if (!volgt(zaak)) return false;
  await z.zaken.store.followUp({ _id: zaak._id }, { $set: { _follow: new Date() } });
  return true;
}

/** The changes that bring the zaak's archiving to what its resultaat and sources derive now (none: `{}`). */
export async function herzien(z: Zaken, zaak: ZaakDoc & { _id: string }): Promise<Partial<ZaakDoc>> {
  const resultaat = zaak._resultaat ? await z.resultaten.store.get(zaak._resultaat) : null;
  const resultaattype = resultaat ? (await z.refs.catalogus('resultaattypen', 'resultaattype', resultaat.resultaattype)).doc : undefined;
  return volgen(zaak, await afleiden(resultaattype, z.brondatumSources(zaak)));
}

/**
 * After a write to a source: the zaak, read again, recomputed where its archiving follows (a zaak update, notified
 * and in its audit trail like any other), and the marks made before this began taken away.
 */
export async function herbereken(z: Zaken, zaakId: string, caller: Caller): Promise<void> {
  const begin = new Date();
  const zaak = await z.zaken.store.get(zaakId);
  if (!volgt(zaak)) return;
  const changes = await herzien(z, zaak);
  if (Object.keys(changes).length) {
    const doc = { ...publicFields(zaak), _vertrouwelijkheid: zaak._vertrouwelijkheid, ...changes };
    await z.zaken.update(zaak, doc, z.zaken.ctx(caller, zaak._id), 'partial_update');
  }
  // (a mark made after the sources were read stays: its write may not be in them)
  await z.zaken.store.followUp({ _id: zaakId, _follow: { $lte: begin } }, { $unset: { _follow: '' } });
}

/**
 * After a zaak's einddatum changed (closed, reopened): its deelzaken (afleidingswijze hoofdzaak) and the zaken that
 * name it among their relevanteAndereZaken (gerelateerde_zaak) follow.
 */
export async function volgersHerberekenen(z: Zaken, zaak: Stored<ZaakDoc>, caller: Caller): Promise<void> {
  const deelzaken = linkedIds(zaak, 'deelzaken');
  const volgers = [
    ...(deelzaken.length ? await z.zaken.store.getMany(deelzaken) : []),
    ...(await z.zaken.store.find({ 'relevanteAndereZaken.url': z.zaken.url(zaak._id) })),
  ];
  for (const id of new Set(volgers.filter(volgt).map((v) => v._id))) await herbereken(z, id, caller);
}

/**
 * A client's write of a closed zaak: a derived field it changes is its own from then on (it no longer follows); the
 * others follow the sources the write changes (its hoofdzaak, its relevanteAndereZaken).
 */
export async function naZaakwijziging(z: Zaken, current: Stored<ZaakDoc>, doc: ZaakDoc): Promise<Partial<ZaakDoc>> {
  const eigen = new Set(AFGELEID.filter((veld) => (doc[veld] ?? null) !== (current[veld] ?? null)));
  const _archief = (current._archief ?? []).filter((veld) => !eigen.has(veld));
  const bronnen =
    (doc.hoofdzaak ?? null) !== (current.hoofdzaak ?? null) ||
    JSON.stringify(doc.relevanteAndereZaken ?? []) !== JSON.stringify(current.relevanteAndereZaken ?? []);
  if (!bronnen || !nogTeArchiveren(doc)) return { _archief };
  return { _archief, ...(await herzien(z, { ...current, ...doc, _archief })) };
}
