import type { Db } from 'mongodb';
import { AUDIT_READS_COLLECTION } from '../src/audit';
import { ensureAuditIndexes, READ_EXPIRY_FIELD } from '../src/audit-indexes';

// The read trail's expiry index is made, kept or replaced by what listIndexes says is there: a collection not made
// yet has none (code 26, NamespaceNotFound), and any other failure to read them is raised, never taken for "none".

function fakeDb(listed: () => Promise<unknown[]>) {
  const calls: string[] = [];
  const coll = {
    createIndex: async (key: unknown, options?: { name?: string; expireAfterSeconds?: number }) => {
      calls.push(`create ${JSON.stringify(key)}${options?.expireAfterSeconds ? ` ttl ${options.expireAfterSeconds}` : ''}`);
      return options?.name ?? 'i';
    },
    dropIndex: async (name: string) => void calls.push(`drop ${name}`),
    listIndexes: () => ({ toArray: listed }),
  };
  return { db: { collection: () => coll } as unknown as Db, calls };
}

const ttl = (days: number) => `create ${JSON.stringify({ [READ_EXPIRY_FIELD]: 1 })} ttl ${days * 86_400}`;

test('a collection not made yet gets its expiry index', async () => {
  const { db, calls } = fakeDb(() => Promise.reject(Object.assign(new Error('ns not found'), { code: 26 })));
  await ensureAuditIndexes(db, AUDIT_READS_COLLECTION, 30);
  expect(calls).toContain(ttl(30));
});

test('a failure to list the indexes is raised, not taken for a collection without them', async () => {
  const { db, calls } = fakeDb(() => Promise.reject(Object.assign(new Error('not authorized on zgw'), { code: 13 })));
  await expect(ensureAuditIndexes(db, AUDIT_READS_COLLECTION, 30)).rejects.toThrow('not authorized');
  expect(calls).not.toContain(ttl(30));
});

test('the same period keeps the index; another replaces it', async () => {
  const same = fakeDb(async () => [{ name: 'leestermijn', expireAfterSeconds: 30 * 86_400 }]);
  await ensureAuditIndexes(same.db, AUDIT_READS_COLLECTION, 30);
  expect(same.calls.filter((c) => c.includes('ttl') || c.startsWith('drop'))).toEqual([]);
  const other = fakeDb(async () => [{ name: 'leestermijn', expireAfterSeconds: 30 * 86_400 }]);
  await ensureAuditIndexes(other.db, AUDIT_READS_COLLECTION, 7);
  expect(other.calls.filter((c) => c.includes('ttl') || c.startsWith('drop'))).toEqual(['drop leestermijn', ttl(7)]);
});
