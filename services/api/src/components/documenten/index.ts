import { ensureAudittrailIndex, registerAudittrail } from '../../common/platform/audittrail';
import type { ComponentDef } from '../../common/platform/component';
import { GenummerdeIdentificaties } from '../../common/storage/identificaties';
import { catalogiOf } from '../../common/platform/links';
import { References } from '../../common/platform/references';
import { Bestandsdelen } from './bestandsdelen';
import { AANMAKEN, READY, UPDATE, mayOnDocument, nonField, withReadyTwins, type Documenten } from './context';
import { registerGebruiksrechten } from './gebruiksrechten';
import { backfillObjecten, documentLinks, registerObjectinformatieobjecten } from './objectinformatieobjecten';
import { syncPartFacts, syncReady } from './parts';
import { COLLECTION, OBJECTEN, registerInformatieobjecten } from './informatieobjecten';
import { V15, VERSIONS, type PartDoc } from './schemas';
import type { Resource } from '../../common/platform/resource';
import { inhoudStoreOf } from './inhoud-store';
import { INHOUD_HOLDERS, scheduleSweep } from './inhoud-sweep';
import { streamInhoudBodies } from './json-body';
import { registerVerzendingen } from './verzendingen';
import { Versies } from './versies';

/**
 * Documenten API (DRC): documents with their content, versions and locks, on the informatieobjecttypen of the Catalogi
 * API. 1.5.0, and 1.7.0 on request (`Api-Version: 1.7`); the default is DRC_DEFAULT_VERSION. Both versions share the
 * stored documents: 1.5.0 shows and writes all but the fields 1.7.0 added.
 */
export const documenten: ComponentDef = {
  name: 'documenten',
  code: 'drc',
  operationIds: 'retrieve',
  declaresContentType: true,
  heads: true,
  typeField: 'informatieobjecttype',
  title: 'Documenten API',
  version: V15,
  versions: VERSIONS,
  defaultVersion: (config) => config.DRC_DEFAULT_VERSION,
  audit: { bron: 'DRC' },
  async register(api) {
    const catalogi = catalogiOf(api);
    const { db } = api.deps;
    const d = {
      api,
      catalogi,
      refs: new References(api.deps, catalogi),
      inhoud: inhoudStoreOf(api.deps.config.INHOUD_STORE, api.deps.config, db, api.deps.log),
      versies: new Versies(db),
      identificaties: new GenummerdeIdentificaties(db, 'document_identificaties', 'DOCUMENT', {
        collection: 'enkelvoudiginformatieobjecten',
        organisatie: 'bronorganisatie',
      }),
    } as Documenten;
    const base = `/${api.def.name}/api/v1/${COLLECTION}`;
    // The document writes take their base64 content as a stream (see json-body.ts).
    streamInhoudBodies(
      api,
      d.inhoud,
      new Map([
        [`POST ${base}`, [AANMAKEN]],
        [`PUT ${base}/:uuid`, UPDATE],
        [`PATCH ${base}/:uuid`, UPDATE],
      ]),
    );
    const bestandsdelen = new Bestandsdelen(d);
    bestandsdelen.register();
    d.bestandsdelen = bestandsdelen;
    d.informatieobjecten = registerInformatieobjecten(d);
    // Lists restricted only by autorisaties are counted from these.
    d.informatieobjecten.store.countBy(['informatieobjecttype', '_vertrouwelijkheid']);
    d.gebruiksrechten = registerGebruiksrechten(d);
    d.objectinformatieobjecten = registerObjectinformatieobjecten(d);
    d.verzendingen = registerVerzendingen(d);
    d.links = documentLinks(d);
    keepPartsInStep(d);
    // Read with audittrails.lezen for the document's informatieobjecttype, up to its maxVertrouwelijkheidaanduiding.
    registerAudittrail(api, d.informatieobjecten, 'enkelvoudiginformatieobject_uuid', (doc, caller) =>
      mayOnDocument(caller, doc, ['audittrails.lezen']),
    );
    api.deps.components.documenten = d.links;
    await ensureIndexes(d);
    let fixed = 0;
    for (const r of [d.informatieobjecten, d.gebruiksrechten, d.objectinformatieobjecten, d.verzendingen]) fixed += await r.store.recount();
    if (fixed) api.deps.log.warn({ buckets: fixed }, 'documenten: corrected maintained counts');
    const linked = await backfillObjecten(d);
    if (linked) api.deps.log.info({ objectinformatieobjecten: linked }, 'documenten: recorded the objects of earlier links on their documents');
  },
};

/**
 * A document's objects follow it: their authorisation copies move with its vertrouwelijkheidaanduiding; it cannot go
 * while a zaak or besluit links it (drc-008: `pending-relations`); its gebruiksrechten and verzendingen go with it.
 */
