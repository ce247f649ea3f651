import type { References } from '../../common/platform/references';
import type { JsonObject } from '../../common/platform/schema-parts';
import { ARCHIEFNOMINATIE, type ZaakDoc, type ZaakEigenschapDoc, type ZaakObjectDoc } from './schemas';

/**
 * The archiving fields a zaak gets when it is closed (zrc-021): archiefnominatie from its resultaattype when the zaak
 * has none, and archiefactiedatum = brondatum + archiefactietermijn, the brondatum derived as the resultaattype's
 * brondatumArchiefprocedure.afleidingswijze says.
 */
export interface BrondatumSources {
  /** The zaak with its einddatum already set. */
  zaak: ZaakDoc;
  hoofdzaak: () => Promise<ZaakDoc | undefined>;
  eigenschappen: () => Promise<ZaakEigenschapDoc[]>;
  /** The besluiten of the zaak, as their Besluiten API serves them. */
  besluiten: () => Promise<JsonObject[]>;
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

/** The latest of some dates (YYYY-MM-DD, also unpadded like 2008-1-1, optionally with a time); null when none. */
function latest(dates: unknown[]): string | null {
  const valid: string[] = [];
  for (const v of dates) {
    const m = typeof v === 'string' ? /^(\d{4})-(\d{1,2})-(\d{1,2})(?:$|T)/.exec(v) : null;
    if (m) valid.push(`${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`);
  }
  return valid.length ? valid.sort().at(-1)! : null;
}

export async function brondatum(resultaattype: JsonObject, src: BrondatumSources): Promise<string | null> {
  const proc = (resultaattype.brondatumArchiefprocedure ?? {}) as JsonObject;
  const einddatum = src.zaak.einddatum ?? null;
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
      return latest((await src.besluiten()).map((b) => b.ingangsdatum));
    case 'vervaldatum_besluit':
      return latest((await src.besluiten()).map((b) => b.vervaldatum));
    case 'gerelateerde_zaak':
      return latest((await src.relevanteZaken()).map((z) => z.einddatum));
    case 'zaakobject': {
      // The kenmerk of each zaakobject of the objecttype: from the object it points at, or from the
      // objectIdentificatie the zaakobject itself holds.
      const values: unknown[] = [];
      for (const o of (await src.zaakobjecten()).filter((x) => x.objectType === proc.objecttype)) {
        if (o.object) {
          const { status, body } = await src.fetchJson(o.object);
          if (status === 200 && body && typeof body === 'object') values.push((body as JsonObject)[kenmerk]);
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

/** The archiving fields to set on a zaak that gets its eindstatus now. */
export async function archiveringBijAfsluiten(resultaattype: JsonObject | undefined, src: BrondatumSources): Promise<Partial<ZaakDoc>> {
  if (!resultaattype) return {};
  const out: Partial<ZaakDoc> = {};
  if (!src.zaak.archiefnominatie && resultaattype.archiefnominatie) out.archiefnominatie = ARCHIEFNOMINATIE.parse(resultaattype.archiefnominatie);
  if (!src.zaak.archiefactiedatum && resultaattype.archiefactietermijn) {
    const bron = await brondatum(resultaattype, src);
    if (bron) {
      out.archiefactiedatum = addDuration(bron, String(resultaattype.archiefactietermijn));
      if (!src.zaak.startdatumBewaartermijn) out.startdatumBewaartermijn = bron;
    }
  }
  return out;
}
