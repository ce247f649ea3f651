import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { GridFSBucket, type Db, type GridFSBucketWriteStream } from 'mongodb';
import type { Logger } from '@zgw/shared';
import { ReadBatcher } from '../../common/storage/read-batch';
import { InhoudStore, type Bestand, type StoredFile, type Upload } from './inhoud';

const BUCKET = 'inhoud';
const FILENAME = 'inhoud';
/** GridFS's default chunk size: big enough for few round trips, small enough to keep each write small. */
const CHUNK_BYTES = 255 * 1024;
/** How many chunks a download reads at once (about 4 MB). */
const CHUNKS_PER_READ = 16;

/** A GridFS chunk as stored. */
interface Chunk {
  files_id: string;
  n: number;
  data: { buffer: Uint8Array };
}

/** The content of documents in GridFS (bucket `inhoud`) in the platform's MongoDB (INHOUD_STORE=gridfs, the default). */
export class GridfsInhoud extends InhoudStore {
  readonly kind = 'gridfs';
  readonly bucket: GridFSBucket;
  /** A file's entry, read together with the same reads of concurrent requests (an import's documents). */
  private readonly files: ReadBatcher;
  /** The chunks of a small file (one read's worth), read together with those of concurrent downloads. */
  private readonly chunks: ReadBatcher;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {
    super();
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET, chunkSizeBytes: CHUNK_BYTES });
    this.files = new ReadBatcher(db.collection(`${BUCKET}.files`), {});
    this.chunks = new ReadBatcher(db.collection(`${BUCKET}.chunks`), {});
  }

  /**
   * The bucket's two indexes, created here at start. The driver would otherwise check for them before the first
   * upload of each process with an unfiltered query (one a MongoDB planner cannot bound); it skips that check once
   * told the indexes exist.
   */
  async prepare(): Promise<void> {
    await this.db.collection(`${BUCKET}.files`).createIndex({ filename: 1, uploadDate: 1 });
    await this.db.collection(`${BUCKET}.chunks`).createIndex({ files_id: 1, n: 1 }, { unique: true });
    const state = (this.bucket as unknown as { s?: { calledOpenUploadStream?: boolean } }).s;
    if (state) state.calledOpenUploadStream = true;
  }

  open(id: string = randomUUID()): Upload {
    return new GridfsUpload(this.bucket, this.bucket.openUploadStreamWithId(id as never, FILENAME), this.log);
  }

  /**
   * Chunks are read CHUNKS_PER_READ at a time by `files_id` and their numbers (all fields of the chunks' unique index), each
   * read only when the consumer wants more: at most that many chunks are in memory, whatever batches the store would
   * send for an open cursor (a MongoDB-compatible store may send a whole file in one). A file's entry, and the chunks
   * of a file of at most that many, are read together with those of concurrent downloads (ReadBatcher).
   */
  download(ids: string | string[]): Readable {
    const list = typeof ids === 'string' ? [ids] : ids;
    const chunks = this.db.collection<Chunk>(`${BUCKET}.chunks`);
    const { files, chunks: small } = this;
    async function* read(): AsyncGenerator<Buffer> {
      for (const id of list) {
        const file = (await files.get(id)) as { length: number; chunkSize: number } | null;
        if (!file) throw new Error(`inhoud ${id}: no such file`);
        const count = Math.ceil(file.length / file.chunkSize);
        for (let first = 0; first < count; first += CHUNKS_PER_READ) {
          const numbers = Array.from({ length: Math.min(CHUNKS_PER_READ, count - first) }, (_, i) => first + i);
          const docs =
            count <= CHUNKS_PER_READ
              ? (await small.by('files_id', id)).map((d): Chunk => ({ files_id: id, n: Number(d.n), data: d.data }))
              : await chunks.find({ files_id: id, n: { $in: numbers } }).toArray();
          docs.sort((a, b) => a.n - b.n);
          if (docs.length !== numbers.length || docs.some((d, i) => d.n !== numbers[i]))
            throw new Error(`inhoud ${id}: chunks missing from ${first}`);
          // a view of the bytes the driver decoded, not a copy: a download holds each chunk once
          for (const d of docs) yield Buffer.from(d.data.buffer.buffer, d.data.buffer.byteOffset, d.data.buffer.byteLength);
        }
      }
    }
    return Readable.from(read(), { objectMode: false, highWaterMark: CHUNK_BYTES });
  }

  async size(ids: string | string[]): Promise<number | undefined> {
    if (typeof ids === 'string') return ((await this.files.get(ids)) as { length: number } | null)?.length;
    const files = await this.db
      .collection<{ _id: string; length: number }>(`${BUCKET}.files`)
      .find({ _id: { $in: ids } })
      .toArray();
    if (files.length !== new Set(ids).size) return undefined;
    const byId = new Map(files.map((f) => [f._id, f.length]));
    return ids.reduce((n, id) => n + byId.get(id)!, 0);
  }

  async delete(ids: Iterable<string>): Promise<void> {
    for (const id of new Set(ids)) {
      await this.bucket.delete(id as never).catch((err: Error) => {
        if (!/FileNotFound|File not found/i.test(err.message)) throw err;
      });
    }
  }

  /** By the files' (filename, uploadDate) index. */
  async *list(before: Date = new Date()): AsyncIterable<StoredFile> {
    const files = this.db.collection<{ _id: string; length: number; uploadDate: Date }>(`${BUCKET}.files`);
    const cursor = files
      .find({ filename: FILENAME, uploadDate: { $lt: before } }, { projection: { length: 1, uploadDate: 1 } })
      .sort({ filename: 1, uploadDate: 1 });
    for await (const f of cursor) yield { id: String(f._id), size: f.length, at: f.uploadDate };
  }
}

/** One file being written to GridFS, with backpressure: each write waits while the stream's buffer is full. */
class GridfsUpload implements Upload {
  size = 0;
  private finished = false;

  constructor(
    private readonly bucket: GridFSBucket,
    private readonly stream: GridFSBucketWriteStream,
    private readonly log: Logger,
  ) {
    // Errors surface through write/finish; without a listener an early one would crash the process.
    stream.on('error', () => undefined);
  }

  get id(): string {
    return String(this.stream.id);
  }

  async write(bytes: Buffer): Promise<void> {
    if (!bytes.length) return;
    this.size += bytes.length;
    if (!this.stream.write(bytes)) {
      await new Promise<void>((resolve, reject) => {
        const done = (err?: Error) => {
          this.stream.off('drain', done);
          this.stream.off('error', done);
          if (err) reject(err);
          else resolve();
        };
        this.stream.once('drain', done);
        this.stream.once('error', done);
      });
    }
  }

  finish(): Promise<Bestand> {
    this.finished = true;
    return new Promise((resolve, reject) => {
      this.stream.once('error', reject);
      this.stream.end(() => resolve({ id: this.id, size: this.size }));
    });
  }

  /** Removes what was written (the whole file when it was finished). */
  async abort(): Promise<void> {
    try {
      if (this.finished) await this.bucket.delete(this.stream.id);
      else await this.stream.abort();
    } catch (err) {
      // the caller goes on with the failure that made it abort; this one only leaves an unused file behind
      this.log.warn({ inhoud: this.id, err }, 'the content of a failed upload was not removed: an unused GridFS file stays');
    }
  }
}
