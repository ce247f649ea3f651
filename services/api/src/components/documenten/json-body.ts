import { inTenant } from '@zgw/shared';
import type { FastifyRequest } from 'fastify';
import type { ComponentApi } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import { Base64Decoder, keepUpload, takeUpload, type Bestand, type InhoudStore, type Upload } from './inhoud';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const KEY = 'inhoud';

/**
 * JSON bodies of this component. On the document writes (`streamed`: method and route), a top-level `"inhoud"`
 * string (base64, possibly many megabytes) is decoded and written to the content store while it arrives, after the
 * caller has been authenticated and holds a scope of the route: the parsed body lacks `inhoud`, and `takeUpload`
 * gives its file. The rest of the body is held to BODY_LIMIT_BYTES like any JSON body; an empty body is no body.
 * A file its request did not take (refused, failed) is removed before the response is sent.
 */
export function streamInhoudBodies(api: ComponentApi, store: InhoudStore, streamed: Map<string, readonly string[]>): void {
  const limit = api.deps.config.BODY_LIMIT_BYTES;
  api.app.removeContentTypeParser('application/json');
  api.app.addContentTypeParser('application/json', async (req: FastifyRequest, payload: AsyncIterable<Buffer>) => {
    const scopes = streamed.get(`${req.method} ${req.routeOptions.url ?? ''}`);
    if (!scopes) return read(req, payload);
    const caller = await api.deps.auth.authenticate(req);
    if (scopes.length && !caller.hasAnyScope(scopes)) throw ZgwError.forbidden(`Deze actie vereist een van de scopes: ${scopes.join(', ')}.`);
    // the file goes into the caller's tenant's content
    return inTenant(caller.tenant, () => read(req, payload, scopes));
  });

  const read = async (req: FastifyRequest, payload: AsyncIterable<Buffer>, scopes?: readonly string[]) => {
    const scanner = new BodyScanner(scopes ? store : undefined, limit);
    let file: Bestand | undefined;
    let text: string;
    try {
      for await (const chunk of payload) await scanner.push(chunk);
      ({ text, file } = await scanner.end());
    } catch (err) {
      await scanner.abort();
      throw err;
    }
    if (text.trim() === '') {
      if (file) await store.delete([file.id]);
      return undefined;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      if (file) await store.delete([file.id]);
      throw ZgwError.field('nonFieldErrors', 'parse_error', `De JSON in de request body is ongeldig: ${(err as Error).message}`);
    }
    if (file) {
      delete (body as Record<string, unknown>)[KEY];
      keepUpload(req, file);
    }
    return body;
  };
  // Before the answer goes out, so a client that reads on sees no leftover.
  api.app.addHook('onSend', async (req, _reply, payload) => {
    const left = takeUpload(req);
    if (left) {
      await store
        .delete([left.id])
        .catch((err: Error) =>
          api.deps.log.warn({ inhoud: left.id, err }, 'the content of a refused write was not removed: an unused GridFS file stays'),
        );
    }
    return payload;
  });
}

/**
 * Reads a JSON text byte by byte (structural characters are ASCII, so UTF-8 needs no decoding here), keeping every
 * byte except the value of the top-level key `inhoud` when that is a string: that goes through a base64 decoder into
 * a new file, and the kept text gets `0` in its place.
 */
class BodyScanner {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** A top-level object expects a key next (after `{` or `,`). */
  private expectKey = false;
  /** The bytes of the top-level key being read (only while it could still be `inhoud`). */
  private key: number[] | undefined;
  private lastKey: string | undefined;
  /** After `"inhoud":`, waiting for the value. */
  private awaitValue = false;
  private upload?: Upload;
  private decoder?: Base64Decoder;
  private streaming = false;
  private streamEscape = false;
  private file?: Bestand;

  constructor(
    private readonly store: InhoudStore | undefined,
    private readonly limit: number,
  ) {}

  async push(chunk: Buffer): Promise<void> {
    if (!this.store) return this.keep(chunk);
    let i = 0;
    while (i < chunk.length) {
      if (this.streaming) i = await this.streamFrom(chunk, i);
      else i = this.scanFrom(chunk, i);
    }
  }

