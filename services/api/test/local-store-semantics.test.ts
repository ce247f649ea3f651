import {
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  MongoClient,
  ObjectId,
  Timestamp,
  type Collection,
  type Db,
  type Document,
  type Filter,
  type Sort,
} from 'mongodb';

// The local store answers as MongoDB does, by the rules of MongoDB's documentation ("Comparison/Sort Order", "Query
// an Array", "Query for Null or Missing Fields"): no real mongod can run here, so these tests carry the rules. Each
// query is asked twice, once as the planner answers it (from an index) and once as a scan (`hint: {$natural: 1}`).

let client: MongoClient;
let db: Db;

beforeAll(async () => {
  client = await MongoClient.connect(process.env.MONGODB_URL!);
  db = client.db(`zgw_semantics_${new ObjectId().toHexString()}`);
});

afterAll(async () => {
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
});

async function collection(name: string, docs: Document[], indexes: Document[] = [{ v: 1 }]): Promise<Collection> {
  const coll = db.collection(name);
  for (const key of indexes) await coll.createIndex(key);
  await coll.insertMany(docs);
  return coll;
}

/** The _ids a query returns, asked through the planner and as a scan; both must be the same. */
async function ids(coll: Collection, filter: Document, sort?: Sort): Promise<unknown[]> {
  const run = async (hint?: Document) => {
    let c = coll.find(filter as Filter<Document>, hint ? { hint } : {});
    if (sort) c = c.sort(sort);
    return (await c.toArray()).map((d) => d._id);
  };
  const planned = await run();
  expect(planned).toEqual(await run({ $natural: 1 }));
  return planned;
}

describe('local store: MongoDB comparison and sort order', () => {
  it('orders values of different types: MinKey, null and missing, numbers, strings, objects, arrays, binData, ObjectId, booleans, dates, timestamps, regex, MaxKey', async () => {
    const coll = await collection('types', [
      { _id: 'maxkey', v: new MaxKey() },
      { _id: 'regex', v: /abc/ },
      { _id: 'timestamp', v: new Timestamp({ t: 1, i: 1 }) },
      { _id: 'date', v: new Date(0) },
      { _id: 'boolean', v: false },
      { _id: 'objectid', v: new ObjectId('000000000000000000000000') },
      { _id: 'object', v: { a: 1 } },
      { _id: 'string', v: '' },
      { _id: 'number', v: 1 },
      { _id: 'null', v: null },
      { _id: 'missing' },
      { _id: 'minkey', v: new MinKey() },
    ]);
    expect(await ids(coll, {}, { v: 1, _id: 1 })).toEqual([
      'minkey',
      'missing',
      'null',
      'number',
      'string',
      'object',
      'objectid',
      'boolean',
      'date',
      'timestamp',
      'regex',
      'maxkey',
    ]);
    expect(await ids(coll, {}, { v: -1, _id: 1 })).toEqual([
      'maxkey',
      'regex',
      'timestamp',
      'date',
      'boolean',
      'objectid',
      'object',
      'string',
      'number',
      'missing',
      'null',
      'minkey',
    ]);
  });

  it('compares numbers of every type by value, exactly (a long beyond 2^53 against a double)', async () => {
    const coll = await collection('numbers', [
      { _id: 'int 2', v: new Int32(2) },
      { _id: 'double 1.5', v: new Double(1.5) },
      { _id: 'long 1', v: Long.fromNumber(1) },
      { _id: 'decimal 1.25', v: Decimal128.fromString('1.25') },
      { _id: 'double -0.5', v: new Double(-0.5) },
      { _id: 'long 2^53+1', v: Long.fromString('9007199254740993') },
      { _id: 'double 2^53', v: new Double(9007199254740992) },
    ]);
    expect(await ids(coll, {}, { v: 1 })).toEqual(['double -0.5', 'long 1', 'decimal 1.25', 'double 1.5', 'int 2', 'double 2^53', 'long 2^53+1']);
    expect(await ids(coll, { v: { $gt: 9007199254740992 } })).toEqual(['long 2^53+1']);
    expect(await ids(coll, { v: { $gte: Long.fromNumber(1), $lt: new Double(1.5) } }, { v: 1 })).toEqual(['long 1', 'decimal 1.25']);
    // one value, whatever its type: 2 matches the int 2, and 1 the long 1
    expect(await ids(coll, { v: { $in: [new Double(2), new Int32(1)] } }, { _id: 1 })).toEqual(['int 2', 'long 1']);
  });

  it('compares strings by code point (UTF-8 byte order), not by UTF-16 unit', async () => {
    const coll = await collection('strings', [
      { _id: 'emoji', v: '\u{1F600}' },
      { _id: 'last bmp', v: '\uFFFF' },
      { _id: 'e acute', v: '\u00E9' },
      { _id: 'z', v: 'z' },
      { _id: 'Z', v: 'Z' },
    ]);
    expect(await ids(coll, {}, { v: 1 })).toEqual(['Z', 'z', 'e acute', 'last bmp', 'emoji']);
    expect(await ids(coll, { v: { $gt: '\uFFFF' } })).toEqual(['emoji']);
  });

  it('brackets types in range queries: a range on strings finds no date and no number', async () => {
    const coll = await collection('bracket', [
      { _id: 1, v: '2024-01-01' },
      { _id: 2, v: new Date('2024-06-01') },
      { _id: 3, v: 20240101 },
      { _id: 4, v: '2025-01-01' },
    ]);
    expect(await ids(coll, { v: { $gte: '2024' } }, { _id: 1 })).toEqual([1, 4]);
    expect(await ids(coll, { v: { $gte: new Date('2024-01-01') } }, { _id: 1 })).toEqual([2]);
    expect(await ids(coll, { v: { $gt: 0 } }, { _id: 1 })).toEqual([3]);
  });
});

