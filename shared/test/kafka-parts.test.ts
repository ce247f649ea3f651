import { randomUUID } from 'node:crypto';
import { inSendParts, KAFKA_SEND_BYTES, messageBytes, READ_ENTRY_BYTES, readEntryParts, ReadEntry, shownObjects } from '../src';

/** A list read that showed `n` zaakinformatieobjecten, each of its own zaak (a list without pages). */
function listRead(n: number): ReadEntry {
  const zaken = Array.from(
    { length: n },
    (_, i) => `http://zgw.example/zaken/api/v1/zaken/${String(i).padStart(12, '0')}-0000-4000-8000-000000000000`,
  );
  return {
    uuid: randomUUID(),
    bron: 'ZRC',
    clientId: 'importeur',
    gebruikersId: 'importeur',
    gebruikersWeergave: 'Import',
    actie: 'list',
    resource: 'zaakinformatieobject',
    request: '/zaken/api/v1/zaakinformatieobjecten',
    hoofdObjecten: zaken,
    getoond: zaken.map((_, i) => ['zaakinformatieobject', `http://zgw.example/zaken/api/v1/zaakinformatieobjecten/${randomUUID()}`, i]),
    aantal: n,
    resultaat: 200,
    aanmaakdatum: new Date().toISOString(),
    tenant: '000000000',
  };
}

/** A `_zoek` of `n` zaken with `expand=rollen`: each zaak named by its index alone (its own main object), then its rol. */
function zoekRead(n: number): ReadEntry {
  const entry = listRead(n);
  return {
    ...entry,
    actie: 'zoek',
    resource: 'zaak',
    request: '/zaken/api/v1/zaken/_zoek',
    getoond: entry.hoofdObjecten!.flatMap((_, i) => [
      i,
      ['rol', `http://zgw.example/zaken/api/v1/rollen/${randomUUID()}`, i] as [string, string, number],
    ]),
  };
}

/** Every object an entry shows with its main object. */
const shownWithMain = (e: ReadEntry) => shownObjects(e)!.map(([resource, url, i]) => `${resource} ${url} ${e.hoofdObjecten?.[i]}`);

describe('read entries larger than Kafka takes', () => {
  it.each([
    ['a list of parts of zaken', listRead(20_000)], // about 4 MB
    ['a _zoek of zaken with their rollen, the zaken by index', zoekRead(12_000)],
  ])('go as parts within the limit that together show every object with its main object, the same read in each: %s', (_, entry) => {
    const parts = readEntryParts(entry);
    expect(parts.length).toBeGreaterThan(10);
    for (const p of parts) {
      expect(Buffer.byteLength(JSON.stringify(p))).toBeLessThanOrEqual(READ_ENTRY_BYTES);
      expect(ReadEntry.parse(p)).toEqual(p);
      expect({ ...p, uuid: '', hoofdObjecten: [], getoond: [] }).toEqual({ ...entry, uuid: '', hoofdObjecten: [], getoond: [] });
      // each part names only the main objects of what it shows, an object that is its main object by index alone
      expect(new Set(shownObjects(p)!.map(([, , i]) => i)).size).toBe(p.hoofdObjecten!.length);
      expect(p.getoond!.filter((g) => typeof g === 'number').length).toBe(entry.resource === 'zaak' ? p.hoofdObjecten!.length : 0);
    }
    expect(parts.flatMap(shownWithMain)).toEqual(shownWithMain(entry));
    expect(parts.flatMap((p) => p.hoofdObjecten)).toEqual(entry.hoofdObjecten);
  });

  it('keep the uuid in the first part and derive the others from it, the same each time', () => {
    const entry = listRead(5_000);
    const [first, ...rest] = readEntryParts(entry);
    expect(first!.uuid).toBe(entry.uuid);
    const uuids = rest.map((p) => p.uuid);
    expect(new Set([entry.uuid, ...uuids]).size).toBe(rest.length + 1);
    expect(readEntryParts(entry).map((p) => p.uuid)).toEqual([entry.uuid, ...uuids]);
    expect(
      readEntryParts({ ...entry, uuid: randomUUID() })
        .slice(1)
        .map((p) => p.uuid),
    ).not.toEqual(uuids);
  });

  it('leave an entry within the limit as it is', () => {
    const entry = listRead(100);
    expect(readEntryParts(entry)).toEqual([entry]);
  });

  it('share out the main objects alone when the entry names no objects shown', () => {
    const { getoond: _, ...entry } = listRead(8_000);
    const parts = readEntryParts(entry);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.every((p) => p.getoond === undefined && Buffer.byteLength(JSON.stringify(p)) <= READ_ENTRY_BYTES)).toBe(true);
    expect(parts.flatMap((p) => p.hoofdObjecten)).toEqual(entry.hoofdObjecten);
  });
});

describe('sends to Kafka in parts', () => {
  const message = (bytes: number) => ({ value: 'x'.repeat(bytes), headers: { ce_id: randomUUID(), ce_subject: 'http://zgw.example/x' } });

  it('keeps each part within the limit and the messages in their order', () => {
    const messages = Array.from({ length: 3_000 }, (_, i) => ({ ...message(300 + (i % 7) * 50), key: String(i) }));
    const parts = inSendParts(messages, messageBytes);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.reduce((n, m) => n + messageBytes(m), 0)).toBeLessThanOrEqual(KAFKA_SEND_BYTES);
    expect(parts.flat().map((m) => m.key)).toEqual(messages.map((m) => m.key));
  });

  it('counts keys, values and headers, and sends a message over the limit alone', () => {
    const m = { key: 'k', value: Buffer.alloc(1000), headers: { a: 'bc', d: ['e', Buffer.alloc(10)] } };
    expect(messageBytes(m)).toBe(64 + 1 + 1000 + (8 + 1 + 2) + (8 + 1 + 1) + (8 + 1 + 10));
    const big = message(KAFKA_SEND_BYTES);
    expect(inSendParts([message(10), big, message(10)], messageBytes).map((p) => p.length)).toEqual([1, 1, 1]);
    expect(inSendParts([], messageBytes)).toEqual([]);
  });
});
