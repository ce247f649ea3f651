import { ZgwError } from '../../common/http/errors';

/**
 * `zaakgeometrie.within` for stores without `$geoWithin` (the local stand-in): whether every position of a geometry
 * lies inside an area (Polygon or MultiPolygon, ray casting on the plane; holes respected), or equals a Point.
 * Real MongoDB answers the same question with its 2dsphere index; this is only the fallback.
 */
type Position = number[];
type Geo = { type?: string; coordinates?: unknown; geometries?: Geo[] };

function positions(g: Geo): Position[] {
  if (g.type === 'GeometryCollection') return (g.geometries ?? []).flatMap(positions);
  const out: Position[] = [];
  const walk = (c: unknown) => {
    if (Array.isArray(c) && typeof c[0] === 'number') out.push(c as Position);
    else if (Array.isArray(c)) c.forEach(walk);
  };
  walk(g.coordinates);
  return out;
}

function inRing(p: Position, ring: Position[]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i] as [number, number];
    const [xj, yj] = ring[j] as [number, number];
    if (yi > p[1]! !== yj > p[1]! && p[0]! < ((xj - xi) * (p[1]! - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function inPolygon(p: Position, rings: Position[][]): boolean {
  return rings.length > 0 && inRing(p, rings[0]!) && !rings.slice(1).some((hole) => inRing(p, hole));
}

export function within(geometry: unknown, area: unknown): boolean {
  if (!geometry || !area) return false;
  const pts = positions(geometry as Geo);
  const a = area as Geo;
  if (!pts.length) return false;
  if (a.type === 'Polygon') return pts.every((p) => inPolygon(p, a.coordinates as Position[][]));
  if (a.type === 'MultiPolygon') return pts.every((p) => (a.coordinates as Position[][][]).some((poly) => inPolygon(p, poly)));
  if (a.type === 'Point') return pts.every((p) => p[0] === (a.coordinates as Position)[0] && p[1] === (a.coordinates as Position)[1]);
  return false;
}

/** MongoDB's codes for a geometry it cannot index (on a write) or an area it cannot use (BadValue on a query). */
const CANNOT_INDEX = 16755;
const BAD_VALUE = 2;

/**
 * A geometry that passes the GeoJSON schema and that MongoDB still refuses (a self-intersecting ring, a polygon
 * spanning a hemisphere) is the client's mistake: a 400 on `field`. MongoDB's own message stays out of the answer.
 */
export function refusedGeometry(err: unknown, field: string): ZgwError | undefined {
  const e = err as { name?: string; code?: unknown; message?: string } | undefined;
  if (e?.name !== 'MongoServerError') return undefined;
  const geo = e.code === CANNOT_INDEX || (e.code === BAD_VALUE && /geo|loop|edge|polygon|longitude|latitude|coordinates/i.test(String(e.message)));
  return geo ? ZgwError.field(field, 'invalid', 'De geometrie is ongeldig (bijvoorbeeld een ring die zichzelf snijdt).') : undefined;
}
