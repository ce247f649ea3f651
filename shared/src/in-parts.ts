/**
 * Items in parts of at most `max` bytes each (by `bytes`), in their order. An item over the limit goes alone (whoever
 * receives it decides).
 */
export function inParts<T>(items: readonly T[], bytes: (item: T) => number, max: number): T[][] {
  const parts: T[][] = [];
  let part: T[] = [];
  let size = 0;
  for (const item of items) {
    const n = bytes(item);
    if (part.length && size + n > max) {
      parts.push(part);
      part = [];
      size = 0;
    }
    part.push(item);
    size += n;
  }
  if (part.length) parts.push(part);
  return parts;
}
