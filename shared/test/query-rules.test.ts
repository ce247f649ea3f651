import { MAX_SKIP, checkLog, checkQuery } from '../src/query-rules';
import type { FilterShape, IndexShape, QueryShape, SortShape } from '../src/query-shapes';

/** The rule of the query-index check: each case fails when its part of the rule is broken. */
const ix = (key: Record<string, 1 | -1>, opts: Partial<IndexShape> = {}): IndexShape => ({
  coll: 'c',
  op: 'createIndexes',
  key: Object.entries(key),
  ...opts,
});
const find = (filter: FilterShape, sort?: Record<string, 1 | -1>, extra: Partial<QueryShape> = {}): QueryShape => ({
  coll: 'c',
  op: 'find',
  filter,
  ...(sort ? { sort: Object.entries(sort) as SortShape } : {}),
  ...extra,
});
const served = (q: QueryShape, ...indexes: IndexShape[]) => checkQuery(q, indexes);

describe('equality, sort, range (ESR)', () => {
  it('serves equality fields that form an index prefix, in any order', () => {
    expect(served(find({ a: 'eq', b: 'eq' }), ix({ b: 1, a: 1, c: 1 })).ok).toBe(true);
    expect(served(find({ a: 'eq', b: 'eq' }), ix({ a: 1, c: 1, b: 1 })).ok).toBe(false);
  });

  it('requires every condition in the index: a field it lacks is a residual filter', () => {
    const v = served(find({ a: 'eq', b: 'eq' }), ix({ a: 1 }));
    expect(v.ok).toBe(false);
    expect(v.reasons.join('\n')).toMatch(/equality \{a, b\}/);
  });

  it('rejects the wrong order: sort before equality, range before equality, range before sort', () => {
    expect(served(find({ a: 'eq' }, { s: 1 }), ix({ s: 1, a: 1 })).ok).toBe(false);
    expect(served(find({ a: 'eq', r: 'range' }), ix({ r: 1, a: 1 })).ok).toBe(false);
    expect(served(find({ a: 'eq', r: 'range' }, { s: 1 }), ix({ a: 1, r: 1, s: 1 })).ok).toBe(false);
    expect(served(find({ a: 'eq', r: 'range' }, { s: 1 }), ix({ a: 1, s: 1, r: 1 })).ok).toBe(true);
    expect(served(find({ a: 'eq', r: 'range' }), ix({ a: 1, r: 1 })).ok).toBe(true);
  });

  it('rejects a sort the index cannot give (an in-memory SORT): other fields, other order, mixed directions', () => {
    const v = served(find({ a: 'eq' }, { s: 1, t: 1 }), ix({ a: 1, t: 1, s: 1 }));
    expect(v.ok).toBe(false);
    expect(v.reasons.join('\n')).toMatch(/in-memory SORT/);
    expect(served(find({ a: 'eq' }, { s: 1, t: -1 }), ix({ a: 1, s: 1, t: 1 })).ok).toBe(false);
    expect(served(find({}, { s: 1 }), ix({ a: 1, s: 1 })).ok).toBe(false);
  });

  it('serves a sort in the index order or fully reversed, and ignores sort fields bound by equality', () => {
    expect(served(find({ a: 'eq' }, { s: 1, t: -1 }), ix({ a: 1, s: 1, t: -1 })).ok).toBe(true);
    expect(served(find({ a: 'eq' }, { s: -1, t: 1 }), ix({ a: 1, s: 1, t: -1 })).ok).toBe(true);
    expect(served(find({ a: 'eq' }, { a: -1, s: 1 }), ix({ a: 1, s: 1 })).ok).toBe(true);
    expect(served(find({}, { s: -1 }), ix({ s: 1 })).ok).toBe(true);
  });

  it('counts a range that is also a sort field at its sort position', () => {
    expect(served(find({ a: 'eq', s: 'range' }, { s: 1, _id: 1 }), ix({ a: 1, s: 1, _id: 1 })).ok).toBe(true);
  });
});

describe('$in', () => {
  it('is equality without a sort', () => {
    expect(served(find({ a: 'in', b: 'eq' }), ix({ a: 1, b: 1 })).ok).toBe(true);
  });

  it('is a range with a sort: after the sort fields, unless it leads the sort', () => {
    expect(served(find({ a: 'in' }, { s: 1 }), ix({ a: 1, s: 1 })).ok).toBe(false);
    expect(served(find({ a: 'in' }, { s: 1 }), ix({ s: 1, a: 1 })).ok).toBe(true);
    expect(served(find({ a: 'in', b: 'eq' }, { s: 1 }), ix({ b: 1, s: 1, a: 1 })).ok).toBe(true);
    expect(served(find({ a: 'in' }, { a: 1, s: 1 }), ix({ a: 1, s: 1 })).ok).toBe(true);
  });
});

