import { randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from '@zgw/shared';

/**
 * A local append-only spool of JSON lines, one directory per process instance under a shared root:
 *
 *   <root>/<host>-<pid>-<random>/owner.json           who writes here (its mtime is the heartbeat)
 *                               /000000000001.jsonl   segments, appended with a synchronous write per line
 *                               /offset.json          how far the publisher has sent: {segment, position}
 *                               /adopted/<name>/...   spools of dead instances this one took over
 *
 * Each line is on disk (in the OS) before `append` returns, so it survives a kill of the process. The publisher
 * (SpoolPublisher) sends complete lines, then advances the offset (written to a temporary file and renamed) and
 * removes segments it has sent entirely. Instances never write into each other's directories; a directory whose
 * owner is gone (its process no longer runs, or its heartbeat stopped) is taken over whole by a single rename, so two
 * instances never both send it.
 */
export interface SpoolOptions {
  /** A segment is closed and a new one started past this size (bytes). */
  segmentBytes?: number;
  /** A directory of another host, or of a process whose id was reused, counts as abandoned after this long without a heartbeat. */
  staleMs?: number;
}

interface Owner {
  host: string;
  pid: number;
  started: string;
}

export interface Offset {
  segment: number;
  position: number;
}

const SEGMENT = /^(\d{12})\.jsonl$/;
const OWNER = 'owner.json';
const OFFSET = 'offset.json';
export const ADOPTED = 'adopted';

const segmentName = (n: number) => `${String(n).padStart(12, '0')}.jsonl`;
const hostLabel = () => hostname().replace(/[^A-Za-z0-9._-]/g, '_') || 'host';

/** The largest buffer a spool keeps for encoding its lines (a larger line gets one of its own). */
const MAX_SCRATCH = 1024 * 1024;

/** Spool directories open in this process: their pid is ours, so only this set tells them from a dead process's. */
const OPEN = new Set<string>();

export class Spool {
  readonly root: string;
  private dirPath?: string;
  private fd?: number;
  private segment = 0;
  private size = 0;
  private readonly segmentBytes: number;
  private scratch = Buffer.allocUnsafe(0);
  readonly staleMs: number;

  constructor(root: string, opts: SpoolOptions = {}) {
    this.root = resolve(root);
    this.segmentBytes = opts.segmentBytes ?? 4 * 1024 * 1024;
    this.staleMs = opts.staleMs ?? 120_000;
  }

  /** This instance's directory (after open). */
  get dir(): string {
    if (!this.dirPath) throw new Error('spool not open');
    return this.dirPath;
  }

  get isOpen(): boolean {
    return this.fd !== undefined;
  }

  /** The segment being appended to (the publisher leaves it in place). */
  get currentSegment(): number {
    return this.segment;
  }

  /** Creates this instance's directory (complete before it appears under its name) and its first segment. */
  open(): void {
    if (this.fd !== undefined) return;
    mkdirSync(this.root, { recursive: true });
    const name = `${hostLabel()}-${process.pid}-${randomBytes(4).toString('hex')}`;
    const tmp = join(this.root, `.${name}`);
    mkdirSync(tmp);
    const owner: Owner = { host: hostLabel(), pid: process.pid, started: new Date().toISOString() };
    writeFileSync(join(tmp, OWNER), JSON.stringify(owner));
    const dir = join(this.root, name);
    OPEN.add(dir);
    renameSync(tmp, dir);
    this.dirPath = dir;
    this.segment = 0;
    this.openSegment(1);
  }

  /** Appends one line; it is in the file when this returns. */
  append(line: string): void {
    if (this.fd === undefined) this.open();
    // encoded into a buffer kept for it (a line is written in one go: no copy of the line with its newline, no new
    // buffer per line); one that outgrows it is encoded on its own
    const most = line.length * 3 + 1;
    if (most > this.scratch.length) this.scratch = Buffer.allocUnsafe(most <= MAX_SCRATCH ? most : Buffer.byteLength(line) + 1);
    const buf = this.scratch;
    const length = buf.write(line, 0) + 1;
    buf[length - 1] = 0x0a;
    let done = 0;
    while (done < length) done += writeSync(this.fd!, buf, done, length - done);
    this.size += length;
    if (buf.length > MAX_SCRATCH) this.scratch = Buffer.allocUnsafe(0);
    if (this.size >= this.segmentBytes) this.openSegment(this.segment + 1);
  }

  /**
   * Marks this instance alive. When its directory has gone (another instance judged it abandoned and took it over),
   * it starts a new one, so later lines are not written into a directory someone else sends and removes.
   */
  heartbeat(log?: Logger): void {
    if (!this.dirPath) return;
    try {
      const now = new Date();
      utimesSync(join(this.dirPath, OWNER), now, now);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      log?.warn({ dir: this.dirPath }, 'the audit spool directory was taken over by another instance; starting a new one');
      this.closeFd();
      OPEN.delete(this.dirPath);
      this.dirPath = undefined;
      this.open();
    }
  }

  /**
   * Moves every abandoned sibling directory into this one (`adopted/`), so this instance's publisher sends what it
   * holds. Returns the names taken over. A rename is atomic: of two instances trying, one gets it.
   */
  adoptAbandoned(): string[] {
    const adopted: string[] = [];
    const into = join(this.dir, ADOPTED);
    for (const name of readdirSync(this.root)) {
      const dir = join(this.root, name);
      if (dir === this.dirPath) continue;
      if (name.startsWith('.')) {
        // A directory an instance died while creating holds nothing to send.
        if (this.stale(dir)) rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (!this.abandoned(dir)) continue;
      try {
        mkdirSync(into, { recursive: true });
        renameSync(dir, join(into, name));
        adopted.push(name);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    return adopted;
  }

  /** Stops appending; the directory stays for the publisher (or, when left unsent, for the next instance). */
  close(): void {
    this.closeFd();
    if (this.dirPath) OPEN.delete(this.dirPath);
  }

  /** Removes this instance's directory (when everything in it has been sent). */
  remove(): void {
    if (!this.dirPath) return;
    this.close();
    rmSync(this.dirPath, { recursive: true, force: true });
    this.dirPath = undefined;
  }

  private closeFd(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private openSegment(n: number): void {
    this.closeFd();
    this.fd = openSync(join(this.dir, segmentName(n)), 'a');
    this.segment = n;
    this.size = 0;
  }

  private stale(dir: string, file?: string): boolean {
    try {
      return Date.now() - statSync(file ? join(dir, file) : dir).mtimeMs > this.staleMs;
    } catch {
      return false;
    }
  }

  /** Whether no running instance owns `dir`. */
  private abandoned(dir: string): boolean {
    let owner: Owner;
    try {
      owner = JSON.parse(readFileSync(join(dir, OWNER), 'utf8')) as Owner;
    } catch {
      return this.stale(dir);
    }
    if (owner.host === hostLabel()) {
      // Two running processes on one host never share a pid: ours means an earlier process (a restarted container
      // is pid 1 again) unless this process has it open.
      if (owner.pid === process.pid) return !OPEN.has(dir);
      if (!alive(owner.pid)) return true;
    }
    // Another host (a shared volume), or a running process that may have reused the pid: only the heartbeat tells.
    return this.stale(dir, OWNER);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One spooled line to send: its id (the entry's uuid, the event id) and the line itself. */
export interface SpooledMessage {
  id: string;
  value: Buffer;
}

const UUID_PREFIX = Buffer.from('{"uuid":"');

/** The uuid of a spooled entry: read from the line's start (entries are written uuid first), else parsed. */
function idOf(line: Buffer): string {
  if (line.length > UUID_PREFIX.length + 37 && line.subarray(0, UUID_PREFIX.length).equals(UUID_PREFIX) && line[UUID_PREFIX.length + 36] === 0x22) {
    return line.toString('latin1', UUID_PREFIX.length, UUID_PREFIX.length + 36);
  }
  const entry = JSON.parse(line.toString('utf8')) as { uuid?: unknown };
  return String(entry.uuid ?? '');
}

/** Reads how far a spool directory has been sent. */
export async function readOffset(dir: string, log?: Logger): Promise<Offset> {
  const text = await readFile(join(dir, OFFSET), 'utf8').catch(unlessMissing);
  // none yet: from the start
  if (text === undefined) return { segment: 0, position: 0 };
  try {
    const o = JSON.parse(text) as Offset;
    if (Number.isInteger(o.segment) && Number.isInteger(o.position)) return o;
  } catch {
    /* said below */
  }
  // (segments are removed once sent, so what is left is sent again from its start: the audit service stores each entry once)
  log?.warn({ dir, offset: text.slice(0, 100) }, 'audit spool offset unreadable: its segments are sent again from their start');
  return { segment: 0, position: 0 };
}

/** A file system call's answer, or undefined when the file is not there; any other failure is raised. */
function unlessMissing(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  throw err;
}

/** The names in a directory; none when it is not there (any other failure is raised). */
async function namesIn(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(unlessMissing)) ?? [];
}

async function writeOffset(dir: string, o: Offset): Promise<void> {
  const tmp = join(dir, `${OFFSET}.tmp`);
  await writeFile(tmp, JSON.stringify(o));
  await rename(tmp, join(dir, OFFSET));
}

async function segmentsOf(dir: string): Promise<number[]> {
  const names = await namesIn(dir);
  return names.flatMap((n) => (SEGMENT.test(n) ? [Number(SEGMENT.exec(n)![1])] : [])).sort((a, b) => a - b);
}

/** The bytes of the segments not sent yet, in `dir` and everything it adopted. */
export async function unsentBytes(dir: string): Promise<number> {
  const off = await readOffset(dir);
  let total = 0;
  for (const n of await segmentsOf(dir)) {
    if (n < off.segment) continue;
    const size = (await stat(join(dir, segmentName(n))).catch(unlessMissing))?.size ?? 0;
    total += Math.max(0, size - (n === off.segment ? off.position : 0));
  }
  for (const child of await namesIn(join(dir, ADOPTED))) total += await unsentBytes(join(dir, ADOPTED, child));
  return total;
}

const CHUNK = 256 * 1024;

/**
 * When the oldest entry not sent yet was written (its `aanmaakdatum`), in `dir` and everything it adopted; undefined
 * when everything is sent.
 */
export async function oldestUnsent(dir: string): Promise<Date | undefined> {
  const off = await readOffset(dir);
  let oldest: Date | undefined;
  for (const n of await segmentsOf(dir)) {
    if (n < off.segment) continue;
    const line = await firstLine(join(dir, segmentName(n)), n === off.segment ? off.position : 0);
    if (!line) continue;
    const at = new Date(String((JSON.parse(line) as { aanmaakdatum?: unknown }).aanmaakdatum));
    if (!Number.isNaN(at.getTime())) oldest = at;
    break;
  }
  for (const child of await namesIn(join(dir, ADOPTED))) {
    const at = await oldestUnsent(join(dir, ADOPTED, child));
    if (at && (!oldest || at < oldest)) oldest = at;
  }
  return oldest;
}

/** The complete line that starts at `position` of a file, if there is one (a line is at most one chunk here). */
async function firstLine(file: string, position: number): Promise<string | undefined> {
  const fh = await open(file, 'r').catch(unlessMissing);
  if (!fh) return undefined;
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const { bytesRead } = await fh.read(buf, 0, CHUNK, position);
    const end = buf.subarray(0, bytesRead).indexOf(10);
    return end > 0 ? buf.toString('utf8', 0, end) : undefined;
  } finally {
    await fh.close();
  }
}

/**
 * Sends the complete lines of one spool directory past its offset, oldest first, one batch per chunk read; the offset
 * advances after each batch is acknowledged. Segments before `live` (all of them when `live` is undefined: a dead
 * instance's) are removed once sent; a dead instance's last line cut short by its death is dropped.
 * Returns the number of lines sent and whether the directory is left without anything to send.
 */
export async function drainDir(
  dir: string,
  live: number | undefined,
  send: (batch: SpooledMessage[]) => Promise<void>,
  log: Logger,
): Promise<{ sent: number; empty: boolean }> {
  let off = await readOffset(dir, log);
  let sent = 0;
  for (const n of await segmentsOf(dir)) {
    const file = join(dir, segmentName(n));
    if (n < off.segment) {
      await rm(file, { force: true });
      continue;
    }
    let pos = n === off.segment ? off.position : 0;
    let tail = 0;
    const fh = await open(file, 'r');
    try {
      let size = CHUNK;
      for (;;) {
        const buf = Buffer.allocUnsafe(size);
        const { bytesRead } = await fh.read(buf, 0, size, pos);
        if (!bytesRead) break;
        const end = buf.subarray(0, bytesRead).lastIndexOf(10);
        if (end < 0) {
          if (bytesRead === size) {
            size *= 2; // one line longer than a chunk
            continue;
          }
          tail = bytesRead;
          break;
        }
        const batch: SpooledMessage[] = [];
        for (let at = 0; at < end;) {
          const nl = buf.indexOf(10, at);
          const line = buf.subarray(at, nl);
          at = nl + 1;
          if (!line.length) continue;
          try {
            batch.push({ id: idOf(line), value: line });
          } catch {
            log.warn({ dir, segment: n }, 'skipping an unreadable line in the audit spool');
          }
        }
        if (batch.length) await send(batch);
        sent += batch.length;
        pos += end + 1;
        off = { segment: n, position: pos };
        await writeOffset(dir, off);
        size = CHUNK;
      }
    } finally {
      await fh.close();
    }
    if (live !== undefined && n >= live) break;
    if (tail) log.warn({ dir, segment: n, bytes: tail }, "dropping the incomplete last line of a stopped instance's audit spool");
    off = { segment: n + 1, position: 0 };
    await writeOffset(dir, off);
    await rm(file, { force: true });
  }
  return { sent, empty: !(await segmentsOf(dir)).length };
}

/**
 * Sends what a Spool holds: its own lines shortly after they are written, and the spools it adopted from dead
 * instances. While sending fails (Kafka down) the lines wait on disk and the publisher retries with backoff;
 * delivery is at least once (a crash between a send and the offset write sends those lines again).
 */
export class SpoolPublisher {
  private timer?: NodeJS.Timeout;
  private maintenance?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  /** Past the last flush: a batch not sent by then stays in the spool (a send still under way may end). */
  private closed = false;
  private failures = 0;
  private readonly delayMs: number;
  private readonly retryMs: number;
  private readonly maintenanceMs: number;

  constructor(
    private readonly spool: Spool,
    private readonly sendTo: (batch: SpooledMessage[]) => Promise<void>,
    private readonly log: Logger,
    opts: { delayMs?: number; retryMs?: number; maintenanceMs?: number } = {},
  ) {
    this.delayMs = opts.delayMs ?? 250;
    this.retryMs = opts.retryMs ?? 2000;
    this.maintenanceMs = opts.maintenanceMs ?? 10_000;
  }

  get healthy(): boolean {
    return this.failures === 0;
  }

  /** Opens the spool, takes over what dead instances left and starts sending. */
  start(): void {
    this.spool.open();
    this.adopt();
    this.schedule(0);
    this.maintenance = setInterval(() => {
      try {
        this.spool.heartbeat(this.log);
        this.adopt();
      } catch (err) {
        this.log.error({ err }, 'audit spool maintenance failed');
      }
      this.kick();
    }, this.maintenanceMs);
    this.maintenance.unref();
  }

  /** A line was written: send it soon (lines written meanwhile go in the same batch). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else if (!this.timer && this.failures === 0) this.schedule(this.delayMs);
  }

  /** Sends everything the spool holds now (own lines and adopted spools); returns how many lines went out. */
  async drain(): Promise<number> {
    let sent = 0;
    const adopted = join(this.spool.dir, ADOPTED);
    for (const name of await namesIn(adopted)) sent += await this.drainAdopted(join(adopted, name));
    sent += (await drainDir(this.spool.dir, this.spool.currentSegment, this.send, this.log)).sent;
    return sent;
  }

  /**
   * Stops sending: the round under way and a last one send what they can within `flushMs`, no batch is sent after
   * that. Everything sent: the directory goes; otherwise it stays, and the next instance on this spool root sends it.
   */
  async stop(flushMs = 3000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.maintenance) clearInterval(this.maintenance);
    const deadline = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), flushMs).unref());
    const last = (async () => {
      await this.running;
      if (this.spool.isOpen && this.failures === 0 && flushMs > 0) await this.drain();
    })().then(
      () => 'done' as const,
      () => 'failed' as const,
    );
    const outcome = await Promise.race([last, deadline]);
    this.closed = true;
    if (!this.spool.isOpen) return;
    if (outcome === 'timeout') {
      this.log.info(
        { dir: this.spool.dir, flushMs },
        'stopped before the audit read trail was sent whole: the next instance on this spool root sends the rest',
      );
      this.spool.close();
      return;
    }
    const dir = this.spool.dir;
    if ((await unsentBytes(dir)) === 0) this.spool.remove();
    else this.spool.close();
  }

  private adopt(): void {
    const names = this.spool.adoptAbandoned();
    if (names.length) this.log.info({ spools: names }, 'sending the audit spool left by stopped instances');
  }

  /** Sends a batch, unless the publisher is past its last flush (then the batch stays in the spool). */
  private readonly send = async (batch: SpooledMessage[]): Promise<void> => {
    if (this.closed) throw new Error('the audit spool publisher has stopped');
    await this.sendTo(batch);
  };

  private async drainAdopted(dir: string): Promise<number> {
    let sent = 0;
    const nested = join(dir, ADOPTED);
    for (const name of await namesIn(nested)) sent += await this.drainAdopted(join(nested, name));
    const result = await drainDir(dir, undefined, this.send, this.log);
    sent += result.sent;
    if (result.empty && !(await namesIn(nested)).length) await rm(dir, { recursive: true, force: true });
    return sent;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) return void (this.again = true);
      this.running = this.run().then((retryIn) => {
        this.running = undefined;
        if (retryIn !== undefined) this.schedule(retryIn);
        else if (this.again) this.schedule(this.delayMs);
      });
    }, ms);
    this.timer.unref();
  }

  /** One round; returns when to retry after a failure. */
  private async run(): Promise<number | undefined> {
    this.again = false;
    try {
      const sent = await this.drain();
      if (this.failures) this.log.info({ sent, afterFailures: this.failures }, 'audit reads publisher recovered: Kafka reachable again');
      this.failures = 0;
      return undefined;
    } catch (err) {
      if (this.closed) return undefined;
      this.failures++;
      if (this.failures === 1) this.log.warn({ err }, 'audit reads publisher cannot send to Kafka; read entries wait in the spool');
      else this.log.debug({ err, failures: this.failures }, 'audit reads publisher still failing');
      return Math.min(this.retryMs * 2 ** Math.min(this.failures - 1, 4), 30_000);
    }
  }
}
