// Bulk loader of the documents bench: writes enkelvoudiginformatieobjecten straight into the API's database, in the
// shape and with the companions a create through the API leaves behind, many at a time. Loading a million documents
// through the API at a few hundred per second would take the better part of an hour on a small machine.
//
// Every loaded document is a copy of a document the API itself created (the template), with its own uuid,
// identificatie, registration time and content. For each one the loader writes what `POST
// /enkelvoudiginformatieobjecten` writes (see services/api/src/components/documenten/informatieobjecten.ts and
// common/storage/store.ts):
//   - its content: a GridFS file of its own in bucket `inhoud` (one `inhoud.files` and one `inhoud.chunks` document);
//   - its first version in `enkelvoudiginformatieobject_versies` (`<uuid>:1`, the public fields, `_inhoud`, `_eio`);
//   - the document itself, its events already published (`_outbox: []`, no `_pending`, no outbox pointer);
//   - its audit trail entry (action create, as the API stores it at once), unless `audit: false`: the bench leaves
//     them out, since they would take the stand-in storage from about 12 KB to about 20 KB of memory per document
//     and nothing it measures reads them;
//   - its identificatie numbered from the API's own counter (`document_identificaties`, one `$inc` per batch, as the
//     API reserves numbers for concurrent creates);
//   - the maintained count of its (tenant, informatieobjecttype, vertrouwelijkheid) bucket (`<collection>_counts`, one `$inc`
//     per batch, after the batch's documents, as Store.insert adjusts it after the document).
const { randomUUID } = require('node:crypto');
const { ObjectId } = require('mongodb');

const COLLECTION = 'enkelvoudiginformatieobjecten';
const VERSIES = 'enkelvoudiginformatieobject_versies';
const COUNTERS = 'document_identificaties';
const AUDITTRAIL = 'audittrail';
const CHUNK_BYTES = 255 * 1024;

/** The stored document, its version, content file and audit entry of one document the API created. */
async function templateOf(db, uuid) {
  const doc = await db.collection(COLLECTION).findOne({ _id: uuid });
  if (!doc) throw new Error(`template ${uuid}: no such document`);
  if (doc._pending || doc._outbox?.length) throw new Error(`template ${uuid}: its events are not published yet`);
  const versie = await db.collection(VERSIES).findOne({ _id: `${uuid}:1` });
  const audit = await db.collection(AUDITTRAIL).findOne({ resourceUrl: { $regex: `${uuid}$` }, actie: 'create' });
  if (!versie || !audit) throw new Error(`template ${uuid}: no version or audit entry`);
  const file = await db.collection('inhoud.files').findOne({ _id: doc._inhoud });
  if (!file) throw new Error(`template ${uuid}: no content file`);
  return { doc, versie, audit, file, url: audit.resourceUrl };
}

/**
 * Writes `count` documents like the template in batches of `batch`, registered one millisecond apart from `from`
 * (a Date) on. `progress(done)` is called after every batch. Returns the uuids written.
 */
async function bulkLoad(db, template, { count, from, batch = 1000, progress = () => undefined, keep = 2000, audit = true }) {
  const { doc: t, versie: tv, audit: ta, file: tf } = template;
  const base = template.url.slice(0, -t._id.length);
  // (a bucket of the tenant's: led by it, as the API keeps them)
  const bucket = [t._tenant ?? null, t.informatieobjecttype ?? null, t._vertrouwelijkheid ?? null];
  const tenant = t._tenant === undefined ? {} : { _tenant: t._tenant };
  const year = String(t.creatiedatum).slice(0, 4);
  // (the API's series: one per tenant, bronorganisatie and year)
  const counterId = `${t._tenant ?? ''}/${t.bronorganisatie}/${year}`;
  const kept = [];
  let done = 0;
  while (done < count) {
    const n = Math.min(batch, count - done);
    // Numbers for the batch's identificaties, reserved as the API reserves them.
    const counter = await db.collection(COUNTERS).findOneAndUpdate({ _id: counterId }, { $inc: { n } }, { upsert: true, returnDocument: 'after' });
    const first = (counter.value ?? counter).n - n + 1;
    const docs = [];
    const versies = [];
    const audits = [];
    const files = [];
    const chunks = [];
    for (let i = 0; i < n; i++) {
      const uuid = randomUUID();
      const fileId = randomUUID();
      const created = new Date(from.getTime() + done + i);
      const registered = created.toISOString();
      const identificatie = `DOCUMENT-${year}-${String(first + i).padStart(10, '0')}`;
      const content = Buffer.from(`${identificatie}\n`);
      const fields = { identificatie, beginRegistratie: registered, bestandsomvang: content.length };
      files.push({ ...tf, _id: fileId, length: content.length, chunkSize: CHUNK_BYTES, uploadDate: created });
      chunks.push({ _id: new ObjectId(), files_id: fileId, n: 0, data: content });
      versies.push({ ...tv, ...fields, _id: `${uuid}:1`, _inhoud: fileId, _eio: uuid });
      docs.push({ ...t, ...fields, _inhoud: fileId, _id: uuid, _created: created, _outbox: [] });
      const url = `${base}${uuid}`;
      const nieuw = { ...ta.wijzigingen.nieuw, ...fields, url, inhoud: `${url}/download?versie=1` };
      const entryId = randomUUID();
      if (audit) audits.push({
        ...ta, _id: entryId, uuid: entryId, hoofdObject: url, resourceUrl: url, resourceWeergave: identificatie, aanmaakdatum: registered,
        wijzigingen: { oud: null, nieuw },
      });
      if (kept.length < keep) kept.push(uuid);
    }
    // The order of a create: content, version, document; then its audit entry and count.
    await db.collection('inhoud.files').insertMany(files, { ordered: false });
    await db.collection('inhoud.chunks').insertMany(chunks, { ordered: false });
    await db.collection(VERSIES).insertMany(versies, { ordered: false });
    await db.collection(COLLECTION).insertMany(docs, { ordered: false });
    await Promise.all([
      audits.length ? db.collection(AUDITTRAIL).insertMany(audits, { ordered: false }) : undefined,
      db.collection(`${COLLECTION}_counts`).updateOne({ _id: JSON.stringify(bucket) }, { $inc: { n }, $setOnInsert: { values: bucket, ...tenant } }, { upsert: true }),
    ]);
    done += n;
    await progress(done);
  }
  return kept;
}

module.exports = { bulkLoad, templateOf };
