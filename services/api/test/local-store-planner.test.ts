import { MongoClient, ObjectId, type Collection, type Db, type Document, type Filter, type Sort } from 'mongodb';

// The local store (local-store) answers queries from the indexes the platform declares (QueryPlanner).
// Differential test: generated documents and generated queries, answered once by the planner and once by a scan of
// the same store (`hint: {$natural: 1}`, as in MongoDB), must agree document for document, in the same order, after
// random interleaved writes. Runs against the engine of the test run (MONGODB_URL); on real MongoDB it tests nothing
// of ours but still holds.

/** A small deterministic generator (mulberry32), so a failure can be replayed from its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof rng>;

const SEED = Number(process.env.ZGW_PLANNER_SEED ?? Date.now() % 1_000_000);
const DATES = [0, 1, 2, 3, 5, 8].map((d) => new Date(Date.UTC(2024, 0, 1 + d)));
const STRINGS = ['a', 'ab', 'abc', 'b', 'B', 'ba', 'z', '', 'é', 'zaak-1', 'zaak-2'];
const NUMBERS = [-1, 0, 1, 1.5, 2, 3, 10, 2 ** 40];
const SCALARS: unknown[] = [...STRINGS, ...NUMBERS, null, true, false, DATES[1], DATES[3]];

/** The indexes the test collection declares: compound with mixed directions, multikey, unique sparse, partial. */
const INDEXES: { key: Document; options?: Document }[] = [
  { key: { a: 1 } },
  { key: { a: 1, b: -1 } },
  { key: { b: 1, c: 1, _id: 1 } },
  { key: { tags: 1 } },
  { key: { tags: 1, c: -1 } },
  { key: { 'n.x': 1 } },
  { key: { c: -1, _id: -1 } },
  { key: { u: 1 }, options: { unique: true, sparse: true } },
  { key: { p: 1, a: 1 }, options: { partialFilterExpression: { p: { $exists: true } } } },
  { key: { _created: 1, _id: 1 } },
];

let nextU = 0;
function document(r: Rng, id: number): Document {
  const d: Document = { _id: r.chance(0.8) ? id : `id-${id}`, _created: DATES[r.int(DATES.length)] };
  if (r.chance(0.85)) d.a = r.pick(SCALARS);
  if (r.chance(0.8)) d.b = r.pick(STRINGS);
  if (r.chance(0.8)) d.c = r.pick(DATES);
  const tags = r.int(5);
  if (tags === 1) d.tags = [];
  else if (tags === 2) d.tags = r.pick(STRINGS);
  else if (tags >= 3) d.tags = Array.from({ length: 1 + r.int(3) }, () => r.pick(STRINGS));
  const n = r.int(4);
  if (n === 1) d.n = { x: r.pick(SCALARS) };
  else if (n === 2) d.n = [{ x: r.pick(STRINGS) }, { x: r.pick(STRINGS) }, { y: 1 }];
  if (r.chance(0.5)) d.u = nextU++;
  if (r.chance(0.3)) d.p = r.pick(STRINGS);
  return d;
}

const FIELDS = ['a', 'b', 'c', 'tags', 'n.x', 'u', 'p', '_id', '_created'];
function valueFor(r: Rng, field: string): unknown {
  if (field === 'c' || field === '_created') return r.chance(0.9) ? r.pick(DATES) : null;
  if (field === 'u') return r.int(nextU + 5);
  if (field === '_id') return r.chance(0.7) ? r.int(400) : `id-${r.int(400)}`;
  if (field === 'b' || field === 'p' || field === 'tags') return r.chance(0.9) ? r.pick(STRINGS) : null;
  return r.pick(SCALARS);
}

function condition(r: Rng, field: string): unknown {
  const v = () => valueFor(r, field);
  switch (r.int(10)) {
    case 0:
    case 1:
      return v();
    case 2:
      return { $in: Array.from({ length: 1 + r.int(4) }, v) };
    case 3:
      return { [r.pick(['$gt', '$gte'])]: v() };
    case 4:
      return { [r.pick(['$lt', '$lte'])]: v() };
    case 5: {
      const [x, y] = [v(), v()];
      return { $gte: x, $lt: y };
    }
    case 6:
      return { $exists: r.chance(0.5) };
    case 7:
      return { $ne: v() };
    case 8:
      return field === 'b' || field === 'p' || field === 'tags' ? { $regex: `^${r.pick(['a', 'ab', 'z', 'é'])}` } : { $eq: v() };
    default:
      return { $nin: [v(), v()] };
  }
}

