import type { LijstStatus, VernietigingOpdracht, ZaakUitkomst } from '@zgw/shared';
import type { Deps } from '../common/context';
import { binnen, type Uitvoer } from './lijst';
import { ruimTrailOp } from './trail';
import { maakVerklaring } from './verklaring';
import { documentWeg, vernietigWortel } from './zaak';

/**
 * The zaken the workflow carries out, each a root with its deelzaken on the list: the zaken on it that are no deelzaak
 * of another zaak on it, whose tree still holds a zaak to do (`voorgesteld`) or begun (`bezig`): also a root skipped
 * before a crash whose deelzaken were not done yet.
 */
async function wortels(u: Uitvoer): Promise<string[]> {
  const alle = (await u.items.find({ lijst: u.o.lijst }, { projection: { zaak: 1, deelzaken: 1, status: 1 } }).toArray()).filter(
    (i) => i.status !== 'uitgezonderd',
  );
  const byZaak = new Map(alle.map((i) => [i.zaak, i]));
  const deel = new Set(alle.flatMap((i) => i.deelzaken));
  const teDoen = (zaak: string, gezien = new Set<string>()): boolean => {
    const item = byZaak.get(zaak);
    if (!item || gezien.has(zaak)) return false;
    gezien.add(zaak);
    return item.status === 'voorgesteld' || item.status === 'bezig' || item.deelzaken.some((d) => teDoen(d, gezien));
  };
  return alle.filter((i) => !deel.has(i.zaak) && teDoen(i.zaak)).map((i) => i.zaak);
}

/**
 * After every zaak: the documents kept because another zaak of the list still used them when their zaak went (two
 * zaken of the list at once) go now that nothing uses them; and the trail of everything the list destroyed is removed
 * once more (an entry that reached the trail between its registration and its zaak's end).
 */
async function naloop(u: Uitvoer): Promise<void> {
  const items = await u.items.find({ lijst: u.o.lijst, status: 'vernietigd' }, { projection: { verslag: 1 } }).toArray();
  for (const item of items) {
    const behouden = item.verslag?.documentenBehouden ?? [];
    if (!behouden.length) continue;
    const blijft: { url: string; reden: string }[] = [];
    let weg = 0;
    for (const b of behouden) {
      const r = await documentWeg(u, b.url);
      if (r.weg) weg++;
      else blijft.push({ url: b.url, reden: r.reden ?? b.reden });
    }
    await u.items.updateOne({ _id: item._id }, { $set: { 'verslag.documentenBehouden': blijft }, $inc: { 'verslag.documenten': weg } });
    if (weg)
      await ruimTrailOp(
        u,
        behouden.filter((b) => !blijft.some((x) => x.url === b.url)).map((b) => b.url),
      );
  }
  const geregistreerd = await u.vernietigd.find({ lijst: u.o.lijst }, { projection: { _id: 1 } }).toArray();
  for (let i = 0; i < geregistreerd.length; i += 500)
    await ruimTrailOp(
      u,
      geregistreerd.slice(i, i + 500).map((g) => g._id),
    );
}

/** The list's status as the workflow ends it; the moment it ended kept once (a verklaring's own moment stays). */
async function zetStatus(u: Uitvoer, status: LijstStatus, fout?: string): Promise<void> {
  await u.lijsten.updateOne(
    { _id: u.o.lijst },
    { $set: { status, bijgewerkt: new Date(), ...(fout ? { 'uitvoering.fout': fout.slice(0, 2000) } : {}) } },
  );
  if (status !== 'bezig')
    await u.lijsten.updateOne({ _id: u.o.lijst, 'uitvoering.klaar': { $exists: false } }, { $set: { 'uitvoering.klaar': new Date() } });
}

/** The activities of workflow `vernietigen`: each within the list's organisation, each safe to do again. */
export function createVernietigingActivities(deps: Deps) {
  return {
    vernietigingWortels: (o: VernietigingOpdracht): Promise<string[]> => binnen(deps, o, wortels),
    vernietigZaak: (o: VernietigingOpdracht, zaak: string): Promise<ZaakUitkomst> => binnen(deps, o, (u) => vernietigWortel(u, zaak)),
    vernietigingNaloop: (o: VernietigingOpdracht): Promise<void> => binnen(deps, o, naloop),
    maakVerklaring: (o: VernietigingOpdracht): Promise<void> => binnen(deps, o, maakVerklaring),
    zetLijstStatus: async (o: VernietigingOpdracht, status: LijstStatus, fout?: string): Promise<void> => {
      await binnen(deps, o, (u) => zetStatus(u, status, fout));
      deps.log.info({ lijst: o.lijst, status, ...(fout ? { fout } : {}) }, 'destruction list ended');
    },
  };
}

export type VernietigingActivities = ReturnType<typeof createVernietigingActivities>;
