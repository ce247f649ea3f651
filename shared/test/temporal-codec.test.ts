import { DefaultPayloadConverter } from '@temporalio/common';
import { Pii, newPiiKey, parsePiiKeys } from '../src/pii';
import { PiiPayloadCodec, SEALED_ENCODING, sealedDataConverter } from '../src/temporal-codec';
import { failureConverter } from '../src/temporal-failures';

// Temporal's history keeps what a transfer hands it: the codec seals every payload with the PII keys.

const BSN = '999993653';
const converter = new DefaultPayloadConverter();
const v1 = newPiiKey('v1');

describe('the payload codec', () => {
  it('seals a payload whole, so neither its data nor its metadata shows, and opens it again', async () => {
    const codec = new PiiPayloadCodec(new Pii(parsePiiKeys(v1)));
    const payload = converter.toPayload({ zaak: 'ZAAK-2024-1', rol: { inpBsn: BSN } })!;
    const [sealed] = await codec.encode([payload]);
    expect(Buffer.from(sealed!.metadata!.encoding!).toString()).toBe(SEALED_ENCODING);
    expect(Buffer.from(sealed!.metadata!['encryption-key-id']!).toString()).toBe('v1');
    const bytes = Buffer.from(sealed!.data!).toString();
    for (const shown of [BSN, 'ZAAK-2024-1', 'json/plain']) expect(bytes).not.toContain(shown);
    const [opened] = await codec.decode([sealed!]);
    expect(converter.fromPayload(opened!)).toEqual({ zaak: 'ZAAK-2024-1', rol: { inpBsn: BSN } });
  });

  it('opens payloads sealed with an older key, and passes payloads that are not sealed', async () => {
    const old = new PiiPayloadCodec(new Pii(parsePiiKeys(v1)));
    const both = new PiiPayloadCodec(new Pii(parsePiiKeys(`${newPiiKey('v2')},${v1}`)));
    const [sealed] = await old.encode([converter.toPayload('x')!]);
    expect(converter.fromPayload((await both.decode([sealed!]))[0]!)).toBe('x');
    const plain = converter.toPayload('y')!;
    expect((await both.decode([plain]))[0]).toBe(plain);
    await expect(new PiiPayloadCodec(new Pii(parsePiiKeys(newPiiKey('v3')))).decode([sealed!])).rejects.toThrow('no PII key of version v1');
  });

  it('is the data converter of the platform, with failures whose message and stack are encoded', async () => {
    const dc = sealedDataConverter(new Pii(parsePiiKeys(v1)));
    expect(dc.payloadCodecs?.[0]).toBeInstanceOf(PiiPayloadCodec);
    expect(((await import(dc.failureConverterPath!)) as { failureConverter: unknown }).failureConverter).toBe(failureConverter);
    expect(failureConverter.options.encodeCommonAttributes).toBe(true);
  });
});