function conjunction(r: Rng, max: number): Document {
  const q: Document = {};
  for (let i = 0, n = 1 + r.int(max); i < n; i++) q[r.pick(FIELDS)] = condition(r, r.pick(FIELDS));
  return q;
}

function query(r: Rng): Document {
  const q = conjunction(r, 3);
  if (r.chance(0.25)) q.$or = [conjunction(r, 2), conjunction(r, 2)];
  if (r.chance(0.15)) return { $and: [q, conjunction(r, 1)] };
  return q;
}

const SORTABLE = ['a', 'b', 'c', '_id', '_created', 'u', 'tags', 'n.x'];
function sort(r: Rng): Document | undefined {
  const n = r.int(4);
  if (n === 0) return undefined;
  const s: Document = {};
  for (let i = 0; i < n; i++) s[r.pick(SORTABLE)] = r.pick([1, -1]);
  return s;
}

/** $group _ids on index fields (as a maintained count's recount asks), and the groups by field a scan gives. */
const GROUPINGS: Document[] = [{ a: '$a' }, { a: '$a', b: '$b' }, { x: '$b', y: '$c' }, { c: '$c' }, { p: '$p', a: '$a' }];

/** The groups the store gives, as a sorted list of their _ids (JSON): their order is free. */
async function groups(coll: Collection, filter: Document, s: Document | undefined, by: Document): Promise<string> {
  const pipeline: Document[] = [{ $match: filter }, ...(s ? [{ $sort: s }] : []), { $group: { _id: by } }];
  return JSON.stringify((await coll.aggregate(pipeline).toArray()).map((g) => JSON.stringify(g._id)).sort());
}

/** What MongoDB's $group gives on these documents: one _id per distinct combination, a missing field left out. */
function groupsOf(docs: Document[], by: Document): string {
  const ids = new Set<string>();
  for (const d of docs) {
    const id: Document = {};
    for (const [name, path] of Object.entries(by)) {
      const value = String(path)
        .slice(1)
        .split('.')
        .reduce<unknown>((v, k) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Document)[k] : undefined), d);
      if (value !== undefined) id[name] = value;
    }
    ids.add(JSON.stringify(id));
  }
  return JSON.stringify([...ids].sort());
}

/** The same find twice: as the planner answers it and as a scan does. */
async function both(coll: Collection, filter: Document, s: Document | undefined, skip: number, limit: number) {
  const run = (hint?: Document) => {
    let c = coll.find(filter as Filter<Document>, hint ? { hint } : {});
    if (s) c = c.sort(s as Sort);
    if (skip) c = c.skip(skip);
    if (limit) c = c.limit(limit);
    return c.toArray();
  };
  return [await run(), await run({ $natural: 1 })] as const;
}

async function write(r: Rng, coll: Collection, nextId: () => number) {
  switch (r.int(7)) {
    case 0:
      await coll
        .insertMany(
          Array.from({ length: 1 + r.int(10) }, () => document(r, nextId())),
          { ordered: false },
        )
        .catch(() => undefined);
      break;
    case 1:
      await coll.updateMany(conjunction(r, 2), { $set: { [r.pick(['a', 'b', 'c', 'n.x'])]: valueFor(r, 'a') } }).catch(() => undefined);
      break;
    case 2:
      await coll.updateMany(conjunction(r, 2), { $unset: { [r.pick(['a', 'b', 'tags', 'p'])]: '' } });
      break;
    case 3:
      await coll.updateMany(conjunction(r, 1), { $push: { tags: r.pick(STRINGS) } } as Document).catch(() => undefined);
      break;
    case 4:
      await coll.deleteMany({ _id: { $in: Array.from({ length: 3 }, () => valueFor(r, '_id')) } } as Filter<Document>);
      break;
    case 5:
      // a unique key another document holds: refused, and no index may keep a trace of it
      await coll.updateOne({ _id: valueFor(r, '_id') } as Filter<Document>, { $set: { u: r.int(nextU), a: 'dup' } }).catch(() => undefined);
      break;
    default:
      await coll
        .findOneAndUpdate(conjunction(r, 1), { $set: { b: r.pick(STRINGS) } }, { sort: { c: -1, _id: 1 }, upsert: r.chance(0.3) })
        .catch(() => undefined);
  }
}

