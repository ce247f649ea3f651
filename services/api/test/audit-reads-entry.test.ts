import { shownObjects } from '@zgw/shared';
import { describeRead, type ObjectKind, type ReadFacts } from '../src/common/audit/audit-reads';

// What a read entry says it showed, from the answer alone (no engines): each object once, under its main object.
const Z = 'http://zgw.example/zaken/api/v1/zaken/';
const S = 'http://zgw.example/zaken/api/v1/statussen/';
const kind: ObjectKind = (url) =>
  url.startsWith(Z) ? { bron: 'ZRC', resource: 'zaak' } : url.startsWith(S) ? { bron: 'ZRC', resource: 'status' } : undefined;
const facts = (result: unknown): ReadFacts =>
  ({
    bron: 'ZRC',
    actie: 'list',
    operationId: 'zaak_list',
    req: { url: '/zaken/api/v1/zaken' },
    caller: { clientId: 'c', rights: {}, userId: 'u', userRepresentation: 'U' },
    result,
    status: 200,
    base: 'http://zgw.example',
  }) as unknown as ReadFacts;

describe('describeRead', () => {
  it('names each object once, a zaak (its own main object) by its index alone, a part with its zaak', () => {
    const statusA = { url: `${S}a`, zaak: `${Z}1` };
    const results = [
      { url: `${Z}1`, _expand: { status: statusA } },
      // the first zaak again as the second's hoofdzaak, with the same status: neither is named twice
      { url: `${Z}2`, _expand: { hoofdzaak: { url: `${Z}1`, _expand: { status: statusA } }, status: { url: `${S}b`, zaak: `${Z}2` } } },
      { url: `${Z}1` },
    ];
    const entry = describeRead(facts({ count: 3, next: null, previous: null, results }), kind);
    expect(entry.hoofdObjecten).toEqual([`${Z}1`, `${Z}2`]);
    expect(entry.getoond).toEqual([0, 1, ['status', `${S}a`, 0], ['status', `${S}b`, 1]]);
    expect(shownObjects(entry)).toEqual([
      ['zaak', `${Z}1`, 0],
      ['zaak', `${Z}2`, 1],
      ['status', `${S}a`, 0],
      ['status', `${S}b`, 1],
    ]);
  });

  it('names a part shown before its zaak with the zaak as main object, and the zaak after it by index', () => {
    const entry = describeRead(
      { ...facts([{ url: `${S}a`, zaak: `${Z}1`, _expand: { zaak: { url: `${Z}1` } } }]), operationId: 'status_list' },
      kind,
    );
    expect(entry.resource).toBe('status');
    expect(entry.hoofdObjecten).toEqual([`${Z}1`]);
    expect(entry.getoond).toEqual([
      ['status', `${S}a`, 0],
      ['zaak', `${Z}1`, 0],
    ]);
  });
});
