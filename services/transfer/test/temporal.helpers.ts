import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
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
