import type { Collection, Db } from 'mongodb';
import type { EioDoc } from './schemas';

/** A version as kept: the document's fields then, without the internal ones but its content (`_inhoud`). */
export type Versie = Omit<EioDoc, `_${string}`> & Pick<EioDoc, '_inhoud'> & { _id: string; _eio: string };

/**
 * Every version of every document (`enkelvoudiginformatieobject_versies`), the current one included: what
 * `?versie=` and `?registratieOp=` read. The document itself holds its current version; a write stores the new
 * version here first (by id `<uuid>:<versie>`, so a write redone after a crash overwrites its own leftover).
 */
export class Versies {
  readonly coll: Collection<Versie>;

  constructor(db: Db) {
    this.coll = db.collection<Versie>('enkelvoudiginformatieobject_versies');
  }

  async ensureIndexes(): Promise<void> {
    await this.coll.createIndex({ _eio: 1, beginRegistratie: 1 });
  }

  async keep(uuid: string, doc: EioDoc): Promise<void> {
    const id = `${uuid}:${doc.versie}`;
    const fields = Object.fromEntries(Object.entries(doc).filter(([k]) => !k.startsWith('_') || k === '_inhoud'));
    await this.coll.replaceOne({ _id: id }, { ...fields, _eio: uuid } as Versie, { upsert: true });
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

  /** The ids of every file the document's versions hold. */
  async files(uuid: string): Promise<string[]> {
    const docs = await this.coll.find({ _eio: uuid }, { projection: { _inhoud: 1 } }).toArray();
    return [...new Set(docs.flatMap((d) => (Array.isArray(d._inhoud) ? d._inhoud : [d._inhoud])).filter((f): f is string => typeof f === 'string'))];
  }

  async removeAll(uuid: string): Promise<void> {
    await this.coll.deleteMany({ _eio: uuid });
  }
}
