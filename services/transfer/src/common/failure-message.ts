// Workflow-safe (no Node modules): the workflows of this worker import it.

/** The innermost message of a failure (an activity's own error, not the wrapper's "Activity task failed"). */
export function message(err: unknown): string {
  let e = err as { message?: string; cause?: unknown } | undefined;
  while (e?.cause) e = e.cause as typeof e;
  return String(e?.message ?? err).slice(0, 1900);
}