const show = (docs: Document[]) => `${docs.length} documents ${JSON.stringify(docs.slice(0, 12).map((d) => d._id))}`;

describe('local store: the planner answers every query as a scan of the same store does', () => {
  let client: MongoClient;
  let db: Db;
  let coll: Collection;

  beforeAll(async () => {
    client = await MongoClient.connect(process.env.MONGODB_URL!);
    db = client.db(`zgw_planner_${new ObjectId().toHexString()}`);
    coll = db.collection('docs');
    for (const ix of INDEXES) await coll.createIndex(ix.key, ix.options ?? {});
  });

  afterAll(async () => {
    await db?.dropDatabase().catch(() => undefined);
    await client?.close();
  });

  it(`finds and counts agree after interleaved writes (seed ${SEED})`, async () => {
    const r = rng(SEED);
    let id = 0;
    await coll
      .insertMany(
        Array.from({ length: 400 }, () => document(r, id++)),
        { ordered: false },
      )
      .catch(() => undefined);
    const differences: string[] = [];
    let compared = 0;
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 25; i++) {
        const filter = query(r);
        const s = sort(r);
        const skip = r.chance(0.3) ? r.int(20) : 0;
        const limit = r.chance(0.6) ? 1 + r.int(30) : 0;
        let planned: Document[], scanned: Document[];
        try {
          [planned, scanned] = await both(coll, filter, s, skip, limit);
        } catch (e) {
          // a query the store refuses (e.g. a sort on parallel arrays) is refused both ways
          await expect(both(coll, filter, s, skip, limit)).rejects.toBeDefined();
          continue;
        }
        compared++;
        if (JSON.stringify(planned) !== JSON.stringify(scanned)) {
          differences.push(
            `find ${JSON.stringify(filter)} sort ${JSON.stringify(s)} skip ${skip} limit ${limit}: ${show(planned)} != ${show(scanned)}`,
          );
        }
        if (i % 5 === 0) {
          const [n, m] = [await coll.countDocuments(filter), await coll.countDocuments(filter, { hint: { $natural: 1 } })];
          if (n !== m) differences.push(`count ${JSON.stringify(filter)}: ${n} != ${m}`);
          // the groups of index fields (read from index keys when an index serves the match) against the documents'
          const by = r.pick(GROUPINGS);
          // refused only where the store refuses the same sort on a scan too (parallel arrays), as for finds above
          const grouped = await groups(coll, filter, s, by).catch(async () => {
            await expect(coll.find(filter as Filter<Document>, { hint: { $natural: 1 }, sort: s as Sort }).toArray()).rejects.toBeDefined();
            return undefined;
          });
          if (grouped !== undefined) {
            const expected = groupsOf(await coll.find(filter as Filter<Document>, { hint: { $natural: 1 } }).toArray(), by);
            if (grouped !== expected) differences.push(`group ${JSON.stringify(by)} of ${JSON.stringify(filter)}: ${grouped} != ${expected}`);
          }
        }
      }
      for (let w = 0; w < 10; w++) await write(r, coll, () => id++);
    }
    expect({ seed: SEED, compared, differences: differences.slice(0, 5) }).toEqual({ seed: SEED, compared, differences: [] });
    expect(compared).toBeGreaterThan(500);
    // and most of those were indeed served from an index
    const stats = await db.command({ zgwQueryStats: 1 });
    expect(stats.database.indexed).toBeGreaterThan(compared / 2);
  }, 300_000);

  it('serves the shapes the platform sends from an index and stops at the limit', async () => {
    const zaken = db.collection('zaken');
    await zaken.createIndex({ _created: 1, _id: 1 });
    // as Zaken declares them (components/zaken/index.ts), and one that serves the range but not the order
    await zaken.createIndex({ zaaktype: 1, _created: 1, _id: 1, _vertrouwelijkheid: 1 });
    await zaken.createIndex({ _created: 1, _id: 1, startdatum: 1 });
    await zaken.createIndex({ zaaktype: 1, startdatum: 1, _created: 1, _id: 1 });
    await zaken.createIndex({ _bsn: 1, _created: 1, _id: 1 }, { sparse: true });
    await zaken.createIndex({ _tombstone: 1 }, { sparse: true });
    const types = ['https://zgw/zt/1', 'https://zgw/zt/2', 'https://zgw/zt/3'];
    await zaken.insertMany(
      Array.from({ length: 3000 }, (_, i) => ({
        _id: `z${String(i).padStart(5, '0')}`,
        _created: new Date(Date.UTC(2025, 0, 1, 0, 0, i)),
        zaaktype: types[i % 3],
        startdatum: `2025-0${1 + (i % 9)}-01`,
        _vertrouwelijkheid: i % 8,
        ...(i % 10 === 0 ? { _bsn: `bsn-${i % 70}` } : {}),
        ...(i % 500 === 7 ? { _tombstone: true } : {}),
      })) as never[],
    );
    const live = { _tombstone: { $exists: false } };
    const shapes: [Document, Document][] = [
      [{ ...live }, { _created: 1, _id: 1 }],
      [
        { zaaktype: { $in: [types[0], types[2]] }, ...live },
        { _created: 1, _id: 1 },
      ],
      [
        { zaaktype: types[1], startdatum: { $gte: '2025-03-01', $lte: '2025-06-01' }, ...live },
        { _created: 1, _id: 1 },
      ],
      [
        { _bsn: 'bsn-10', ...live },
        { _created: 1, _id: 1 },
      ],
      [
        {
          $and: [
            { zaaktype: types[0], ...live },
            {
              $or: [
                { _created: { $gt: new Date(Date.UTC(2025, 0, 1, 0, 10)) } },
                { _created: new Date(Date.UTC(2025, 0, 1, 0, 10)), _id: { $gt: 'z00600' } },
              ],
            },
          ],
        },
        { _created: 1, _id: 1 },
      ],
      [{ ...live }, { _created: -1, _id: -1 }],
      // an autorisatie per zaaktype, each up to a vertrouwelijkheid: the branches merged in list order
      [
        {
          $or: [
            { zaaktype: types[0], _vertrouwelijkheid: { $lte: 3 } },
            { zaaktype: types[1], _vertrouwelijkheid: { $lte: 5 } },
          ],
          ...live,
        },
        { _created: 1, _id: 1 },
      ],
    ];
    for (const [filter, s] of shapes) {
      await db.command({ zgwQueryStats: 1, reset: true });
      const [planned, scanned] = await both(zaken, filter, s, 0, 100);
      expect(show(planned)).toEqual(show(scanned));
      const stats = await db.command({ zgwQueryStats: 1 });
      expect(stats.database.indexed).toBe(1); // the planned one; the hinted one scanned
      expect(stats.database.scanned).toBe(1);
      // read about a page of index keys, not the collection (3,000 documents)
      expect(stats.database.keysExamined).toBeLessThan(1100);
    }
    // a count is read from the index too: only the conditions its bounds do not enforce are checked per entry
    for (const filter of [
      { zaaktype: types[1], ...live },
      { zaaktype: types[1], startdatum: { $gte: '2025-03-01', $lte: '2025-06-01' }, ...live },
      { _bsn: { $in: ['bsn-10', 'bsn-20'] }, ...live },
    ]) {
      await db.command({ zgwQueryStats: 1, reset: true });
      const counted = await zaken.countDocuments(filter);
      expect((await db.command({ zgwQueryStats: 1 })).database).toMatchObject({ indexed: 1, scanned: 0 });
      expect(counted).toBeGreaterThan(0);
      expect(counted).toBe(await zaken.countDocuments(filter, { hint: { $natural: 1 } }));
    }
  });
});