function keepPartsInStep(d: Documenten): void {
  const parts = () => [d.gebruiksrechten, d.objectinformatieobjecten, d.verzendingen];
  d.onDocumentChanged = async (stored, previous) => {
    if (stored.vertrouwelijkheidaanduiding !== previous.vertrouwelijkheidaanduiding) await syncPartFacts(d, stored, parts());
    if (stored[READY] !== previous[READY]) await syncReady(d, stored, parts());
  };
  d.beforeDocumentDestroy = async (current) => {
    if (await d.objectinformatieobjecten.store.findOne({ informatieobject: d.informatieobjecten.url(current._id) })) {
      throw nonField('pending-relations', 'Het document is nog aan zaken of besluiten gekoppeld; verwijder eerst die relaties.');
    }
  };
  d.afterDocumentDestroy = async (current, ctx) => {
    const parts: Resource<PartDoc>[] = [d.gebruiksrechten, d.verzendingen];
    for (const part of parts) {
      for (const doc of await part.store.find({ informatieobject: d.informatieobjecten.url(current._id) })) await part.destroy(doc, ctx);
    }
  };
}

/** An index for an exact-match filter on `field`, in list order (it also serves the filter's count). */
const byField = (...fields: string[]) => ({ key: { ...Object.fromEntries(fields.map((f) => [f, 1])), _created: 1, _id: 1 } });
/** A filter under autorisaties: the filter, the type of one autorisatie, the list order, its vertrouwelijkheid bound; and their count. */
const authorisedBy = (field: string, type: string) => [
  { key: { [field]: 1, [type]: 1, _created: 1, _id: 1, _vertrouwelijkheid: 1 } },
  { key: { [field]: 1, [type]: 1, _vertrouwelijkheid: 1 } },
];

async function ensureIndexes(d: Documenten): Promise<void> {
  // Every index has a partial twin over the documents (and objects) ready for publication: the same queries of an
  // applicatie that reads only those (Autorisaties 1.1) are served from an index of the ready ones (withReadyTwins).
  await d.informatieobjecten.store.ensureIndexes(
    withReadyTwins([
      // (sparse: a tombstone has neither, and a second delete before the relay publishes the first must not collide)
      { key: { bronorganisatie: 1, identificatie: 1 }, unique: true, sparse: true },
      // Authorised lists: the informatieobjecttype of one autorisatie, the list order, then its vertrouwelijkheid bound.
      { key: { informatieobjecttype: 1, _created: 1, _id: 1, _vertrouwelijkheid: 1 } },
      { key: { informatieobjecttype: 1, _vertrouwelijkheid: 1 } },
      byField('identificatie'),
      byField('bronorganisatie'),
      byField('trefwoorden'),
      ...['identificatie', 'bronorganisatie', 'trefwoorden'].flatMap((f) => authorisedBy(f, 'informatieobjecttype')),
      // 1.7: the objects a document is linked to (objectinformatieobjecten_object, _objectType), over linked documents only.
      ...[byField(OBJECTEN), ...authorisedBy(OBJECTEN, 'informatieobjecttype')].map((ix) => ({
        ...ix,
        partialFilterExpression: { [OBJECTEN]: { $exists: true } },
      })),
    ]),
  );
  // The objects of a document: by document (and in list order), by their own filters, and under autorisaties.
  const parts = { key: { _informatieobjecttype: 1, _created: 1, _id: 1, _vertrouwelijkheid: 1 } };
  const partCounts = { key: { _informatieobjecttype: 1, _vertrouwelijkheid: 1 } };
  const byDocument = authorisedBy('informatieobject', '_informatieobjecttype');
  await d.gebruiksrechten.store.ensureIndexes(
    withReadyTwins([
      parts,
      partCounts,
      ...byDocument,
      { key: { informatieobject: 1, _created: 1, _id: 1, startdatum: 1, einddatum: 1 } },
      { key: { informatieobject: 1, _created: 1, _id: 1, einddatum: 1 } },
      { key: { _created: 1, _id: 1, startdatum: 1, einddatum: 1 } },
      { key: { _created: 1, _id: 1, einddatum: 1 } },
    ]),
  );
  await d.verzendingen.store.ensureIndexes(
    withReadyTwins([
      parts,
      partCounts,
      ...byDocument,
      ...['aardRelatie', 'betrokkene'].flatMap((f) => [byField(f), ...authorisedBy(f, '_informatieobjecttype')]),
      byField('informatieobject'),
    ]),
  );
  await d.objectinformatieobjecten.store.ensureIndexes(
    withReadyTwins([
      parts,
      partCounts,
      ...byDocument,
      ...authorisedBy('object', '_informatieobjecttype'),
      byField('informatieobject'),
      byField('informatieobject', 'object'),
      byField('object'),
    ]),
  );
  await d.versies.ensureIndexes();
  await d.bestandsdelen.ensureIndexes();
  await d.inhoud.prepare();
  for (const name of INHOUD_HOLDERS) await d.api.deps.db.collection(name).createIndex({ _inhoud: 1 });
  const stopSweep = scheduleSweep(d.api.deps.db, d.inhoud, d.api.deps.config.INHOUD_SWEEP_GRACE_MINUTES * 60_000, d.api.deps.log);
  d.api.app.addHook('onClose', async () => stopSweep());
  await ensureAudittrailIndex(d.api.deps.db);
}
