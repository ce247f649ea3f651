import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { historyOf, WORKFLOWS } from './temporal.helpers';

// Transfers and imports run for minutes to hours, across deployments: a worker of a new build resumes the workflows
// an older one began by replaying their histories. Every history recorded in test/histories (by the workflow tests,
// ZGW_RECORD_HISTORIES=1) must replay on today's workflow code without a determinism error: a change that would
// break running workflows fails here (make it behind `patched(...)` instead, and record the new histories beside the
// old ones).

const dir = join(__dirname, 'histories');
const recorded = readdirSync(dir).filter((f) => f.endsWith('.json'));

beforeAll(() => Runtime.install({ logger: new DefaultLogger('ERROR') }));

test('histories are recorded for the replay', () => {
  expect(recorded.length).toBeGreaterThanOrEqual(5);
});

test.each(recorded)(
  '%s replays on the current workflow code',
  async (file) => {
    const history = historyOf(readFileSync(join(dir, file), 'utf8'));
    await expect(Worker.runReplayHistory({ workflowsPath: WORKFLOWS }, history, file.replace(/\.json$/, ''))).resolves.toBeUndefined();
  },
  60_000,
);
