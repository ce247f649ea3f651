import type { z as zod } from 'zod';
import type { Document, Filter } from 'mongodb';
import { ZgwError } from '../../common/http/errors';
import type { Resource } from '../../common/platform/resource';
import { BIJWERKEN, READ, type Zaken } from './context';
import { registerPart } from './parts';
import { fieldOf } from '../../common/resources/expand';
import { V17, ZaakNotitie, ZaakNotitieInput, ZaakNotitieQuery, type ZaakNotitieDoc } from './schemas';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const COMPARE: Record<string, string> = { gt: '$gt', gte: '$gte', lt: '$lt', lte: '$lte' };

/**
 * The list filters: exact, case-insensitive containment (`__icontains`), and the date comparisons. Containment is
 * searched in the notes of one zaak (`gerelateerdAan`): no index can find a piece of text anywhere in a field, so
 * across every zaak it would read every note.
 */
function notitieFilter(q: zod.output<typeof ZaakNotitieQuery>): Filter<Document> {
  const f: Filter<Document> = {};
  const contains = Object.keys(q).filter((k) => k.endsWith('__icontains') && fieldOf(q, k) !== undefined);
  if (contains.length && !q.gerelateerdAan)
    throw ZgwError.field('gerelateerdAan', 'required', `Zoek met ${contains.join(', ')} binnen één zaak: geef ook gerelateerdAan op.`);
  if (q.gerelateerdAan) f.zaak = q.gerelateerdAan;
  for (const field of ['aangemaaktDoor', 'onderwerp', 'tekst', 'notitieType', 'status']) {
    const exact = fieldOf(q, field);
    const contains = fieldOf(q, `${field}__icontains`);
    if (exact !== undefined) f[field] = exact;
    else if (typeof contains === 'string') f[field] = { $regex: escape(contains), $options: 'i' };
  }
  for (const field of ['aanmaakdatum', 'wijzigingsdatum']) {
    const cond: Filter<Document> = {};
    if (fieldOf(q, field) !== undefined) cond.$eq = fieldOf(q, field);
    for (const [suffix, op] of Object.entries(COMPARE))
      if (fieldOf(q, `${field}__${suffix}`) !== undefined) cond[op] = fieldOf(q, `${field}__${suffix}`);
    if (Object.keys(cond).length) f[field] = cond;
  }
  return f;
}

/**
 * Zaaknotities (Zaken 1.7, experimental in its file): notes on a zaak, read by whoever may read the zaak and written
 * with zaken.bijwerken for its zaaktype, like the other parts of a zaak (and removed with it).
 */
export function registerZaaknotities(z: Zaken): Resource<ZaakNotitieDoc> {
  return registerPart<ZaakNotitieDoc, zod.output<typeof ZaakNotitieQuery>>(z, {
    collection: 'zaaknotities',
    resource: 'zaaknotitie',
    zaakField: 'gerelateerdAan',
    since: { list: V17, create: V17, read: V17, update: V17, partial_update: V17, destroy: V17 },
    operationIds: 'read',
    pageSize: true,
    head: false,
    auditHeaders: [],
    schema: ZaakNotitie,
    input: ZaakNotitieInput,
    query: ZaakNotitieQuery,
    scopes: { read: READ, create: [BIJWERKEN], update: [BIJWERKEN], destroy: [BIJWERKEN] },
    operations: ['list', 'create', 'read', 'update', 'partial_update', 'destroy'],
    defaults: { aangemaaktDoor: '', notitieType: 'intern', status: 'concept' },
    filter: notitieFilter,
    rules: async (doc, _zaak, _ctx, current) => {
      const now = new Date().toISOString();
      return { ...doc, aanmaakdatum: current?.aanmaakdatum ?? now, wijzigingsdatum: now };
    },
  });
}
