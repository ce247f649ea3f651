/**
 * Makes room in a map kept in insertion order (oldest first) that may hold `max` entries: when it is full, its oldest
 * eighth goes, in one pass. Deleting only its first entry each time would cost far more than it seems: a map's
 * iteration walks past every entry deleted since the map was last rehashed, so finding the first again after each
 * delete took about 24 µs at 50,000 entries (against 0.3 µs an insert this way).
 */
export function makeRoom<K, V>(map: Map<K, V>, max: number): void {
  if (map.size < max) return;
  let drop = Math.max(1, Math.ceil(max / 8));
  for (const key of map.keys()) {
    map.delete(key);
    if (--drop === 0) break;
  }
}