describe('$or and $and', () => {
  it('needs every $or branch served on its own (with the conditions beside the $or)', () => {
    const q = find({ c: 'eq', $or: [{ a: 'eq' }, { b: 'eq' }] });
    const v = served(q, ix({ c: 1, a: 1 }));
    expect(v.ok).toBe(false);
    expect(v.reasons.join('\n')).toMatch(/\$or branch \{c: eq, b: eq\}/);
    expect(v.reasons.join('\n')).not.toMatch(/branch \{c: eq, a: eq\}/);
    expect(served(q, ix({ c: 1, a: 1 }), ix({ b: 1, c: 1 })).ok).toBe(true);
  });

  it('flattens $and, nested ones too', () => {
    const q = find({ $and: [{ a: 'eq' }, { $and: [{ b: 'eq' }] }] }, { s: 1 });
    expect(served(q, ix({ b: 1, a: 1, s: 1 })).ok).toBe(true);
    expect(served(q, ix({ a: 1, s: 1 })).ok).toBe(false);
  });

  it('refuses too many $or combinations', () => {
    const or = (f: string) => ({ $or: [{ [`${f}1`]: 'eq' }, { [`${f}2`]: 'eq' }] });
    const v = served(find({ $and: ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map(or) }));
    expect(v.ok).toBe(false);
    expect(v.reasons.join('\n')).toMatch(/\$or combinations/);
  });
});

describe('residual conditions', () => {
  it('allows the documented residual condition (_tombstone absent) beside an index', () => {
    expect(served(find({ a: 'eq', _tombstone: 'absent' }, { s: 1 }), ix({ a: 1, s: 1 })).ok).toBe(true);
  });

  it('allows no other unbounded condition, nor another kind of condition on the listed field', () => {
    const v = served(find({ a: 'eq', b: 'absent' }), ix({ a: 1 }));
    expect(v.ok).toBe(false);
    expect(v.reasons.join('\n')).toMatch(/b: absent cannot bound an index/);
    expect(served(find({ a: 'eq', b: 'ne' }), ix({ a: 1, b: 1 })).ok).toBe(false);
    expect(served(find({ a: 'eq', _tombstone: 'eq' }), ix({ a: 1 })).ok).toBe(false);
  });

  it('allows a regex only beside an equality on the zaak it is confined to', () => {
    expect(served(find({ zaak: 'eq', onderwerp: 'regex' }, { _created: 1 }), ix({ zaak: 1, _created: 1 })).ok).toBe(true);
    const alone = served(find({ onderwerp: 'regex' }, { _created: 1 }), ix({ _created: 1 }));
    expect(alone.ok).toBe(false);
    expect(alone.reasons.join('\n')).toMatch(/onderwerp: regex cannot bound an index/);
    expect(served(find({ zaak: 'in', onderwerp: 'regex' }), ix({ zaak: 1 })).ok).toBe(false);
  });

  it('calls a query with nothing an index can bound and no sort a collection scan', () => {
    const v = served(find({ _tombstone: 'absent' }), ix({ a: 1 }));
    expect(v.ok).toBe(false);
    expect(v.reasons.join('\n')).toMatch(/collection scan/);
  });
});

describe('point lookups', () => {
  it('serves _id by equality or $in whatever else the query holds', () => {
    expect(served(find({ _id: 'eq', x: 'ne' }, { y: 1 })).ok).toBe(true);
    expect(served(find({ _id: 'in' }, { y: 1 })).ok).toBe(true);
    expect(served(find({ _id: 'ne' })).ok).toBe(false);
  });

  it('serves every field of a unique index by equality or $in, but not null on a sparse one', () => {
    expect(served(find({ clientIds: 'in', _id: 'ne' }), ix({ clientIds: 1 }, { unique: true, sparse: true })).ok).toBe(true);
    expect(served(find({ clientIds: 'null', x: 'ne' }), ix({ clientIds: 1 }, { unique: true, sparse: true })).ok).toBe(false);
  });
});

describe('index kinds', () => {
  it('uses a sparse index only when the query excludes documents without its fields', () => {
    expect(served(find({ p: 'eq' }), ix({ p: 1 }, { sparse: true })).ok).toBe(true);
    expect(served(find({ p: 'null' }), ix({ p: 1 }, { sparse: true })).ok).toBe(false);
    expect(served(find({ p: 'not-range' }), ix({ p: 1 }, { sparse: true })).ok).toBe(false);
    expect(served(find({ p: 'not-range' }), ix({ p: 1 })).ok).toBe(true);
  });

  it('serves a geospatial condition only from a 2dsphere index field, which serves nothing else', () => {
    const geo = ix({ zaaktype: 1, zaakgeometrie: '2dsphere' as never });
    expect(served(find({ zaaktype: 'eq', zaakgeometrie: 'geoWithin' }), geo).ok).toBe(true);
    expect(served(find({ zaaktype: 'eq', zaakgeometrie: 'geoWithin' }), ix({ zaaktype: 1, zaakgeometrie: 1 })).ok).toBe(false);
    expect(served(find({ zaaktype: 'eq' }), geo).ok).toBe(false);
  });

  it('considers a partial index only when the query implies its {field: {$exists: true}} filter', () => {
    expect(served(find({ a: 'eq' }), ix({ a: 1 }, { partial: true })).ok).toBe(false);
    const ready = ix({ g: 1, a: 1 }, { partial: true, partialFilter: { g: 'exists' } });
    expect(served(find({ g: 'eq', a: 'eq' }), ready).ok).toBe(true);
    expect(served(find({ g: 'null', a: 'eq' }), ready).ok).toBe(false);
    expect(served(find({ a: 'eq' }), ix({ a: 1 }, { partial: true, partialFilter: { a: 'exists' } })).ok).toBe(true);
    expect(served(find({ a: 'eq' }), ix({ a: 1 }, { partial: true, partialFilter: { g: 'exists' } })).ok).toBe(false);
    expect(served(find({ g: 'eq', a: 'eq' }), ix({ g: 1, a: 1 }, { partial: true, partialFilter: { g: 'eq' } })).ok).toBe(false);
  });

  it('answers a count without a query from metadata', () => {
    expect(checkQuery({ coll: 'c', op: 'count', filter: {}, stages: ['metadata'] }, []).ok).toBe(true);
    expect(checkQuery({ coll: 'c', op: 'aggregate', filter: {}, stages: ['$match', '$group'] }, []).ok).toBe(false);
  });
});

