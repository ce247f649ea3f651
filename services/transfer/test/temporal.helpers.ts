import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { engineHome } from '../../api/test/engines.helpers';

// Temporal's test environment for the worker's workflows, on the Temporal CLI that scripts/engines.sh builds (the
// environment's own server download is not used): each suite gets its own dev server on a free port, in memory.

/** The compiled workflows, as the worker loads them (`npm test` builds before it tests). */
export const WORKFLOWS = require.resolve('../dist/workflows');

/** The Temporal CLI the engines script installed (installing it when needed). */
export const temporalCli = (): string => join(engineHome('temporal'), 'bin', 'temporal');

export function testEnvironment(): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: temporalCli() }, log: { format: 'json', level: 'error' } },
  });
}

/**
 * A test environment for the suite's tests: started before them (the worker's own log kept to errors) and handed to
 * `use`, torn down after them.
 */
export function suiteEnvironment(use: (env: TestWorkflowEnvironment) => void): void {
  let env: TestWorkflowEnvironment | undefined;
  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('ERROR') });
    env = await testEnvironment();
    use(env);
  }, 120_000);
  afterAll(async () => {
    await env?.teardown();
  });
}

const History = temporal.api.history.v1.History;
const AS_TEXT = { longs: String, enums: String, bytes: String, defaults: false } as const;

/**
 * A workflow's history as JSON text (the proto message as an object: enums by name, 64-bit numbers and payloads as
 * strings), and back: the replay test keeps recorded histories in this form.
 */
export function historyText(history: temporal.api.history.v1.IHistory): string {
  return `${JSON.stringify(History.toObject(History.fromObject(history), AS_TEXT), null, 1)}\n`;
}
export function historyOf(text: string): temporal.api.history.v1.History {
  return History.fromObject(JSON.parse(text));
}

/**
 * With ZGW_RECORD_HISTORIES=1, keeps the histories of these workflows for the replay test: test/histories/<name>.json
 * for each name and workflow handle.
 */
export async function recordHistories(workflows: Record<string, { fetchHistory(): Promise<temporal.api.history.v1.IHistory> }>): Promise<void> {
  if (process.env.ZGW_RECORD_HISTORIES !== '1') return;
  const dir = join(__dirname, 'histories');
  mkdirSync(dir, { recursive: true });
  for (const [name, handle] of Object.entries(workflows)) writeFileSync(join(dir, `${name}.json`), historyText(await handle.fetchHistory()));
}
