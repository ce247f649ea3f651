import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { GridFSBucket, type Db, type GridFSBucketWriteStream } from 'mongodb';
import type { Logger } from '@zgw/shared';
import { ZgwError } from '../../common/errors';

/** Files streamed in by a body parser, until the request's handler takes them (or the request ends). */
const uploads = new WeakMap<FastifyRequest, Bestand>();

export function keepUpload(req: FastifyRequest, file: Bestand): void {
  uploads.set(req, file);
}

/** The file the request's content was streamed into, if any; from now on the caller removes it when the write fails. */
export function takeUpload(req: FastifyRequest): Bestand | undefined {
  const file = uploads.get(req);
  uploads.delete(req);
  return file;
}

/** A stored file: its id in the content store and its size in bytes. */
export interface Bestand {
  id: string;
  size: number;
}

const BUCKET = 'inhoud';
/** GridFS's default chunk size: big enough for few round trips, small enough to keep each write small. */
const CHUNK_BYTES = 255 * 1024;
/** How many chunks a download reads at once (about 4 MB). */
const CHUNKS_PER_READ = 16;

/**
 * The content of documents, in GridFS (bucket `inhoud`) in the same MongoDB: every file is written and read as a
 * stream of chunks, so no file is ever held in memory whole. Files are immutable; a new version with new content gets
 * a new file, versions without new content share their predecessor's.
 */
export class InhoudStore {
  readonly bucket: GridFSBucket;

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET, chunkSizeBytes: CHUNK_BYTES });
  }

  /**
   * The bucket's two indexes, created here at start. The driver would otherwise check for them before the first
   * upload of each process with an unfiltered query (one a MongoDB planner cannot bound); it skips that check once
   * told the indexes exist.
   */
  async ensureIndexes(): Promise<void> {
    await this.db.collection(`${BUCKET}.files`).createIndex({ filename: 1, uploadDate: 1 });
    await this.db.collection(`${BUCKET}.chunks`).createIndex({ files_id: 1, n: 1 }, { unique: true });
    const state = (this.bucket as unknown as { s?: { calledOpenUploadStream?: boolean } }).s;
    if (state) state.calledOpenUploadStream = true;
  }

  /** A new file being written; `finish()` waits until every chunk is stored, `abort()` removes what was written. */
  open(): Upload {
    return new Upload(this.bucket, this.bucket.openUploadStreamWithId(randomUUID() as never, 'inhoud'), this.log);
  }

  /** Stores a file from a stream of bytes. */
  async fromStream(source: AsyncIterable<Buffer | string>): Promise<Bestand> {
    const upload = this.open();
    try {
      for await (const chunk of source) await upload.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      return await upload.finish();
    } catch (err) {
      await upload.abort();
      throw err;
    }
  }

  /** Stores base64 text (already in memory as a string) by decoding it slice by slice: never a second whole copy. */
  async fromBase64(text: string, field = 'inhoud'): Promise<Bestand> {
    const upload = this.open();
    const decoder = new Base64Decoder(field);
    try {
      const slice = 4 * 64 * 1024;
      for (let i = 0; i < text.length; i += slice) await upload.write(decoder.push(text.slice(i, i + slice)));
      await upload.write(decoder.end());
      return await upload.finish();
    } catch (err) {
      await upload.abort();
      throw err;
    }
  }

  /**
   * The content of one file, or of several in sequence (a document uploaded in bestandsdelen), as one stream. Chunks
   * are read CHUNKS_PER_READ at a time by `files_id` and their numbers (all fields of the chunks' unique index), each
   * read only when the consumer wants more: at most that many chunks are in memory, whatever batches the store would
   * send for an open cursor (a MongoDB-compatible store may send a whole file in one).
   */
  download(ids: string | string[]): Readable {
    const list = typeof ids === 'string' ? [ids] : ids;
    const files = this.db.collection<{ _id: string; length: number; chunkSize: number }>(`${BUCKET}.files`);
    const chunks = this.db.collection<{ files_id: string; n: number; data: { buffer: Uint8Array } }>(`${BUCKET}.chunks`);
    async function* read(): AsyncGenerator<Buffer> {
      for (const id of list) {
        const file = await files.findOne({ _id: id });
        if (!file) throw new Error(`inhoud ${id}: no such file`);
        const count = Math.ceil(file.length / file.chunkSize);
        for (let first = 0; first < count; first += CHUNKS_PER_READ) {
          const numbers = Array.from({ length: Math.min(CHUNKS_PER_READ, count - first) }, (_, i) => first + i);
          const docs = await chunks.find({ files_id: id, n: { $in: numbers } }).toArray();
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

  /** The size of a file, or of several together; undefined when one is missing. */
  async size(ids: string | string[]): Promise<number | undefined> {
    const list = typeof ids === 'string' ? [ids] : ids;
    const files = await this.db
      .collection<{ _id: string; length: number }>(`${BUCKET}.files`)
      .find({ _id: { $in: list } })
      .toArray();
    if (files.length !== new Set(list).size) return undefined;
    const byId = new Map(files.map((f) => [f._id, f.length]));
    return list.reduce((n, id) => n + byId.get(id)!, 0);
  }

  /** Removes files; one already gone is no error. */
  async delete(ids: Iterable<string>): Promise<void> {
    for (const id of new Set(ids)) {
      await this.bucket.delete(id as never).catch((err: Error) => {
        if (!/FileNotFound|File not found/i.test(err.message)) throw err;
      });
    }
  }
}

/** One file being written to GridFS, with backpressure: each write waits while the stream's buffer is full. */
export class Upload {
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
      this.log.warn({ inhoud: this.id, err: (err as Error).message }, 'the content of a failed upload was not removed: an unused GridFS file stays');
    }
  }
}

const ALPHABET = /^[A-Za-z0-9+/]*$/;

/**
 * Decodes base64 text that arrives in pieces: characters left over from a piece (a group of four split across two
 * pieces) wait for the next one. Accepts the standard and the URL-safe alphabet, padding only at the end, and
 * ignores whitespace; anything else is a 400 on the field.
 */
export class Base64Decoder {
  private rest = '';
  private pads = 0;

  constructor(private readonly field = 'inhoud') {}

  push(piece: string): Buffer {
    let text = piece.replace(/[\s]/g, '').replace(/-/g, '+').replace(/_/g, '/');
    if (!text) return Buffer.alloc(0);
    const pad = text.indexOf('=');
    // Padding ends the text: nothing but more padding (two at most) may follow it.
    if (this.pads && pad !== 0) throw this.invalid();
    if (pad >= 0) {
      if (!/^=+$/.test(text.slice(pad))) throw this.invalid();
      this.pads += text.length - pad;
      if (this.pads > 2) throw this.invalid();
      text = text.slice(0, pad);
    }
    if (!ALPHABET.test(text)) throw this.invalid();
    const all = this.rest + text;
    const whole = all.length - (all.length % 4);
    this.rest = all.slice(whole);
    return Buffer.from(all.slice(0, whole), 'base64');
  }

  end(): Buffer {
    if (this.rest.length === 1) throw this.invalid();
    const out = Buffer.from(this.rest, 'base64');
    this.rest = '';
    return out;
  }

  private invalid(): ZgwError {
    return ZgwError.field(this.field, 'invalid', 'De inhoud is geen geldige base64.');
  }
}
