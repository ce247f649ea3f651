import { randomUUID } from 'node:crypto';
import { ZgwCallError, digestOf, type ZgwClient } from '@zgw/shared';
import * as A from './antwoorden';
import type { Kant } from './context';

/** Documents up to this size travel inline (base64 in the create); larger ones in bestandsdelen, streamed. */
export const INLINE_BYTES = 1024 * 1024;

/** The source document's content as a stream (never whole in memory). */
export async function bronInhoud(k: Kant, url: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  return (await k.client.download(url)).getReader();
}

/** The size and SHA-256 of the content at `url`, read as a stream. */
export async function omvangEnHash(client: Pick<ZgwClient, 'download'>, url: string): Promise<{ omvang: number; sha256: string }> {
  const { size, sha256 } = await digestOf(await client.download(url));
  return { omvang: size, sha256 };
}

/** Reads a whole small stream (for inline content, at most INLINE_BYTES). */
export async function klein(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return Buffer.concat(chunks);
}

/**
 * A stream's bytes handed out part by part: `deel(n)` yields exactly the next n bytes (a chunk that straddles two
 * parts is split), so each bestandsdeel is sent as it is read.
 */
export class Delen {
  private rest: Uint8Array | undefined;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  deel(omvang: number): ReadableStream<Uint8Array> {
    let left = omvang;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (left <= 0) return controller.close();
        let chunk = this.rest;
        this.rest = undefined;
        if (!chunk) {
          const r = await this.reader.read();
          if (r.done) return controller.error(new Error(`de inhoud is ${left} bytes korter dan aangekondigd`));
          chunk = r.value;
        }
        if (chunk.length > left) {
          this.rest = chunk.subarray(left);
          chunk = chunk.subarray(0, left);
        }
        left -= chunk.length;
        controller.enqueue(chunk);
      },
    });
  }
}

/** A multipart/form-data body of one bestandsdeel (`inhoud` streamed, `lock`), itself a stream. */
function multipart(inhoud: ReadableStream<Uint8Array>, lock: string, bestandsnaam: string): { body: ReadableStream<Uint8Array>; type: string } {
  const grens = `----zgw-${randomUUID()}`;
  const enc = new TextEncoder();
  const kop = enc.encode(
    `--${grens}\r\nContent-Disposition: form-data; name="lock"\r\n\r\n${lock}\r\n` +
      `--${grens}\r\nContent-Disposition: form-data; name="inhoud"; filename="${bestandsnaam.replace(/["\r\n]/g, '_') || 'inhoud'}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const staart = enc.encode(`\r\n--${grens}--\r\n`);
  const reader = inhoud.getReader();
  let fase: 'kop' | 'inhoud' | 'klaar' = 'kop';
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (fase === 'kop') {
        fase = 'inhoud';
        return controller.enqueue(kop);
      }
      if (fase === 'klaar') return controller.close();
      const r = await reader.read();
      if (r.done) {
        fase = 'klaar';
        return controller.enqueue(staart);
      }
      controller.enqueue(r.value);
    },
  });
  return { body, type: `multipart/form-data; boundary=${grens}` };
}

/**
 * Creates the target document of a large source: announced with its size and no content (Documenten API 1.1+:
 * the target answers with its bestandsdelen and a lock), each part PUT as it is read from the source, then unlocked.
 */
export async function maakGroot(
  doel: Kant,
  createUrl: string,
  body: { bestandsnaam?: unknown; [veld: string]: unknown },
  omvang: number,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<A.Informatieobject> {
  const c: ZgwClient = doel.client;
  // (an answer without bestandsdelen or lock: a ZgwCallError naming them)
  const doc = await c.post(createUrl, { ...body, inhoud: null, bestandsomvang: omvang }, A.AangekondigdDocument);
  const delen = [...doc.bestandsdelen].sort((x, y) => x.volgnummer - y.volgnummer);
  const bron = new Delen(reader);
  for (const deel of delen) {
    const { body: form, type } = multipart(bron.deel(deel.omvang), doc.lock, String(body.bestandsnaam ?? ''));
    const res = await c.fetch('PUT', deel.url, { body: form, headers: { 'content-type': type }, duplex: 'half' });
    if (!res.ok) throw new ZgwCallError('PUT', deel.url, res.status, await res.json().catch(() => undefined));
    await res.body?.cancel();
  }
  await c.post(`${doc.url}/unlock`, { lock: doc.lock });
  return doc;
}
