import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NOTIFICATION_ID_HEADER } from '@zgw/shared';

export interface Received {
  id: string;
  auth: string | undefined;
  body: Record<string, unknown>;
}

/** How a receiver answers a delivery: a status, after a delay, or not until released. */
export type Behaviour = { status: number; delayMs?: number } | 'hold' | 'close';

/**
 * A notification receiver for tests: records every request as it arrives (the notification id header, the Authorization
 * header, the body) and answers as told. `hold` keeps requests open until `release()`; `close` drops the connection.
 */
export class Receiver {
  readonly received: Received[] = [];
  behaviour: Behaviour = { status: 204 };
  private held: (() => void)[] = [];
  private waiters: (() => void)[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/callback'): Promise<Receiver> {
    let self!: Receiver;
    const server = createServer((req, res) => void self.handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    self = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    return self;
  }

  /** Ids received, in order (repeats included). */
  ids(): string[] {
    return this.received.filter((r) => r.body.kanaal !== 'test').map((r) => r.id);
  }

  /** Requests held open right now. */
  get holding(): number {
    return this.held.length;
  }

  /** Resolves once `n` requests are held open. */
  async untilHolding(n: number, timeoutMs = 20_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (this.held.length < n) {
      if (Date.now() > until) throw new Error(`receiver holds ${this.held.length} requests, expected ${n}`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 100);
      });
    }
  }

  /** Answers the held requests (with 204) and stops holding. */
  release(behaviour: Behaviour = { status: 204 }): void {
    this.behaviour = behaviour;
    for (const answer of this.held.splice(0)) answer();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      body = {};
    }
    const entry = { id: String(req.headers[NOTIFICATION_ID_HEADER.toLowerCase()] ?? ''), auth: req.headers.authorization, body };
    this.received.push(entry);
    const b = this.behaviour;
    if (b === 'close') {
      req.socket.destroy();
      return;
    }
    if (b === 'hold') {
      await new Promise<void>((r) => {
        this.held.push(r);
        for (const w of this.waiters.splice(0)) w();
      });
      res.writeHead(204).end();
      return;
    }
    if (b.delayMs) await new Promise((r) => setTimeout(r, b.delayMs));
    res.writeHead(b.status).end();
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** A clock the test moves. */
/** The receivers a test file starts, closed together at its end. */
export class Receivers {
  private readonly started: Receiver[] = [];

  async start(): Promise<Receiver> {
    const r = await Receiver.start();
    this.started.push(r);
    return r;
  }

  async closeAll(): Promise<void> {
    for (const r of this.started) await r.close();
  }
}

/** How many times each id occurs. */
export const countIds = (ids: string[]): Map<string, number> => ids.reduce((m, id) => m.set(id, (m.get(id) ?? 0) + 1), new Map<string, number>());

export class ManualClock {
  constructor(public t = Date.parse('2026-01-05T09:00:00Z')) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
