import { ZgwError, type InvalidParam } from '../../common/http/errors';
import type { Stored } from '../../common/storage/store';
import type { Catalogi } from './context';
import { sameObject } from './selectielijst';
import { namesFromInput } from './relations';
import type { ResultaatTypeDoc, StoredBrondatum, ZaakTypeDoc } from './schemas';

type Brondatum = {
  afleidingswijze: string;
  datumkenmerk?: string;
  einddatumBekend?: boolean;
  objecttype?: string;
  registratie?: string;
  procestermijn?: string | null;
};

/**
 * Which brondatumArchiefprocedure fields each afleidingswijze requires (true) or forbids (false); fields not named
 * are free. The order of the fields is the order in which errors are reported.
 */
const BRONDATUM_VELDEN: Record<string, Partial<Record<keyof Brondatum, boolean>>> = {
  afgehandeld: { procestermijn: false, datumkenmerk: false, einddatumBekend: false, objecttype: false, registratie: false },
  ander_datumkenmerk: { procestermijn: false, datumkenmerk: true, objecttype: true, registratie: true },
  eigenschap: { procestermijn: false, datumkenmerk: true, objecttype: false, registratie: false },
  gerelateerde_zaak: { procestermijn: false, datumkenmerk: false, objecttype: false, registratie: false },
  hoofdzaak: { procestermijn: false, datumkenmerk: false, objecttype: false, registratie: false },
  ingangsdatum_besluit: { procestermijn: false, datumkenmerk: false, objecttype: false, registratie: false },
  termijn: { procestermijn: true, datumkenmerk: false, einddatumBekend: false, objecttype: false, registratie: false },
  vervaldatum_besluit: { procestermijn: false, datumkenmerk: false, objecttype: false, registratie: false },
  zaakobject: { procestermijn: false, datumkenmerk: true, objecttype: true, registratie: false },
};

/** The afleidingswijze a selectielijst procestermijn prescribes. */
const AFLEIDINGSWIJZE_VOOR_PROCESTERMIJN: Record<string, string> = {
  nihil: 'afgehandeld',
  ingeschatte_bestaansduur_procesobject: 'termijn',
};

export const BRONDATUM_LEEG: StoredBrondatum = {
  afleidingswijze: '',
  datumkenmerk: '',
  einddatumBekend: false,
  objecttype: '',
  registratie: '',
  procestermijn: null,
};

export function checkBrondatum(b: Brondatum): InvalidParam[] {
  const errors: InvalidParam[] = [];
  for (const [field, required] of Object.entries(BRONDATUM_VELDEN[b.afleidingswijze] ?? {})) {
    const value = b[field as keyof Brondatum];
    const name = `brondatumArchiefprocedure.${field}`;
    if (required && !value) errors.push({ name, code: 'required', reason: `Dit veld is vereist bij afleidingswijze ${b.afleidingswijze}.` });
    if (!required && value) errors.push({ name, code: 'must-be-empty', reason: `Dit veld moet leeg zijn bij afleidingswijze ${b.afleidingswijze}.` });
  }
  return errors;
}

/**
 * Resultaattype rules: the selectielijst references must be the right resources, the selectielijstklasse must
 * belong to the zaaktype's procestype and fit the afleidingswijze; archiefnominatie, archiefactietermijn and
 * omschrijvingGeneriek are derived from the selectielijst when not given.
 */
export async function resultaattypeRules(
  c: Catalogi,
  doc: ResultaatTypeDoc,
  zaaktype: Stored<ZaakTypeDoc>,
  current?: Stored<ResultaatTypeDoc>,
): Promise<ResultaatTypeDoc> {
  const omschrijving = await c.selectielijst.resultaattypeomschrijving('resultaattypeomschrijving', doc.resultaattypeomschrijving);
  const klasse = await c.selectielijst.resultaat('selectielijstklasse', doc.selectielijstklasse);
  const fetchErrors = [omschrijving, klasse].flatMap((r) => (r.ok ? [] : [r.error]));
  if (fetchErrors.length) throw ZgwError.validation(fetchErrors);
  const resultaat = klasse.ok ? klasse.value : undefined;
  const out: ResultaatTypeDoc = { ...doc, omschrijvingGeneriek: omschrijving.ok ? omschrijving.value.omschrijving : '' };

  // Field errors of the brondatumArchiefprocedure come before the errors about the combination.
  const brondatum = doc.brondatumArchiefprocedure;
  const errors: InvalidParam[] = brondatum ? checkBrondatum(brondatum) : [];
  if (zaaktype.selectielijstProcestype && resultaat && !sameObject(resultaat.procesType, zaaktype.selectielijstProcestype)) {
    errors.push({
      name: 'nonFieldErrors',
      code: 'procestype-mismatch',
      reason: 'De selectielijstklasse hoort niet bij het selectielijstProcestype van het zaaktype.',
    });
  }
  if (brondatum) {
    const vereist = AFLEIDINGSWIJZE_VOOR_PROCESTERMIJN[resultaat?.procestermijn ?? ''];
    if (vereist && brondatum.afleidingswijze !== vereist) {
      errors.push({
        name: 'nonFieldErrors',
        code: 'invalid-afleidingswijze-for-procestermijn',
        reason: `Bij procestermijn ${resultaat?.procestermijn} hoort afleidingswijze ${vereist}.`,
      });
    }
    out.brondatumArchiefprocedure = { ...BRONDATUM_LEEG, ...brondatum };
  } else {
    out.brondatumArchiefprocedure = current?.brondatumArchiefprocedure ?? BRONDATUM_LEEG;
  }

  const besluittypen = await namesFromInput(c.besluittypen, 'besluittypen', 'omschrijving', zaaktype.catalogus, doc.besluittypen ?? []);
  errors.push(...besluittypen.errors);
  if (besluittypen.foreignCatalogus)
    errors.push({
      name: 'nonFieldErrors',
      code: 'relations-incorrect-catalogus',
      reason: 'De besluittypen moeten tot de catalogus van het zaaktype behoren.',
    });
  if (errors.length) throw ZgwError.validation(errors);
  out.besluittypen = besluittypen.names;

  const waardering = resultaat?.waardering;
  if (!out.archiefnominatie && (waardering === 'blijvend_bewaren' || waardering === 'vernietigen')) out.archiefnominatie = waardering;
  if (!out.archiefactietermijn && resultaat?.bewaartermijn) out.archiefactietermijn = resultaat.bewaartermijn;
  return out;
}
