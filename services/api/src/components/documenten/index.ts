import { ensureAudittrailIndex, registerAudittrail } from '../../common/audittrail';
import type { ComponentApi, ComponentDef } from '../../common/component';
import { GenummerdeIdentificaties } from '../../common/identificaties';
import type { Catalogi } from '../catalogi/context';
import { References } from '../zaken/refs';
import { AANMAKEN, UPDATE, type Documenten } from './context';
import { COLLECTION, registerInformatieobjecten } from './informatieobjecten';
import { InhoudStore } from './inhoud';
import { streamInhoudBodies } from './json-body';
import { Versies } from './versies';

/** Documenten API 1.5.0 (DRC): documents with their content, versions and locks, on the informatieobjecttypen of the Catalogi API. */
export const documenten: ComponentDef = {
  name: 'documenten',
  code: 'drc',
  title: 'Documenten API',
  version: '1.5.0',
  audit: { bron: 'DRC' },
  async register(api) {
    const catalogi = catalogiOf(api);
    const { db } = api.deps;
    const d = {
      api,
      catalogi,
      refs: new References(api.deps, catalogi),
      inhoud: new InhoudStore(db),
      versies: new Versies(db),
      identificaties: new GenummerdeIdentificaties(db, 'document_identificaties', 'DOCUMENT'),
    } as Documenten;
    const base = `/${api.def.name}/api/v1/${COLLECTION}`;
    // The document writes take their base64 content as a stream (see json-body.ts).
    streamInhoudBodies(api, d.inhoud, new Map([[`POST ${base}`, [AANMAKEN]], [`PUT ${base}/:uuid`, UPDATE], [`PATCH ${base}/:uuid`, UPDATE]]));
    d.informatieobjecten = registerInformatieobjecten(d);
    // Lists restricted only by autorisaties are counted from these.
    d.informatieobjecten.store.countBy(['informatieobjecttype', '_vertrouwelijkheid']);
    registerAudittrail(api, d.informatieobjecten, 'enkelvoudiginformatieobject_uuid');
    api.deps.components.set('documenten', d);
    await ensureIndexes(d);
    const fixed = await d.informatieobjecten.store.recount();
    if (fixed) api.deps.log.warn({ buckets: fixed }, 'documenten: corrected maintained counts');
  },
};

function catalogiOf(api: ComponentApi): Catalogi {
  const c = api.deps.components.get('catalogi') as Catalogi | undefined;
  if (!c) throw new Error('De Documenten API heeft de Catalogi API nodig; mount die eerst.');
  return c;
}

/** An index for an exact-match filter on `field`, in list order (it also serves the filter's count). */
const byField = (...fields: string[]) => ({ key: { ...Object.fromEntries(fields.map((f) => [f, 1])), _created: 1, _id: 1 } });

async function ensureIndexes(d: Documenten): Promise<void> {
  await d.informatieobjecten.store.ensureIndexes([
    { key: { bronorganisatie: 1, identificatie: 1 }, unique: true },
    // Authorised lists: the informatieobjecttype of one autorisatie, the list order, then its vertrouwelijkheid bound.
    { key: { informatieobjecttype: 1, _created: 1, _id: 1, _vertrouwelijkheid: 1 } },
    { key: { informatieobjecttype: 1, _vertrouwelijkheid: 1 } },
    byField('identificatie'),
    byField('bronorganisatie'),
    byField('trefwoorden'),
  ]);
  await d.versies.ensureIndexes();
  await d.inhoud.ensureIndexes();
  await ensureAudittrailIndex(d.api.deps.db);
}
