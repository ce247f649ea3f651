import { fieldOf } from '../../common/resources/expand';
import type { References } from '../../common/platform/references';
import type { ResultaatTypeLink } from '../../common/platform/links';

/** What the archiving reads of a resultaattype. */
type Archiefregels = Pick<ResultaatTypeLink, 'archiefnominatie' | 'archiefactietermijn' | 'brondatumArchiefprocedure'>;
import { ARCHIEFNOMINATIE, type ZaakDoc, type ZaakEigenschapDoc, type ZaakObjectDoc } from './schemas';

/**
 * The archiving fields a zaak gets when it is closed (zrc-021): archiefnominatie from its resultaattype when the zaak
 * has none, and archiefactiedatum = brondatum + archiefactietermijn, the brondatum derived as the resultaattype's
 * brondatumArchiefprocedure.afleidingswijze says. They follow their sources after that (see herberekenen.ts).
 */
export interface BrondatumSources {
  /** The zaak with its einddatum already set. */
  zaak: ZaakDoc;
  hoofdzaak: () => Promise<ZaakDoc | undefined>;
  eigenschappen: () => Promise<ZaakEigenschapDoc[]>;
  /** The besluiten of the zaak, as their Besluiten API serves them. */
  besluiten: () => Promise<object[]>;
  zaakobjecten: () => Promise<ZaakObjectDoc[]>;
  relevanteZaken: () => Promise<ZaakDoc[]>;
  refs: References;
  fetchJson: (url: string) => Promise<{ status: number; body: unknown }>;
}

