import { makeRoom } from '../src/bounded';

test('a bounded map keeps at most its bound, its newest entries, dropping the oldest first', () => {
  const map = new Map<number, number>();
  const max = 64;
  for (let n = 0; n < 10_000; n++) {
    makeRoom(map, max);
    map.set(n, n);
    expect(map.size).toBeLessThanOrEqual(max);
  }
  const keys = [...map.keys()];
  // the newest entry and the last few before it are kept, in the order they came
  expect(keys.slice(-8)).toEqual([9992, 9993, 9994, 9995, 9996, 9997, 9998, 9999]);
  expect(keys).toEqual([...keys].sort((a, b) => a - b));
  // room is made an eighth at a time: never fewer than seven eighths of the bound are kept
  expect(map.size).toBeGreaterThanOrEqual((max * 7) / 8);
  // a map not yet full loses nothing
  const small = new Map([[1, 1]]);
  makeRoom(small, 2);
  expect([...small.keys()]).toEqual([1]);
});
