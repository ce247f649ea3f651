import { publish, resultaattypeBody, type Referentielijsten } from './catalogi.fixtures';
import { besluittypeMetDocumenttype, besluitZaaktype } from './besluiten.fixtures';
import type { TestApp } from './harness';
import { createZ, zaakBody } from './zaken.fixtures';

export const LIJSTEN = '/admin/api/v1/vernietigingslijsten';
export const INSTELLINGEN = `${LIJSTEN}/instellingen`;

/** Types for destruction lists: a zaaktype whose zaken are destroyed (or kept), and one for the verklaringen. */
export interface Opzet {
  catalogus: string;
  zaaktype: string;
  eind: string;
  /** vernietigen, archiefactietermijn P1Y from the einddatum. */
  weg: string;
  /** blijvend_bewaren. */
  bewaren: string;
  besluittype: string;
  /** The document type of both zaaktypen and of the besluittype. */
  iot: string;
  /** A zaak of the verklaringen's zaaktype (every resultaattype blijvend_bewaren). */
  verklaringZaak: string;
}

export async function opzet(t: TestApp, sl: Referentielijsten): Promise<Opzet> {
  const b = await besluittypeMetDocumenttype(t);
  const bewarenKlasse = sl.add('resultaten/a8888888-8888-4888-8888-888888888888', {
    procesType: sl.procestype,
    procestermijn: 'nihil',
    nummer: 4,
    naam: 'Bewaren',
    waardering: 'blijvend_bewaren',
    bewaartermijn: null,
  });
  const zaaktype = async (identificatie: string, omschrijving: string, nominaties: ('vernietigen' | 'blijvend_bewaren')[]) => {
    const { zt, part, eind } = await besluitZaaktype(t, sl, b, { identificatie, omschrijving });
    const rt: Record<string, string> = {};
    for (const nominatie of nominaties)
      rt[nominatie] = (
        await part(
          'resultaattypen',
          resultaattypeBody(sl, {
            omschrijving: nominatie,
            selectielijstklasse: nominatie === 'vernietigen' ? sl.resultaat.vast : bewarenKlasse,
            archiefnominatie: nominatie,
            archiefactietermijn: nominatie === 'vernietigen' ? 'P1Y' : null,
          }),
        )
      ).url;
    await part('zaaktype-informatieobjecttypen', { informatieobjecttype: 'besluitdocument', volgnummer: 1, richting: 'inkomend' });
    await publish(t, zt.url);
    return { url: zt.url as string, eind: eind.url as string, rt };
  };
  const zt = await zaaktype('ZT-V', 'Vergunning', ['vernietigen', 'blijvend_bewaren']);
  const vv = await zaaktype('ZT-VV', 'Verklaringen van vernietiging', ['blijvend_bewaren']);
  const verklaringZaak = (await createZ(t, 'zaken', zaakBody(vv.url, { omschrijving: 'Verklaringen' }))).url as string;
  return {
    catalogus: b.catalogus,
    zaaktype: zt.url,
    eind: zt.eind,
    weg: zt.rt.vernietigen!,
    bewaren: zt.rt.blijvend_bewaren!,
    besluittype: b.besluittype,
    iot: b.informatieobjecttype,
    verklaringZaak,
  };
}

/** A zaak of the zaaktype, closed on `dag` with a resultaat of `resultaattype` (unless `open`). */
export async function zaak(
  t: TestApp,
  s: Opzet,
  opts: { dag?: string; resultaattype?: string; open?: boolean; hoofdzaak?: string; omschrijving?: string } = {},
): Promise<Record<string, any>> {
  const z = await createZ(
    t,
    'zaken',
    zaakBody(s.zaaktype, {
      startdatum: '2020-01-15',
      omschrijving: opts.omschrijving ?? 'Te vernietigen',
      ...(opts.hoofdzaak ? { hoofdzaak: opts.hoofdzaak } : {}),
    }),
  );
  if (opts.open) return z;
  await sluit(t, s, z.url, opts);
  return z;
}

/** Closes a zaak on `dag` (default 2020-02-01: its archiefactiedatum 2021-02-01) with a resultaat of `resultaattype`. */
export async function sluit(t: TestApp, s: Opzet, zaakUrl: string, opts: { dag?: string; resultaattype?: string } = {}): Promise<void> {
  await createZ(t, 'resultaten', { zaak: zaakUrl, resultaattype: opts.resultaattype ?? s.weg });
  await createZ(t, 'statussen', { zaak: zaakUrl, statustype: s.eind, datumStatusGezet: `${opts.dag ?? '2020-02-01'}T10:00:00Z` });
}

export const uuidOf = (url: string): string => url.slice(url.lastIndexOf('/') + 1);