/** Adds an ISO 8601 duration (years, months, weeks, days; time parts ignored) to a YYYY-MM-DD date. */
export function addDuration(datum: string, duur: string): string | null {
  const m = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T.*)?$/.exec(duur);
  if (!m) return null;
  const d = new Date(`${datum.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return null;
  const [, y, mo, w, dd] = m.map((v) => Number(v ?? 0));
  // Years and months keep the day, clamped to the last day of the month reached (2024-02-29 + P1Y = 2025-02-28),
  // as calendar arithmetic does; weeks and days are added after.
  const months = d.getUTCFullYear() * 12 + d.getUTCMonth() + y! * 12 + mo!;
  const lastDay = new Date(Date.UTC(Math.floor(months / 12), (months % 12) + 1, 0)).getUTCDate();
  const out = new Date(Date.UTC(Math.floor(months / 12), months % 12, Math.min(d.getUTCDate(), lastDay)));
  out.setUTCDate(out.getUTCDate() + w! * 7 + dd!);
  return out.toISOString().slice(0, 10);
}

/**
 * A date as the standard writes it, as YYYY-MM-DD; null when it is none. ISO 8601 (`2024-03-05`, also unpadded like
 * `2008-1-1`, optionally with a time) and the forms of a `datum` and `datum-tijd` eigenschap (ztc-015): `YYYYMMDD`
 * (`20220728`) and `YYYYMMDDhhmmss` (`20220728134022`). A day that does not exist (`20240230`) is none.
 */
export function datumUit(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:$|[T ])/.exec(s) ?? /^(\d{4})(\d{2})(\d{2})(?:\d{6})?$/.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dag = new Date(Date.UTC(y, mo - 1, d));
  if (dag.getUTCFullYear() !== y || dag.getUTCMonth() !== mo - 1 || dag.getUTCDate() !== d) return null;
  return dag.toISOString().slice(0, 10);
}

/** The latest of some dates (any form datumUit reads); null when none. */
function latest(dates: unknown[]): string | null {
  const valid = dates.map(datumUit).filter((d): d is string => d !== null);
  return valid.length ? valid.sort().at(-1)! : null;
}

export async function brondatum(resultaattype: Archiefregels, src: BrondatumSources): Promise<string | null> {
  const proc: Partial<NonNullable<ResultaatTypeLink['brondatumArchiefprocedure']>> = resultaattype.brondatumArchiefprocedure ?? {};
  const einddatum = datumUit(src.zaak.einddatum);
  const kenmerk = String(proc.datumkenmerk ?? '');
  switch (proc.afleidingswijze) {
    case 'afgehandeld':
      return einddatum;
    case 'termijn':
      return einddatum && proc.procestermijn ? addDuration(einddatum, String(proc.procestermijn)) : null;
    case 'hoofdzaak':
      return latest([(await src.hoofdzaak())?.einddatum]);
    case 'eigenschap':
      return latest((await src.eigenschappen()).filter((e) => e.naam === kenmerk).map((e) => e.waarde));
    case 'ingangsdatum_besluit':
      return latest((await src.besluiten()).map((b) => fieldOf(b, 'ingangsdatum')));
    case 'vervaldatum_besluit':
      // zrc-021: the vervaldatum itself (the Catalogi API's description says the day after; the Zaken API's rule
      // decides what this API derives)
      return latest((await src.besluiten()).map((b) => fieldOf(b, 'vervaldatum')));
    case 'gerelateerde_zaak':
      return latest((await src.relevanteZaken()).map((z) => z.einddatum));
    case 'zaakobject': {
      // The kenmerk of each zaakobject of the objecttype: from the object it points at, or from the
      // objectIdentificatie the zaakobject itself holds.
      const values: unknown[] = [];
      for (const o of (await src.zaakobjecten()).filter((x) => x.objectType === proc.objecttype)) {
        if (o.object) {
          const { status, body } = await src.fetchJson(o.object);
          if (status === 200 && body && typeof body === 'object') values.push(fieldOf(body, kenmerk));
        } else if (o.objectIdentificatie) {
          values.push(o.objectIdentificatie[kenmerk]);
        }
      }
      return latest(values);
    }
    default:
      // ander_datumkenmerk and anything unknown: the brondatum is set by hand later.
      return null;
  }
}

/** The archiving fields of a zaak the platform derives (zrc-021), the brondatum as startdatumBewaartermijn. */
export const AFGELEID = ['archiefnominatie', 'archiefactiedatum', 'startdatumBewaartermijn'] as const;
export type AfgeleidVeld = (typeof AFGELEID)[number];
export type Archivering = Pick<ZaakDoc, AfgeleidVeld>;

/**
 * What zrc-021 derives from a resultaattype and the zaak's sources as they are now: archiefnominatie from the
 * resultaattype, archiefactiedatum = brondatum + archiefactietermijn and the brondatum as startdatumBewaartermijn;
 * null where it cannot be derived (no resultaat, no archiefactietermijn, no brondatum: zrc-021 sets no date then).
 */
export async function afleiden(resultaattype: Archiefregels | undefined, src: BrondatumSources): Promise<Archivering> {
  const nominatie = ARCHIEFNOMINATIE.safeParse(resultaattype?.archiefnominatie);
  const termijn = resultaattype?.archiefactietermijn ? String(resultaattype.archiefactietermijn) : '';
  const bron = resultaattype && termijn ? await brondatum(resultaattype, src) : null;
  const actiedatum = bron ? addDuration(bron, termijn) : null;
  return {
    archiefnominatie: nominatie.success ? nominatie.data : null,
    archiefactiedatum: actiedatum,
    startdatumBewaartermijn: actiedatum ? bron : null,
  };
}

const leeg = (v: unknown) => v === null || v === undefined || v === '';

/**
 * The changes that bring a closed zaak's archiving to what its sources derive now (an empty object when it is there
 * already), with the fields that follow their sources from then on (`_archief`). A field follows when the platform
 * derived it before (it is in `_archief`) or when it is empty; a value a client set, before the zaak closed or by
 * changing it after, stays (ander_datumkenmerk's date, set by hand, among them). startdatumBewaartermijn follows only
 * together with the archiefactiedatum it is the brondatum of.
 */
export function volgen(zaak: ZaakDoc, afgeleid: Archivering): Partial<ZaakDoc> {
  const eerder = new Set<string>(zaak._archief ?? []);
  const volgt = (veld: AfgeleidVeld) => eerder.has(veld) || leeg(zaak[veld]);
  const velden = AFGELEID.filter((veld) => volgt(veld) && (veld !== 'startdatumBewaartermijn' || volgt('archiefactiedatum')));
  const out: Partial<ZaakDoc> = {};
  for (const veld of velden) if ((zaak[veld] ?? null) !== afgeleid[veld]) Object.assign(out, { [veld]: afgeleid[veld] });
  const same = zaak._archief && zaak._archief.length === velden.length && velden.every((v) => eerder.has(v));
  if (!same) out._archief = velden;
  return out;
}

/** The archiving fields to set on a zaak that gets its eindstatus now (the zaak with its einddatum in `src`). */
export async function archiveringBijAfsluiten(resultaattype: Archiefregels | undefined, src: BrondatumSources): Promise<Partial<ZaakDoc>> {
  return volgen(src.zaak, await afleiden(resultaattype, src));
}
