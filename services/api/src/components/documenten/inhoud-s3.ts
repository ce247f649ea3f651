import { randomUUID } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload as MultipartUpload } from '@aws-sdk/lib-storage';
import type { Config, Logger } from '@zgw/shared';
import { ZgwError } from '../../common/http/errors';
import { InhoudStore, type Bestand, type StoredFile, type Upload } from './inhoud';

/** S3's smallest part of a multipart upload; each upload holds at most QUEUE of them in memory. */
const PART_BYTES = 5 * 1024 * 1024;
const QUEUE = 2;

/** An object that is not there (HeadObject answers 404 without a body, GetObject NoSuchKey). */
const missing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/** S3 that cannot be reached or fails (a 5xx): 503 to the client, in the ZGW problem format; anything else as it is. */
function outage(err: unknown): unknown {
  const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e.$metadata?.httpStatusCode;
  const network = !status && (e.code !== undefined || e.name === 'TimeoutError' || /ECONN|ETIMEDOUT|EAI_AGAIN|socket hang up/.test(e.message ?? ''));
  if (!(network || (status !== undefined && status >= 500))) return err;
  return new ZgwError(
    503,
    'inhoud-unavailable',
    `De opslag van documentinhoud (S3) is nu niet bereikbaar: ${e.message ?? e.name}. Probeer het later opnieuw.`,
  );
}

/**
 * The content of documents in an S3-compatible object store (INHOUD_STORE=s3): bucket S3_BUCKET, one object per file
 * under `<MONGODB_DB>/<id>` (so several platforms, or test databases, can share a bucket and the sweep of one never
 * touches another's). Uploads stream through multipart uploads (@aws-sdk/lib-storage: at most QUEUE parts of
 * PART_BYTES in memory per upload); downloads stream the objects' bodies. Credentials come from the AWS SDK's standard
 * chain (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, a web identity or instance role).
 */
export class S3Inhoud extends InhoudStore {
  readonly kind = 's3';
  readonly client: S3Client;
  readonly bucket: string;
  private readonly prefix: string;