  async end(): Promise<{ text: string; file?: Bestand }> {
    if (this.streaming) throw ZgwError.field('nonFieldErrors', 'parse_error', 'De JSON in de request body is onvolledig.');
    return { text: Buffer.concat(this.kept).toString('utf8'), file: this.file };
  }

  async abort(): Promise<void> {
    await this.upload?.abort();
    if (this.file && !this.upload) await this.store?.delete([this.file.id]);
  }

  private keep(bytes: Buffer): void {
    if (!bytes.length) return;
    this.keptBytes += bytes.length;
    if (this.keptBytes > this.limit) throw new ZgwError(413, 'request_too_large', 'De request body is groter dan toegestaan.');
    this.kept.push(bytes);
  }

  /** Scans structural JSON from `start`; returns where streaming begins (or the chunk's end). */
  private scanFrom(chunk: Buffer, start: number): number {
    let from = start;
    for (let i = start; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === BACKSLASH) this.escaped = true;
        else if (b === QUOTE) {
          this.inString = false;
          if (this.key) {
            this.lastKey = Buffer.from(this.key).toString('latin1');
            this.key = undefined;
          }
          continue;
        }
        if (this.key) {
          this.key.push(b);
          if (this.key.length > KEY.length) this.key = undefined;
        }
        continue;
      }
      if (WS.has(b)) continue;
      if (this.awaitValue) {
        this.awaitValue = false;
        if (b === QUOTE && this.depth === 1) {
          this.keep(chunk.subarray(from, i));
          this.keep(Buffer.from('0'));
          this.beginStream();
          return i + 1;
        }
      }
      const wasKey = this.lastKey;
      this.lastKey = undefined;
      switch (b) {
        case QUOTE:
          this.inString = true;
          if (this.depth === 1 && this.expectKey) this.key = [];
          this.expectKey = false;
          break;
        case 0x7b: // {
          this.depth++;
          if (this.depth === 1) this.expectKey = true;
          break;
        case 0x5b: // [
          this.depth++;
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.depth--;
          break;
        case 0x2c: // ,
          if (this.depth === 1) this.expectKey = true;
          break;
        case 0x3a: // :
          if (this.depth === 1 && wasKey === KEY) this.awaitValue = true;
          break;
        default:
          break;
      }
    }
    this.keep(chunk.subarray(from));
    from = chunk.length;
    return from;
  }

  private beginStream(): void {
    if (this.file || this.upload) throw ZgwError.field(KEY, 'invalid', 'inhoud komt meer dan eens voor.');
    this.upload = this.store!.open();
    this.decoder = new Base64Decoder(KEY);
    this.streaming = true;
  }

  /** Decodes the inhoud string from `start` up to its closing quote; returns where the scan goes on. */
  private async streamFrom(chunk: Buffer, start: number): Promise<number> {
    let i = start;
    let text = '';
    // The next quote is looked up once per chunk (escaped quotes are no base64 anyway), so escapes cost no rescans.
    let quote = chunk.indexOf(QUOTE, i);
    if (quote < 0) quote = chunk.length;
    while (i < chunk.length) {
      if (this.streamEscape) {
        this.streamEscape = false;
        const c = String.fromCharCode(chunk[i]!);
        // JSON may escape the slash of base64, and wrap lines; nothing else belongs in base64 text.
        if (c === '/') text += '/';
        else if (!'nrt'.includes(c)) throw ZgwError.field(KEY, 'invalid', 'De inhoud is geen geldige base64.');
        i++;
        continue;
      }
      const slash = chunk.indexOf(BACKSLASH, i);
      const stop = slash >= 0 && slash < quote ? slash : quote;
      text += chunk.toString('latin1', i, stop);
      i = stop;
      if (i === chunk.length) break;
      if (chunk[i] === BACKSLASH) {
        this.streamEscape = true;
        i++;
        continue;
      }
      // The closing quote: the file is complete.
      await this.upload!.write(this.decoder!.push(text));
      await this.upload!.write(this.decoder!.end());
      this.file = await this.upload!.finish();
      this.upload = undefined;
      this.streaming = false;
      return i + 1;
    }
    await this.upload!.write(this.decoder!.push(text));
    return i;
  }
}
