import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ZgwError } from '../../common/http/errors';

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

/** A file being written: `finish()` waits until every byte is stored, `abort()` removes what was written. */
export interface Upload {
  readonly id: string;
  readonly size: number;
  /** Waits while the store's buffer is full (backpressure). */
  write(bytes: Buffer): Promise<void>;
  finish(): Promise<Bestand>;
  /** Removes what was written (the whole file when it was finished); never throws. */
  abort(): Promise<void>;
}

/** A stored file as a listing sees it (the sweep, the migration). */
export interface StoredFile {
  id: string;
  size: number;
  at: Date;
}

/**
 * Where the content of documents is kept (INHOUD_STORE): GridFS in the same MongoDB (inhoud-gridfs.ts) or an
 * S3-compatible object store (inhoud-s3.ts). Every file is written and read as a stream, so no file is ever held in
 * memory whole. Files are immutable and written before the document that points to them; a new version with new
 * content gets a new file, versions without new content share their predecessor's. A file no document points to (a
 * crash between the two writes) is removed by the sweep (inhoud-sweep.ts).
 */
export abstract class InhoudStore {
  /** `gridfs` or `s3`. */
  abstract readonly kind: string;

  /** What the store needs before the first file (indexes; the bucket). */
  abstract prepare(): Promise<void>;

  /** A new file being written. */
  abstract open(id?: string): Upload;

  /** The content of one file, or of several in sequence (a document uploaded in bestandsdelen), as one stream. */
  abstract download(ids: string | string[]): Readable;

  /** The size of a file, or of several together; undefined when one is missing. */
  abstract size(ids: string | string[]): Promise<number | undefined>;

  /** Removes files; one already gone is no error. */
  abstract delete(ids: Iterable<string>): Promise<void>;

  /** Every file stored before `before`, oldest first where the store can say (for the sweep and the migration). */
  abstract list(before?: Date): AsyncIterable<StoredFile>;

  /** Stores a file from a stream of bytes (under `id` when given: a file moved from another store keeps its id). */
  async fromStream(source: AsyncIterable<Buffer | string> | Iterable<Buffer | string>, id?: string): Promise<Bestand> {
    const upload = this.open(id);
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
