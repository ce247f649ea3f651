import type { Collection, Db } from 'mongodb';
import { batcherOf, laterWins } from '../../common/storage/write-batch';
import type { EioDoc } from './schemas';

/**
 * A version as kept: the document's fields then, without the internal ones but its content (`_inhoud`); a version the
 * import brought also keeps the SHA-256 of its content as stored (`_sha256`; versions never change, so it stays true).
 */
export type Versie = Omit<EioDoc, `_${string}`> & Pick<EioDoc, '_inhoud'> & { _id: string; _eio: string; _sha256?: string };

/**
 * Every version of every document (`enkelvoudiginformatieobject_versies`), the current one included: what
 * `?versie=` and `?registratieOp=` read. The document itself holds its current version; a write stores the new
 * version here first (by id `<uuid>:<versie>`, so a write redone after a crash overwrites its own leftover).
 */
export class Versies {
  readonly coll: Collection<Versie>;

  constructor(private readonly db: Db) {
    this.coll = db.collection<Versie>('enkelvoudiginformatieobject_versies');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ _eio: 1, beginRegistratie: 1 });
  }

  async keep(uuid: string, doc: EioDoc, sha256?: string): Promise<void> {
    const id = `${uuid}:${doc.versie}`;
    const fields = Object.fromEntries(Object.entries(doc).filter(([k]) => !k.startsWith('_') || k === '_inhoud'));
    const replacement = { ...fields, _eio: uuid, ...(sha256 ? { _sha256: sha256 } : {}) };
    // (with the versions concurrent writes keep: one round trip for many)
    await batcherOf(this.db, this.coll.collectionName).write(id, { replaceOne: { filter: { _id: id }, replacement, upsert: true } }, laterWins);
  }

  get(uuid: string, versie: number): Promise<Versie | null> {
    return this.coll.findOne({ _id: `${uuid}:${versie}` });
  }

  /** The version that was current at `moment` (an ISO date-time): the last one registered at or before it. */
  async at(uuid: string, moment: string): Promise<Versie | null> {
    const t = new Date(moment).toISOString();
    const [v] = await this.coll
      .find({ _eio: uuid, beginRegistratie: { $lte: t } })
      .sort({ beginRegistratie: -1 })
      .limit(1)
      .toArray();
    return v ?? null;
  }

  /** Every version of these documents: its number, size, content and the hash kept with it. */
  allOf(uuids: string[]): Promise<Pick<Versie, '_eio' | 'versie' | 'bestandsomvang' | '_inhoud' | '_sha256'>[]> {
    const projection = { _eio: 1, versie: 1, bestandsomvang: 1, _inhoud: 1, _sha256: 1 };
    return this.coll.find({ _eio: { $in: uuids } }, { projection }).toArray();
  }

  /** The ids of every file the document's versions hold. */
  async files(uuid: string): Promise<string[]> {
    const docs = await this.coll.find({ _eio: uuid }, { projection: { _inhoud: 1 } }).toArray();
    return [...new Set(docs.flatMap((d) => (Array.isArray(d._inhoud) ? d._inhoud : [d._inhoud])).filter((f): f is string => typeof f === 'string'))];
  }

  async removeAll(uuid: string): Promise<void> {
    await this.coll.deleteMany({ _eio: uuid });
  }
}
