import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MongoClient } from 'mongodb';
import { commandShapes, conditionKind, logQueryShapes } from '../src/query-shapes';

/** What the query log records of the driver's commands: keys and operator kinds, never a value. */
describe('commandShapes', () => {
  it('keeps keys and operator kinds of a find, never a value', () => {
    const command = {
      find: 'rollen',
      filter: {
        'betrokkeneIdentificatie.inpBsn': '111222333',
        secret: { $eq: 's3cret-value' },
        zaak: { $in: ['https://x/zaken/1', null] },
        datum: { $gte: '2024-01-01', $lt: '2025-01-01' },
        begin: { $not: { $gt: '2024-06-01' } },
        naam: /^Jans/,
        omschrijving: { $regex: 'jans', $options: 'i' },
        _tombstone: { $exists: false },
        leeg: null,
        $or: [{ a: 1 }, { a: 2 }, { b: { $ne: 3 } }],
      },
      sort: new Map([
        ['_created', 1],
        ['_id', -1],
      ]),
      skip: 200,
      limit: 100,
    };
    const [shape] = commandShapes(command);
    expect(shape).toEqual({
      coll: 'rollen',
      op: 'find',
      filter: {
        'betrokkeneIdentificatie.inpBsn': 'eq',
        secret: 'eq',
        zaak: 'in-null',
        datum: 'range',
        begin: 'not-range',
        naam: 'prefix',
        omschrijving: 'regex',
        _tombstone: 'absent',
        leeg: 'null',
        $or: [{ a: 'eq' }, { b: 'ne' }],
      },
      sort: [
        ['_created', 1],
        ['_id', -1],
      ],
      skip: 200,
      limit: true,
    });
    expect(JSON.stringify(shape)).not.toMatch(/111222333|s3cret|https|2024|Jans|jans/);
  });

  it('reads countDocuments (an aggregate of $match and $group) and other pipelines', () => {
    const count = { aggregate: 'zaken', pipeline: [{ $match: { zaaktype: 'u' } }, { $skip: 5 }, { $group: { _id: 1, n: { $sum: 1 } } }], cursor: {} };
    expect(commandShapes(count)).toEqual([
      { coll: 'zaken', op: 'aggregate', filter: { zaaktype: 'eq' }, stages: ['$match', '$skip', '$group'], skip: 5 },
    ]);
    const sorted = { aggregate: 'zaken', pipeline: [{ $match: { a: 1 } }, { $sort: { b: -1 } }, { $limit: 3 }, { $project: { b: 1 } }] };
    expect(commandShapes(sorted)[0]).toMatchObject({ filter: { a: 'eq' }, sort: [['b', -1]], limit: true });
    expect(commandShapes({ aggregate: 'zaken', pipeline: [{ $group: { _id: '$a' } }] })[0]).toMatchObject({ filter: {}, stages: ['$group'] });
  });

  it('reads the filters of update, delete, findAndModify and count, one shape per statement', () => {
    const update = {
      update: 'c',
      updates: [
        { q: { _id: 'x' }, u: { $set: { secret: 'v' } }, upsert: true },
        { q: { z: 'y' }, u: {}, multi: true },
      ],
    };
    expect(commandShapes(update)).toEqual([
      { coll: 'c', op: 'update', filter: { _id: 'eq' }, upsert: true },
      { coll: 'c', op: 'update', filter: { z: 'eq' }, multi: true },
    ]);
    expect(commandShapes({ delete: 'c', deletes: [{ q: { a: 1 }, limit: 0 }] })).toEqual([
      { coll: 'c', op: 'delete', filter: { a: 'eq' }, multi: true },
    ]);
    expect(commandShapes({ findAndModify: 'c', query: { a: 1 }, sort: { b: 1 }, update: {} })).toEqual([
      { coll: 'c', op: 'findAndModify', filter: { a: 'eq' }, sort: [['b', 1]] },
    ]);
    expect(commandShapes({ count: 'c' })).toEqual([{ coll: 'c', op: 'count', filter: {}, stages: ['metadata'] }]);
    expect(commandShapes({ count: 'c', query: { a: 1 } })).toEqual([{ coll: 'c', op: 'count', filter: { a: 'eq' } }]);
  });

  it('reads index declarations and ignores other commands', () => {
    const create = {
      createIndexes: 'c',
      indexes: [
        {
          name: 'a_1_b_-1',
          key: new Map([
            ['a', 1],
            ['b', -1],
          ]),
          unique: true,
          sparse: true,
        },
        { key: { p: 1 }, partialFilterExpression: { p: { $exists: true } } },
      ],
    };
    expect(commandShapes(create)).toEqual([
      {
        coll: 'c',
        op: 'createIndexes',
        key: [
          ['a', 1],
          ['b', -1],
        ],
        unique: true,
        sparse: true,
      },
      { coll: 'c', op: 'createIndexes', key: [['p', 1]], partial: true, partialFilter: { p: 'exists' } },
    ]);
    expect(commandShapes({ insert: 'c', documents: [{ a: 1 }] })).toEqual([]);
    expect(commandShapes({ getMore: 1, collection: 'c' })).toEqual([]);
  });

  it('names an embedded document, a Date or an array as equality', () => {
    expect(conditionKind({ a: 1 })).toBe('eq');
    expect(conditionKind(new Date())).toBe('eq');
    expect(conditionKind(['x'])).toBe('eq');
    expect(conditionKind({ $all: ['x'] })).toBe('all');
    expect(conditionKind({ $gt: 1, $ne: 5 })).toBe('ne+range');
  });
});

describe('logQueryShapes', () => {
  it('appends each distinct shape once per process, with the code that sent it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zgw-query-log-'));
    try {
      const client = new EventEmitter();
      logQueryShapes(client as unknown as MongoClient, dir);
      const send = () => client.emit('commandStarted', { command: { find: 'c', filter: { a: 'value' } } });
      for (let i = 0; i < 3; i++) send();
      client.emit('commandStarted', { command: { ping: 1 } });
      const files = readdirSync(dir);
      expect(files).toEqual([`queries-${process.pid}.jsonl`]);
      const lines = readFileSync(join(dir, files[0]!), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ coll: 'c', op: 'find', filter: { a: 'eq' }, origin: 'test' });
      expect(lines[0].sites[0]).toMatch(/^shared\/test\/query-shapes\.test\.ts:\d+/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
