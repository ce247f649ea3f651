import { createHash } from 'node:crypto';

/** The bytes of a stream passed on as they come, their SHA-256 taken on the way (`digest()` once they ended). */
export function hashing<B extends Uint8Array>(stream: AsyncIterable<B>): { bytes: AsyncIterable<B>; digest: () => string } {
  const hash = createHash('sha256');
  return {
    bytes: (async function* () {
      for await (const chunk of stream) {
        hash.update(chunk);
        yield chunk;
      }
    })(),
    digest: () => hash.digest('hex'),
  };
}

/** The SHA-256 and size of a stream, read to its end. */
export async function digestOf(stream: AsyncIterable<Uint8Array>): Promise<{ sha256: string; size: number }> {
  const pass = hashing(stream);
  let size = 0;
  for await (const chunk of pass.bytes) size += chunk.length;
  return { sha256: pass.digest(), size };
}
