import type { References } from './refs';
import type { Doc } from './schemas';

/**
 * The archiving fields a zaak gets when it is closed (zrc-021): archiefnominatie from its resultaattype when the zaak
 * has none, and archiefactiedatum = brondatum + archiefactietermijn, the brondatum derived as the resultaattype's
 * brondatumArchiefprocedure.afleidingswijze says.
 */
export interface BrondatumSources {
  /** The zaak with its einddatum already set. */
  zaak: Doc;
  hoofdzaak: () => Promise<Doc | undefined>;
  eigenschappen: () => Promise<Doc[]>;
  besluiten: () => Promise<Doc[]>;
  zaakobjecten: () => Promise<Doc[]>;
  relevanteZaken: () => Promise<Doc[]>;
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
  d.setUTCFullYear(d.getUTCFullYear() + y!, d.getUTCMonth() + mo!, d.getUTCDate() + w! * 7 + dd!);
  return d.toISOString().slice(0, 10);
}

function latest(dates: unknown[]): string | null {
  const valid = dates.filter((v): v is string => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}/.test(v)).map((v) => v.slice(0, 10));
  return valid.length ? valid.sort().at(-1)! : null;
}

export async function brondatum(resultaattype: Doc, src: BrondatumSources): Promise<string | null> {
  const proc = (resultaattype.brondatumArchiefprocedure ?? {}) as Record<string, unknown>;
  const einddatum = (src.zaak.einddatum as string | null) ?? null;
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
      const objecten = (await src.zaakobjecten()).filter((o) => o.objectType === proc.objecttype && typeof o.object === 'string' && o.object);
      const values: unknown[] = [];
      for (const o of objecten) {
        const { status, body } = await src.fetchJson(String(o.object));
        if (status === 200 && body && typeof body === 'object') values.push((body as Record<string, unknown>)[kenmerk]);
      }
      return latest(values);
    }
    default:
      // ander_datumkenmerk and anything unknown: the brondatum is set by hand later.
      return null;
  }
}

/** The archiving fields to set on a zaak that gets its eindstatus now. */
export async function archiveringBijAfsluiten(resultaattype: Doc | undefined, src: BrondatumSources): Promise<Doc> {
  if (!resultaattype) return {};
  const out: Doc = {};
  if (!src.zaak.archiefnominatie && resultaattype.archiefnominatie) out.archiefnominatie = resultaattype.archiefnominatie;
  if (!src.zaak.archiefactiedatum && resultaattype.archiefactietermijn) {
    const bron = await brondatum(resultaattype, src);
    if (bron) {
      out.archiefactiedatum = addDuration(bron, String(resultaattype.archiefactietermijn));
      if (!src.zaak.startdatumBewaartermijn) out.startdatumBewaartermijn = bron;
    }
  }
  return out;
}
