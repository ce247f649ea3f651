import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '@zgw/shared';
import { ADOPTED, Spool, SpoolPublisher, drainDir, readOffset, unsentBytes, type SpooledMessage } from '../src/common/audit/audit-spool';

// The spool of read entries: lines on disk before `append` returns, sent in order by the publisher, the offset moved
// only after a send succeeds, sent segments removed, and a dead instance's spool taken over by exactly one other.
const log = createLogger('test', 'silent');
const line = (uuid: string, clientId = 'c') => JSON.stringify({ uuid, clientId });
const roots: string[] = [];
const newRoot = () => {
  const r = mkdtempSync(join(tmpdir(), 'zgw-spool-unit-'));
  roots.push(r);
  return r;
};
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

/** A sender that records what it was sent, or fails while `down` is set. */
function sink() {
  const got: SpooledMessage[] = [];
  const s = {
    got,
    down: false,
    send: async (batch: SpooledMessage[]) => {
      if (s.down) throw new Error('broker unreachable');
      got.push(...batch);
    },
    ids: () => got.map((m) => m.id),
  };
  return s;
}

const segmentsIn = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.jsonl'));

describe('Spool and drainDir', () => {
  it('writes each line whole as UTF-8, whatever its size and characters, the one after a large line too', () => {
    const spool = new Spool(newRoot(), { segmentBytes: 64 * 1024 * 1024 });
    spool.open();
    const lines = [
      line('kort'),
      JSON.stringify({ uuid: 'tekens', naam: 'Zoë Ærøskøbing 😀 ✓'.repeat(200) }),
      JSON.stringify({ uuid: 'groot', x: 'ä'.repeat(1_500_000) }), // 3 MB: past the buffer a spool keeps
      line('daarna'),
      JSON.stringify({ uuid: 'weer', naam: '€'.repeat(10) }),
    ];
    for (const l of lines) spool.append(l);
    expect(readFileSync(join(spool.dir, segmentsIn(spool.dir)[0]!), 'utf8')).toBe(lines.map((l) => `${l}\n`).join(''));
    spool.close();
  });

  it('sends the lines in order with their uuid as id, once, and moves the offset only after a send', async () => {
    const spool = new Spool(newRoot());
    spool.open();
    for (const id of ['a', 'b', 'c']) spool.append(line(id, `client-${id}`));
    const s = sink();
    s.down = true;
    await expect(drainDir(spool.dir, spool.currentSegment, s.send, log)).rejects.toThrow('broker unreachable');
    expect(await readOffset(spool.dir)).toEqual({ segment: 0, position: 0 });
    expect(await unsentBytes(spool.dir)).toBeGreaterThan(0);

    s.down = false;
    expect((await drainDir(spool.dir, spool.currentSegment, s.send, log)).sent).toBe(3);
    expect(s.ids()).toEqual(['a', 'b', 'c']);
    expect(JSON.parse(s.got[1]!.value.toString())).toEqual({ uuid: 'b', clientId: 'client-b' });
    expect(await unsentBytes(spool.dir)).toBe(0);
    // Nothing again; a new line only.
    expect((await drainDir(spool.dir, spool.currentSegment, s.send, log)).sent).toBe(0);
    spool.append(line('d'));
    await drainDir(spool.dir, spool.currentSegment, s.send, log);
    expect(s.ids()).toEqual(['a', 'b', 'c', 'd']);
    spool.close();
  });

  it('starts a new segment past its size and removes the segments it has sent, never the one being written', async () => {
    const spool = new Spool(newRoot(), { segmentBytes: 200 });
    spool.open();
    const ids = Array.from({ length: 20 }, (_, i) => `id-${String(i).padStart(3, '0')}-${'x'.repeat(30)}`);
    for (const id of ids) spool.append(line(id));
    expect(spool.currentSegment).toBeGreaterThan(3);
    expect(segmentsIn(spool.dir).length).toBe(spool.currentSegment);
    const s = sink();
    await drainDir(spool.dir, spool.currentSegment, s.send, log);
    expect(s.ids()).toEqual(ids);
    expect(segmentsIn(spool.dir)).toEqual([`${String(spool.currentSegment).padStart(12, '0')}.jsonl`]);
    spool.close();
  });

  it('keeps the spools of two instances on one root apart', async () => {
    const root = newRoot();
    const [one, two] = [new Spool(root), new Spool(root)];
    one.open();
    two.open();
    expect(one.dir).not.toBe(two.dir);
    for (let i = 0; i < 50; i++) {
      one.append(line(`one-${i}`));
      two.append(line(`two-${i}`));
    }
    const [s1, s2] = [sink(), sink()];
    await drainDir(one.dir, one.currentSegment, s1.send, log);
    await drainDir(two.dir, two.currentSegment, s2.send, log);
    expect(s1.ids()).toEqual(Array.from({ length: 50 }, (_, i) => `one-${i}`));
    expect(s2.ids()).toEqual(Array.from({ length: 50 }, (_, i) => `two-${i}`));
    // Neither is abandoned while its instance runs: neither takes the other over.
    expect(one.adoptAbandoned()).toEqual([]);
    expect(two.adoptAbandoned()).toEqual([]);
    one.close();
    two.close();
  });
});

