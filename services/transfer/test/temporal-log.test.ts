import { Writable } from 'node:stream';
import { bundleWorkflowCode } from '@temporalio/worker';
import { createLogger } from '@zgw/shared';
import { temporalLevel, temporalLogger } from '../src/temporal-log';
import { WORKFLOWS } from './temporal.helpers';

/** The JSON lines the transfer worker's log writes while the workflow bundle is built, at LOG_LEVEL `level`. */
async function bundleLines(level: string): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      );
      done();
    },
  });
  await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: temporalLogger(createLogger('transfer', level, destination)) });
  return lines;
}

test("webpack's listing of the workflow bundle is a debug line; the bundle's one-line summary stays info", async () => {
  const info = await bundleLines('info');
  expect(info.map((l) => [l.level, l.msg])).toEqual([['info', 'Workflow bundle created']]);
  expect(JSON.stringify(info)).not.toMatch(/webpack|asset workflow-bundle/);

  const debug = await bundleLines('debug');
  const listing = debug.filter((l) => /^webpack \S+ compiled successfully/m.test(String(l.msg)));
  expect(listing).toHaveLength(1);
  expect(listing[0]).toMatchObject({ level: 'debug', temporal: true });
  expect(String(listing[0]!.msg)).toMatch(/^asset workflow-bundle-/);
}, 60_000);

test('the other lines of the Temporal SDK keep their level', () => {
  expect(temporalLevel({ level: 'INFO', message: 'Worker state changed' })).toBe('info');
  expect(temporalLevel({ level: 'WARN', message: 'Activity failed' })).toBe('warn');
  expect(temporalLevel({ level: 'ERROR', message: 'asset x 1 KiB\nwebpack 5.112.2 compiled with 1 error in 80 ms' })).toBe('error');
  expect(temporalLevel({ level: 'INFO', message: 'asset x 1 KiB\nwebpack 5.112.2 compiled with 1 warning in 80 ms' })).toBe('warn');
  expect(temporalLevel({ level: 'INFO', message: 'asset x 1 KiB\nwebpack 5.112.2 compiled successfully in 80 ms' })).toBe('debug');
});
