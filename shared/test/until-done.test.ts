import { untilDone } from '../src/worker';
import type { Logger } from '../src/logger';

// How a worker reaches an engine again (its start, the notifier's resubscribe after a new kanaal): the step is tried
// until it works, with one warning carrying the error while it fails and one line once it works; a stop ends the
// trying with an error instead of a silent return.

function recorder() {
  const lines: { level: string; obj: unknown; msg?: string }[] = [];
  const at = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, log: { warn: at('warn'), info: at('info') } as unknown as Logger };
}

test('a failing step is tried again until it works: one warning with its error, one line when it works', async () => {
  const { lines, log } = recorder();
  let attempts = 0;
  const result = await untilDone(log, 'Kafka', async () => {
    if (++attempts < 3) throw new Error('ECONNREFUSED 127.0.0.1:9092');
    return 'subscribed';
  });
  expect(result).toBe('subscribed');
  expect(attempts).toBe(3);
  expect(lines).toHaveLength(2);
  expect(lines[0]!.level).toBe('warn');
  expect((lines[0]!.obj as { err: Error }).err.message).toContain('ECONNREFUSED');
  expect(lines[0]!.msg).toBe('Kafka unreachable: retried with backoff');
  expect(lines[1]).toEqual({ level: 'info', obj: 'Kafka reachable', msg: undefined });
}, 10_000);

test('a step that works at once logs nothing', async () => {
  const { lines, log } = recorder();
  expect(await untilDone(log, 'MongoDB', async () => 1)).toBe(1);
  expect(lines).toEqual([]);
});

test('a stop ends the trying with an error naming what it waited for', async () => {
  const { log } = recorder();
  let stopped = false;
  setTimeout(() => (stopped = true), 300);
  await expect(
    untilDone(
      log,
      'Kafka',
      () => Promise.reject(new Error('down')),
      () => stopped,
    ),
  ).rejects.toThrow('stopped while waiting for Kafka');
}, 10_000);