describe("a stopped instance's spool", () => {
  it('is taken over by exactly one instance, which sends only what was not sent yet and then removes it', async () => {
    const root = newRoot();
    const first = new Spool(root);
    first.open();
    const s = sink();
    first.append(line('sent-1'));
    first.append(line('sent-2'));
    await drainDir(first.dir, first.currentSegment, s.send, log);
    first.append(line('left-1'));
    first.append(line('left-2'));
    const leftDir = first.dir;
    first.close(); // stopped with two lines unsent

    const [b, c] = [new Spool(root), new Spool(root)];
    b.open();
    c.open();
    const takenByB = b.adoptAbandoned();
    const takenByC = c.adoptAbandoned();
    expect(takenByB.length + takenByC.length).toBe(1);
    const taker = takenByB.length ? b : c;
    expect(existsSync(leftDir)).toBe(false);

    const later = sink();
    const publisher = new SpoolPublisher(taker, later.send, log);
    expect(await publisher.drain()).toBe(2);
    expect(later.ids()).toEqual(['left-1', 'left-2']);
    expect(readdirSync(join(taker.dir, ADOPTED))).toEqual([]);
    b.close();
    c.close();
  });

  it('survives a kill of its process: every line written is sent by the next instance, a line cut short is dropped', async () => {
    const root = newRoot();
    const dist = join(__dirname, '..', 'dist', 'common', 'audit', 'audit-spool.js');
    // A separate process writes 100 lines and is killed (SIGKILL: no exit handlers, no flush of its own).
    const script = `
      const { Spool } = require(${JSON.stringify(dist)});
      const spool = new Spool(${JSON.stringify(root)}, { segmentBytes: 2048 });
      spool.open();
      for (let i = 0; i < 100; i++) spool.append(JSON.stringify({ uuid: 'killed-' + i, clientId: 'k' }));
      process.kill(process.pid, 'SIGKILL');`;
    expect(() => execFileSync(process.execPath, ['-e', script], { stdio: 'pipe' })).toThrow();
    const [dead] = readdirSync(root);
    const segments = segmentsIn(join(root, dead!)).sort();
    expect(segments.length).toBeGreaterThan(1);
    // As if it died in the middle of writing one more line.
    appendFileSync(join(root, dead!, segments[segments.length - 1]!), '{"uuid":"torn","clie');

    const next = new Spool(root);
    const s = sink();
    const publisher = new SpoolPublisher(next, s.send, log);
    next.open();
    expect(next.adoptAbandoned()).toEqual([dead]);
    expect(await publisher.drain()).toBe(100);
    expect(s.ids()).toEqual(Array.from({ length: 100 }, (_, i) => `killed-${i}`));
    expect(readdirSync(root)).toEqual([next.dir.split('/').pop()]);
    await publisher.stop();
    expect(readdirSync(root)).toEqual([]);
  });

  it('of another host is taken over only once its heartbeat is stale', () => {
    const root = newRoot();
    const foreign = join(root, 'other-host-1-abcdef01');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'owner.json'), JSON.stringify({ host: 'other-host', pid: 1, started: new Date().toISOString() }));
    writeFileSync(join(foreign, '000000000001.jsonl'), `${line('far')}\n`);
    const spool = new Spool(root, { staleMs: 60_000 });
    spool.open();
    expect(spool.adoptAbandoned()).toEqual([]);
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(foreign, 'owner.json'), old, old);
    expect(spool.adoptAbandoned()).toEqual(['other-host-1-abcdef01']);
    expect(readFileSync(join(spool.dir, ADOPTED, 'other-host-1-abcdef01', '000000000001.jsonl'), 'utf8')).toContain('"far"');
    spool.close();
  });
});

