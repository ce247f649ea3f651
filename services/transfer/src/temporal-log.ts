import { DefaultLogger, type LogEntry } from '@temporalio/worker';
import type { Logger } from '@zgw/shared';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';
const LEVELS = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The last line of webpack's listing of the workflow bundle (every module with its size, one message of a few kB the
 * bundler logs at info when the worker starts): `webpack 5.x compiled successfully in 1164 ms`.
 */
const BUNDLE_LISTING = /^webpack \S+ compiled (successfully|with .*?) in \d+/m;

/**
 * The level a line of the Temporal SDK is logged at in this service's log: its own, except webpack's listing of the
 * workflow bundle, which is debug (a warning when webpack warned; the bundler's one-line "Workflow bundle created" with
 * the size stays info).
 */
export function temporalLevel(e: Pick<LogEntry, 'level' | 'message'>): Level {
  const listing = e.level === 'INFO' ? BUNDLE_LISTING.exec(e.message) : null;
  if (listing) return listing[1] === 'successfully' ? 'debug' : 'warn';
  return LEVELS[e.level];
}

/** The Temporal runtime's own lines (worker state, failed attempts, the bundle) as JSON lines of this service's log. */
export function temporalLogger(log: Logger): DefaultLogger {
  return new DefaultLogger('INFO', (e: LogEntry) => log[temporalLevel(e)]({ temporal: true, ...e.meta }, e.message));
}