  constructor(
    config: Config,
    private readonly log: Logger,
  ) {
    super();
    this.bucket = config.S3_BUCKET;
    this.prefix = `${config.MONGODB_DB}/`;
    this.client = new S3Client({
      ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
      region: config.S3_REGION || 'us-east-1',
      forcePathStyle: config.S3_FORCE_PATH_STYLE === 'true',
      // checksums only where S3 itself requires them: S3-compatible stores do not all take the SDK's default CRC32 ones
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  }

  key(id: string): string {
    return `${this.prefix}${id}`;
  }

  /** A request to S3, with an outage of S3 as a 503 (outage). */
  async call<T>(request: (client: S3Client) => Promise<T>): Promise<T> {
    try {
      return await request(this.client);
    } catch (err) {
      throw outage(err);
    }
  }

  private bucketReady?: Promise<void>;

  /**
   * At start: the bucket, there or made (the local engine's is made at the first start). S3 out of reach does not stop
   * the API (everything but document content works; content answers 503 meanwhile): it is logged, and the next upload
   * tries again.
   */
  async prepare(): Promise<void> {
    await this.ready().catch((err: Error) =>
      this.log.error({ bucket: this.bucket, err }, 'S3 for document content cannot be reached: uploads and downloads answer 503 until it can'),
    );
  }

  /** The bucket exists (checked once; again after a failure). */
  ready(): Promise<void> {
    this.bucketReady ??= this.ensureBucket().catch((err: unknown) => {
      this.bucketReady = undefined;
      throw err;
    });
    return this.bucketReady;
  }

  private async ensureBucket(): Promise<void> {
    try {
      await this.call((c) => c.send(new HeadBucketCommand({ Bucket: this.bucket })));
      return;
    } catch (err) {
      if (!missing(err)) throw err;
    }
    await this.call((c) => c.send(new CreateBucketCommand({ Bucket: this.bucket }))).catch((e: { name?: string }) => {
      if (e.name !== 'BucketAlreadyOwnedByYou' && e.name !== 'BucketAlreadyExists') throw e;
    });
    this.log.info({ bucket: this.bucket }, 'S3 bucket for document content created');
  }

  open(id: string = randomUUID()): Upload {
    return new S3Upload(this, id, this.log);
  }

  download(ids: string | string[]): Readable {
    const list = typeof ids === 'string' ? [ids] : ids;
    const read = async function* (this: S3Inhoud): AsyncGenerator<Buffer> {
      for (const id of list) {
        let body: Readable;
        try {
          body = (await this.call((c) => c.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(id) })))).Body as Readable;
        } catch (err) {
          throw missing(err) ? new Error(`inhoud ${id}: no such object`) : err;
        }
        for await (const chunk of body) yield chunk as Buffer;
      }
    }.bind(this);
    return Readable.from(read(), { objectMode: false });
  }

  async size(ids: string | string[]): Promise<number | undefined> {
    let total = 0;
    for (const id of typeof ids === 'string' ? [ids] : ids) {
      try {
        total += (await this.call((c) => c.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(id) })))).ContentLength ?? 0;
      } catch (err) {
        if (missing(err)) return undefined;
        throw err;
      }
    }
    return total;
  }

  async delete(ids: Iterable<string>): Promise<void> {
    // a missing key is no error to S3's DeleteObject
    for (const id of new Set(ids)) await this.call((c) => c.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(id) })));
  }

  /** In key order (S3 lists no other), a thousand a request. */
  async *list(before: Date = new Date()): AsyncIterable<StoredFile> {
    let token: string | undefined;
    do {
      const page = await this.call((c) => c.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, ContinuationToken: token })));
      for (const o of page.Contents ?? []) {
        if (!o.Key || !o.LastModified || o.LastModified >= before) continue;
        yield { id: o.Key.slice(this.prefix.length), size: o.Size ?? 0, at: o.LastModified };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

/** One object being written: the bytes go through a stream into a multipart upload, with backpressure. */
class S3Upload implements Upload {
  size = 0;
  private readonly body = new PassThrough({ highWaterMark: 1024 * 1024 });
  private readonly upload: MultipartUpload;
  private readonly done: Promise<unknown>;
  private finished = false;

  constructor(
    private readonly store: S3Inhoud,
    readonly id: string,
    private readonly log: Logger,
  ) {
    this.upload = new MultipartUpload({
      client: store.client,
      params: { Bucket: store.bucket, Key: store.key(id), Body: this.body, ContentType: 'application/octet-stream' },
      partSize: PART_BYTES,
      queueSize: QUEUE,
      leavePartsOnError: false,
    });
    this.done = store
      .ready()
      .then(() => this.upload.done())
      .catch((err: unknown) => {
        throw outage(err);
      });
    // Errors surface through write/finish; without a handler an early one would be an unhandled rejection.
    this.done.catch(() => undefined);
  }

  async write(bytes: Buffer): Promise<void> {
    if (!bytes.length) return;
    this.size += bytes.length;
    if (!this.body.write(bytes)) {
      await new Promise<void>((resolve, reject) => {
        this.body.once('drain', resolve);
        this.done.then(() => reject(new Error(`inhoud ${this.id}: the upload ended early`)), reject);
      });
    }
  }

  async finish(): Promise<Bestand> {
    this.body.end();
    await this.done;
    this.finished = true;
    return { id: this.id, size: this.size };
  }

  async abort(): Promise<void> {
    try {
      if (!this.finished) {
        this.body.destroy();
        await this.upload.abort().catch(() => undefined);
      }
      // a single-part upload may have completed all the same; DeleteObject of a missing key is no error
      await this.store.delete([this.id]);
    } catch (err) {
      // the caller goes on with the failure that made it abort; this one only leaves an unused object (the sweep's)
      this.log.warn({ inhoud: this.id, err }, 'the content of a failed upload was not removed: the sweep will');
    }
  }
}