describe('SpoolPublisher', () => {
  it('sends soon after a line is written, keeps lines while sending fails, and sends them once it works again', async () => {
    const root = newRoot();
    const spool = new Spool(root);
    const s = sink();
    const publisher = new SpoolPublisher(spool, s.send, log, { delayMs: 10, retryMs: 20 });
    publisher.start();
    spool.append(line('one'));
    publisher.kick();
    await until(() => s.got.length === 1);
    s.down = true;
    spool.append(line('two'));
    publisher.kick();
    await until(() => !publisher.healthy);
    expect(await unsentBytes(spool.dir)).toBeGreaterThan(0);
    s.down = false;
    await until(() => s.got.length === 2);
    expect(s.ids()).toEqual(['one', 'two']);
    await publisher.stop();
    expect(readdirSync(root)).toEqual([]);
  });

  it('leaves what it could not send for the next instance when it stops', async () => {
    const root = newRoot();
    const spool = new Spool(root);
    const s = sink();
    s.down = true;
    const publisher = new SpoolPublisher(spool, s.send, log, { delayMs: 10, retryMs: 10_000 });
    publisher.start();
    spool.append(line('waiting'));
    publisher.kick();
    await until(() => !publisher.healthy);
    await publisher.stop();
    expect(readdirSync(root)).toHaveLength(1);

    const after = new Spool(root);
    const later = sink();
    const next = new SpoolPublisher(after, later.send, log, { delayMs: 10 });
    next.start();
    await until(() => later.got.length === 1);
    expect(later.ids()).toEqual(['waiting']);
    await next.stop();
  });

  it('sends nothing after its last flush: a send under way at the deadline is the last, the rest waits for the next instance', async () => {
    const root = newRoot();
    const spool = new Spool(root);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const got: SpooledMessage[] = [];
    let calls = 0;
    const send = async (batch: SpooledMessage[]) => {
      if (++calls === 1) await held; // a broker slow to take a large backlog
      got.push(...batch);
    };
    const publisher = new SpoolPublisher(spool, send, log, { delayMs: 10 });
    publisher.start();
    const pad = 'x'.repeat(200);
    for (let i = 0; i < 3000; i++) spool.append(JSON.stringify({ uuid: `u${i}`, clientId: 'c', pad })); // several batches
    await until(() => calls === 1);
    const outcome = await Promise.race([
      publisher.stop(100).then(() => 'stopped'),
      new Promise((r) => setTimeout(() => r('still waiting'), 2000).unref()),
    ]);
    expect(outcome).toBe('stopped');
    release();
    await new Promise((r) => setTimeout(r, 200));
    expect(calls).toBe(1);
    const first = got.length;
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(3000);

    const later = sink();
    const next = new SpoolPublisher(new Spool(root), later.send, log, { delayMs: 10 });
    next.start();
    await until(() => later.got.length >= 3000 - first);
    expect(new Set([...got, ...later.got].map((m) => m.id)).size).toBe(3000);
    await next.stop();
  });
});

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('failures of the file system', () => {
  it('says when the offset is unreadable, and sends the segments left from their start', async () => {
    const dir = newRoot();
    writeFileSync(join(dir, 'offset.json'), '{"segment": 3, "posi');
    const said: string[] = [];
    const logged = createLogger(
      'test',
      'warn',
      new Writable({
        write(chunk, _enc, done) {
          said.push(String(chunk));
          done();
        },
      }),
    );
    expect(await readOffset(dir, logged)).toEqual({ segment: 0, position: 0 });
    expect(said.join('')).toMatch(/audit spool offset unreadable/);
    // no offset yet is no failure: nothing said
    said.length = 0;
    expect(await readOffset(newRoot(), logged)).toEqual({ segment: 0, position: 0 });
    expect(said).toEqual([]);
  });

  it('raises a failure that is not a missing file or folder, instead of counting nothing', async () => {
    expect(await unsentBytes(newRoot())).toBe(0);
    const dir = newRoot();
    // a file where the folder of adopted spools belongs: reading it fails (ENOTDIR), which is not "nothing there"
    writeFileSync(join(dir, ADOPTED), 'not a folder');
    await expect(unsentBytes(dir)).rejects.toThrow(/ENOTDIR/);
  });
});
