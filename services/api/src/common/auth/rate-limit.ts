/** A limit of `limit` requests per `windowMs`, from RATE_LIMIT (`<requests>/<window>`, the window in s, m or h). */
export interface RateRule {
  limit: number;
  windowMs: number;
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;
const FORMAT = /^(\d+)\/(\d+)([smh])$/;

/** RATE_LIMIT parsed (`40/1s`, `600/1m`); undefined when it is empty (off). */
export function parseRateLimit(spec: string): RateRule | undefined {
  if (!spec) return undefined;
  const m = FORMAT.exec(spec);
  if (!m || Number(m[1]) < 1 || Number(m[2]) < 1) throw new Error(`RATE_LIMIT "${spec}": use <requests>/<window>, e.g. 40/1s or 600/1m`);
  return { limit: Number(m[1]), windowMs: Number(m[2]) * UNIT_MS[m[3] as keyof typeof UNIT_MS] };
}

/** One request's place under the limit: what the RateLimit headers say, and whether it may go on. */
export interface RateState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends (and the count starts again). */
  resetSeconds: number;
}

/** Where an applicatie's own limit is kept (`_id` the applicatie's uuid), set on its admin screen. */
export const RATE_LIMITS_COLLECTION = 'rate_limits';
export interface RateLimitOverride {
  _id: string;
  rule: string;
  updatedAt: Date;
  updatedBy: string;
}

/** How often the windows of clients that stopped calling are forgotten. */
const SWEEP_MS = 60_000;

/**
 * Rate limits per client (keyed by the authenticator with its tenant: an identity provider's client serving several
 * organisations has a window in each), in fixed windows counted in this instance's memory: RATE_LIMIT, or the client's
 * applicatie's own limit. Several instances each take their share (the limit divided by RATE_LIMIT_INSTANCES, at
 * least 1): behind a load balancer that spreads a client's requests, the platform as a whole holds the limit without
 * a shared counter on every request.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; end: number; count: number }>();
  /** Requests refused since the start (the metric). */
  refused = 0;
  private lastSweep = 0;

  constructor(
    private readonly defaultRule: RateRule | undefined,
    private readonly instances: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Counts a request of `clientId` in its window under `override` or RATE_LIMIT; refused (allowed false) once the
   * window's share is used. Undefined when neither limits it.
   */
  take(clientId: string, override?: RateRule): RateState | undefined {
    const rule = override ?? this.defaultRule;
    if (!rule) return undefined;
    const share = Math.max(1, Math.floor(rule.limit / this.instances));
    const now = this.now();
    const start = now - (now % rule.windowMs);
    this.sweep(now);
    let w = this.windows.get(clientId);
    if (!w || w.start !== start || w.end !== start + rule.windowMs) this.windows.set(clientId, (w = { start, end: start + rule.windowMs, count: 0 }));
    const allowed = w.count < share;
    if (allowed) w.count++;
    else this.refused++;
    return { allowed, limit: share, remaining: share - w.count, resetSeconds: Math.max(1, Math.ceil((w.end - now) / 1000)) };
  }

  /** Forgets the windows that ended (at most once a minute), so clients that stopped calling take no memory. */
  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_MS) return;
    this.lastSweep = now;
    for (const [id, w] of this.windows) if (w.end <= now) this.windows.delete(id);
  }
}

/** The RateLimit headers of a request (and Retry-After when it was refused). */
export function rateHeaders(s: RateState): Record<string, string> {
  return {
    'ratelimit-limit': String(s.limit),
    'ratelimit-remaining': String(s.remaining),
    'ratelimit-reset': String(s.resetSeconds),
    ...(s.allowed ? {} : { 'retry-after': String(s.resetSeconds) }),
  };
}