describe('local store: null, missing and $exists', () => {
  let coll: Collection;
  beforeAll(async () => {
    coll = await collection('nulls', [{ _id: 1, v: null }, { _id: 2 }, { _id: 3, v: 0 }, { _id: 4, v: [null, 1] }, { _id: 5, v: [] }]);
  });

  it('{v: null} finds null, missing and an array holding null; $exists: false only missing', async () => {
    expect(await ids(coll, { v: null }, { _id: 1 })).toEqual([1, 2, 4]);
    expect(await ids(coll, { v: { $exists: false } }, { _id: 1 })).toEqual([2]);
    expect(await ids(coll, { v: { $exists: true } }, { _id: 1 })).toEqual([1, 3, 4, 5]);
    // $type looks into arrays too
    expect(await ids(coll, { v: { $type: 'null' } }, { _id: 1 })).toEqual([1, 4]);
  });

  it('$in with null finds null and missing too; $ne: null finds neither', async () => {
    expect(await ids(coll, { v: { $in: [null, 0] } }, { _id: 1 })).toEqual([1, 2, 3, 4]);
    expect(await ids(coll, { v: { $ne: null } }, { _id: 1 })).toEqual([3, 5]);
  });

  it('sorts null and missing as equal (in the order of the collection), an empty array before them', async () => {
    expect(await ids(coll, {}, { v: 1 })).toEqual([5, 1, 2, 4, 3]);
  });
});

describe('local store: arrays in filters and sorts', () => {
  let coll: Collection;
  beforeAll(async () => {
    coll = await collection('arrays', [
      { _id: 'a', v: [1, 20] },
      { _id: 'b', v: [7] },
      { _id: 'c', v: 5 },
      { _id: 'd', v: [3, [8]] },
      { _id: 'e', v: ['x', 2] },
    ]);
  });

  it('an element matches: equality, $in and a range each condition of which some element meets', async () => {
    expect(await ids(coll, { v: 20 }, { _id: 1 })).toEqual(['a']);
    expect(await ids(coll, { v: { $in: [7, 2] } }, { _id: 1 })).toEqual(['b', 'e']);
    // 1 < 10 and 20 > 5: two elements meet the two conditions
    expect(await ids(coll, { v: { $gt: 5, $lt: 10 } }, { _id: 1 })).toEqual(['a', 'b']);
    expect(await ids(coll, { v: { $elemMatch: { $gt: 5, $lt: 10 } } }, { _id: 1 })).toEqual(['b']);
  });

  it('an array value matches the whole array or an element that is that array', async () => {
    expect(await ids(coll, { v: [1, 20] })).toEqual(['a']);
    expect(await ids(coll, { v: [8] })).toEqual(['d']);
  });

  it('sorts an array by its smallest element ascending and by its largest descending', async () => {
    expect(await ids(coll, {}, { v: 1, _id: 1 })).toEqual(['a', 'e', 'd', 'c', 'b']);
    // [8] is the largest element of d (an array sorts after numbers and strings), 'x' of e
    expect(await ids(coll, {}, { v: -1, _id: 1 })).toEqual(['d', 'e', 'a', 'b', 'c']);
  });
});

describe('local store: upserts and the _id', () => {
  it('an upsert takes its _id from an equality or a one-value $in, and gets an ObjectId from several $in values', async () => {
    const coll = await collection('upserts', [{ _id: 'x', v: 1 }]);
    await coll.updateOne({ _id: { $in: ['p', 'q'] } } as unknown as Filter<Document>, { $set: { v: 2 } }, { upsert: true });
    await coll.findOneAndUpdate({ _id: { $in: [null, 'r'] } } as unknown as Filter<Document>, { $set: { v: 3 } }, { upsert: true });
    await coll.updateOne({ _id: { $in: ['s'] } } as unknown as Filter<Document>, { $set: { v: 4 } }, { upsert: true });
    const byV = new Map((await coll.find().toArray()).map((d) => [d.v, d._id]));
    expect(byV.get(2)).toBeInstanceOf(ObjectId);
    expect(byV.get(3)).toBeInstanceOf(ObjectId);
    expect(byV.get(4)).toBe('s');
  });

  it('the one document whose _id is null can be updated, and a second one is refused', async () => {
    const coll = await collection('null-id', [{ _id: 1, v: 1 }], [{ v: 1 }]);
    // unless told otherwise, the driver gives an inserted null _id an ObjectId of its own
    await coll.insertOne({ _id: null, v: 2 } as Document, { forceServerObjectId: true });
    await coll.updateMany({ v: 2 }, { $set: { v: 3 }, $unset: { w: '' } });
    expect(await ids(coll, { v: 3 })).toEqual([null]);
    await expect(coll.insertOne({ _id: null, v: 4 } as Document, { forceServerObjectId: true })).rejects.toThrow(/E11000/);
  });
});
