import type { InvalidParam } from '../../common/http/errors';
import { COMPONENT_WEERGAVE, type AutorisatieInput, type AutorisatieDoc } from './schemas';
import type { z } from 'zod';

/** Which type field and scope prefix make an autorisatie type-bound (ac-003). */
const TYPE_BOUND: Record<string, { field: 'zaaktype' | 'informatieobjecttype' | 'besluittype'; prefix: string; needsMax: boolean }> = {
  zrc: { field: 'zaaktype', prefix: 'zaken.', needsMax: true },
  drc: { field: 'informatieobjecttype', prefix: 'documenten.', needsMax: true },
  brc: { field: 'besluittype', prefix: 'besluiten.', needsMax: false },
};

/**
 * ac-002 and ac-003: `heeftAlleAutorisaties` excludes explicit autorisaties and vice versa; an autorisatie
 * whose scopes concern zaken, documenten or besluiten names its type (and the maximum vertrouwelijkheid).
 */
export function checkAutorisaties(heeftAlle: boolean, autorisaties: z.output<typeof AutorisatieInput>[]): InvalidParam[] {
  if (heeftAlle && autorisaties.length) {
    return [
      {
        name: 'nonFieldErrors',
        code: 'ambiguous-authorizations-specified',
        reason: 'Geef heeftAlleAutorisaties óf expliciete autorisaties, niet beide.',
      },
    ];
  }
  if (!heeftAlle && !autorisaties.length) {
    return [{ name: 'nonFieldErrors', code: 'missing-authorizations', reason: 'Geef heeftAlleAutorisaties of minstens één autorisatie.' }];
  }
  const errors: InvalidParam[] = [];
  autorisaties.forEach((a, i) => {
    const rule = TYPE_BOUND[a.component];
    if (!rule || !a.scopes.some((s) => s.startsWith(rule.prefix))) return;
    if (!a[rule.field])
      errors.push({ name: `autorisaties.${i}.${rule.field}`, code: 'required', reason: `Dit veld is vereist bij scopes ${rule.prefix}*.` });
    if (rule.needsMax && !a.maxVertrouwelijkheidaanduiding) {
      errors.push({
        name: `autorisaties.${i}.maxVertrouwelijkheidaanduiding`,
        code: 'required',
        reason: `Dit veld is vereist bij scopes ${rule.prefix}*.`,
      });
    }
  });
  return errors;
}

/** The stored form: empty strings dropped, `componentWeergave` derived. */
export function normalise(a: z.output<typeof AutorisatieInput>): AutorisatieDoc {
  const out: AutorisatieDoc = { component: a.component, componentWeergave: COMPONENT_WEERGAVE[a.component], scopes: a.scopes };
  if (a.zaaktype) out.zaaktype = a.zaaktype;
  if (a.informatieobjecttype) out.informatieobjecttype = a.informatieobjecttype;
  if (a.besluittype) out.besluittype = a.besluittype;
  if (a.maxVertrouwelijkheidaanduiding)
    out.maxVertrouwelijkheidaanduiding = a.maxVertrouwelijkheidaanduiding as AutorisatieDoc['maxVertrouwelijkheidaanduiding'];
  return out;
}
