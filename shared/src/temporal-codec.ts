// What a transfer hands Temporal (workflow input, activity arguments and results, failures) is stored in Temporal's
// history: sealed with the PII keys (shared/src/pii.ts) by a PayloadCodec, the documented Temporal way, on the worker
// and on every client that starts or reads a transfer. Failure messages and stack traces go into an encoded payload
// too (the failure converter's `encodeCommonAttributes`), so the codec seals them as well.
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';

export type { Payload };
import { temporal } from '@temporalio/proto';
import type { Pii } from './pii';

/** The encoding of a sealed payload; its key version is in the `encryption-key-id` metadata. */
export const SEALED_ENCODING = 'binary/encrypted';
const CONTEXT = 'temporal.payload';
const ProtoPayload = temporal.api.common.v1.Payload;

/** Seals every payload as a whole (metadata and data), and opens sealed ones; others pass as they are. */
export class PiiPayloadCodec implements PayloadCodec {
  constructor(private readonly pii: Pii) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      const plain = Buffer.from(ProtoPayload.encode(p).finish()).toString('base64');
      return {
        metadata: { encoding: Buffer.from(SEALED_ENCODING), 'encryption-key-id': Buffer.from(this.pii.current) },
        data: Buffer.from(this.pii.encrypt(plain, CONTEXT)),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (Buffer.from(p.metadata?.encoding ?? []).toString() !== SEALED_ENCODING) return p;
      const plain = this.pii.decrypt(Buffer.from(p.data ?? []).toString(), CONTEXT);
      return ProtoPayload.decode(Buffer.from(plain, 'base64')) as Payload;
    });
  }
}

/** The data converter of every Temporal worker and client of the platform. */
export function sealedDataConverter(pii: Pii): DataConverter {
  return { payloadCodecs: [new PiiPayloadCodec(pii)], failureConverterPath: require.resolve('./temporal-failures') };
}
