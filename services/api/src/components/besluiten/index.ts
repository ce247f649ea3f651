import { ensureAudittrailIndex, registerAudittrail } from '../../common/platform/audittrail';
import { V102, V11 } from './schemas';
import type { ComponentDef } from '../../common/platform/component';
import { GenummerdeIdentificaties } from '../../common/storage/identificaties';
import { catalogiOf, type BesluitLinks } from '../../common/platform/links';
import type { IndexDef } from '../../common/storage/store';
import { References } from '../../common/platform/references';
import { registerBesluitinformatieobjecten } from './besluitinformatieobjecten';
import { registerBesluiten } from './besluiten';
import { PART_AUTH_FIELD, mayOnBesluittype, type Besluiten } from './context';

/**
 * Besluiten API 1.0.2 (BRC), with the 1.1.0 `expand`: besluiten on the besluittypen of the Catalogi API, the
 * documents they are laid down in (kept in step with the objectinformatieobjecten of the Documenten API), and the
 * zaak they come from (kept in step with that zaak's besluiten in the Zaken API).
 */
export const besluiten: ComponentDef = {
  name: 'besluiten',
  code: 'brc',
  operationIds: 'read',
  wholePatchBodies: true,
  declaresContentType: true,
  typeField: 'besluittype',
  title: 'Besluiten API',
  version: V102,
  versions: [V102, V11],
  audit: { bron: 'BRC' },
  async register(api) {
    const catalogi = catalogiOf(api);
    const b = {
      api,
      catalogi,
      refs: new References(api.deps, catalogi),
      identificaties: new GenummerdeIdentificaties(api.deps.db, 'besluit_identificaties', 'BESLUIT', {
        collection: 'besluiten',
        organisatie: 'verantwoordelijkeOrganisatie',
      }),
    } as Besluiten;
    b.besluiten = registerBesluiten(b);
    b.besluitinformatieobjecten = registerBesluitinformatieobjecten(b);
    b.links = besluitLinks(b);
    // The trail of a besluit is read with audittrails.lezen for its besluittype.
    registerAudittrail(api, b.besluiten, 'besluit_uuid', (doc, caller) => mayOnBesluittype(caller, doc.besluittype, ['audittrails.lezen']));
    api.deps.components.besluiten = b.links;
    await ensureIndexes(b);
    const fixed = await b.besluiten.store.recount();
    if (fixed) api.deps.log.warn({ buckets: fixed }, 'besluiten: corrected maintained counts');
  },
};

function besluitLinks(b: Besluiten): BesluitLinks {
  return {
    owns: (url) => !!b.besluiten.uuidOf(url),
    besluit: async (url) => {
      const uuid = b.besluiten.uuidOf(url);
      if (!uuid) return undefined;
      const doc = await b.besluiten.store.get(uuid);
      return doc ? b.besluiten.toApi(doc) : null;
    },
    anyOfZaak: async (zaakUrl) => !!(await b.besluiten.store.findOne({ zaak: zaakUrl })),
    besluiten: b.besluiten,
    besluitinformatieobjecten: b.besluitinformatieobjecten,
  };
}

/** An index for exact-match filters on `fields`, in list order (it also serves their count). */
const byFields = (...fields: string[]): IndexDef => ({ key: { ...Object.fromEntries(fields.map((f) => [f, 1])), _created: 1, _id: 1 } });

/**
 * Every combination of list filters, alone and under autorisaties (an equality on the besluittype, or on its copy,
 * joins every query of a client without all rights). A filter on both identificatie and verantwoordelijkeOrganisatie
 * is served by their unique index, one on both besluit and informatieobject by theirs.
 */
async function ensureIndexes(b: Besluiten): Promise<void> {
  await b.besluiten.store.ensureIndexes([
    { key: { verantwoordelijkeOrganisatie: 1, identificatie: 1 }, unique: true, sparse: true },
    byFields('besluittype'),
    ...[['identificatie'], ['verantwoordelijkeOrganisatie'], ['zaak'], ['identificatie', 'zaak'], ['verantwoordelijkeOrganisatie', 'zaak']].flatMap(
      (fields) => [byFields(...fields), byFields(...fields, 'besluittype')],
    ),
  ]);
  await b.besluitinformatieobjecten.store.ensureIndexes([
    { key: { besluit: 1, informatieobject: 1 }, unique: true, sparse: true },
    byFields(PART_AUTH_FIELD),
    ...['besluit', 'informatieobject'].flatMap((f) => [byFields(f), byFields(f, PART_AUTH_FIELD)]),
  ]);
  // The audit trail of a besluit, oldest first (the collection is written by the audit service).
  await ensureAudittrailIndex(b.api.deps.db);
}
