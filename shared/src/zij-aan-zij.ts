/**
 * `fn` on every item, at most `limit` at a time: the next begins as soon as one ends (no wave waits for its slowest).
 * The answers in the items' order.
 */
export async function zijAanZij<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}