describe('skip', () => {
  it(`allows a skip up to ${MAX_SKIP} and flags a deeper one even when the index serves the query`, () => {
    expect(served(find({}, { s: 1 }, { skip: MAX_SKIP, limit: true }), ix({ s: 1 })).ok).toBe(true);
    const v = served(find({}, { s: 1 }, { skip: MAX_SKIP + 100, limit: true }), ix({ s: 1 }));
    expect(v.ok).toBe(false);
    expect(v.reasons.join('\n')).toMatch(/skip 10100 is above the bound/);
  });
});

describe('checkLog', () => {
  it('checks each distinct API shape once against its own collection, with the largest skip, and skips test probes', () => {
    // (platform collections: the tenant rule below does not apply to them)
    const [a, b, t] = ['settings', 'credentials', 'tenants'];
    const lines = [
      { coll: a, op: 'createIndexes' as const, key: [['x', 1]] as SortShape, origin: 'app' },
      { coll: b, op: 'createIndexes' as const, key: [['y', 1]] as SortShape, origin: 'app' },
      { coll: t, op: 'createIndexes' as const, key: [['z', 1]] as SortShape, origin: 'test' },
      { ...find({ x: 'eq' }), coll: a, origin: 'app', sites: ['s1'] },
      { ...find({ x: 'eq' }), coll: a, origin: 'app', sites: ['s2'] },
      { ...find({ y: 'eq' }), coll: a, origin: 'app', sites: ['s3'] },
      { ...find({}, { x: 1 }, { skip: 100, limit: true }), coll: a, origin: 'app' },
      { ...find({}, { x: 1 }, { skip: 20_000, limit: true }), coll: a, origin: 'app' },
      { ...find({ z: 'eq' }), coll: t, origin: 'app' },
      { ...find({ q: 'eq' }), coll: a, origin: 'test' },
    ];
    const report = checkLog(lines);
    expect(report.shapes).toHaveLength(4);
    expect(report.ignoredTestProbes).toBe(1);
    expect(report.shapes.find((s) => s.shape.filter.x)?.sites).toEqual(['s1', 's2']);
    expect(report.failed.map((s) => s.shape.filter)).toEqual([{ y: 'eq' }, {}, { z: 'eq' }]);
    expect(report.failed[1]!.maxSkip).toBe(20_000);
  });

  it("fails a query of a tenant's collection without the tenant, unless every site it came from is a named platform-level one", () => {
    const site = (s: string) => `services/api/dist/${s}`;
    const lines = [
      {
        coll: 'zaken',
        op: 'createIndexes' as const,
        key: [
          ['_tenant', 1],
          ['x', 1],
        ] as SortShape,
        origin: 'app',
      },
      { coll: 'zaken', op: 'createIndexes' as const, key: [['_pending', 1]] as SortShape, sparse: true, origin: 'app' },
      { coll: 'settings', op: 'createIndexes' as const, key: [['x', 1]] as SortShape, origin: 'app' },
      { ...find({ _tenant: 'eq', x: 'eq' }), coll: 'zaken', origin: 'app', sites: [site('components/zaken/zaken.js:1:1 list')] },
      { ...find({ _id: 'eq' }), coll: 'zaken', origin: 'app', sites: [site('components/zaken/zaken.js:2:1 read')] },
      {
        ...find({ _pending: 'eq' }),
        coll: 'zaken',
        origin: 'app',
        sites: [site('common/store.js:3:1 Store.pending < common/relay.js:4:1 OutboxRelay.drain')],
      },
      { ...find({ x: 'eq' }), coll: 'settings', origin: 'app', sites: [site('admin/audit.js:5:1')] },
    ];
    const report = checkLog(lines);
    expect(report.failed.map((s) => s.shape.filter)).toEqual([{ _id: 'eq' }]);
    expect(report.failed[0]!.verdict.reasons.join('\n')).toMatch(/no _tenant/);
  });
});
