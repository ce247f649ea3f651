import type { OffsetsByTopicPartition } from 'kafkajs';
import type { Logger } from './logger';

/** What the workers use of kafkajs' `eachBatch` payload (so their handlers can be driven without a broker). */
export interface BatchPayload {
  batch: {
    topic: string;
    partition: number;
    messages: { offset: string; value: Buffer | null; timestamp?: string; headers?: Record<string, unknown> }[];
  };
  resolveOffset(offset: string): void;
  heartbeat(): Promise<void>;
  commitOffsetsIfNecessary(offsets?: OffsetsByTopicPartition): Promise<void>;
  uncommittedOffsets(): OffsetsByTopicPartition;
  isRunning(): boolean;
  isStale(): boolean;
}

/** Waits `ms`, or less once `stop()` says so (checked every 100 ms). */
export async function sleep(ms: number, stop: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!stop() && Date.now() < until) await new Promise((r) => setTimeout(r, Math.min(100, until - Date.now())));
}

/**
 * Runs `step` until it succeeds, with backoff up to 10 s; one warning while it fails, one line when it works (at start,
 * or when a running worker must reach an engine again). Once `stop()` says so it throws instead of trying again.
 */
export async function untilDone<T>(log: Logger, what: string, step: () => Promise<T>, stop: () => boolean = () => false): Promise<T> {
  let failing = false;
  for (let delay = 500; ; delay = Math.min(delay * 2, 10_000)) {
    if (stop()) throw new Error(`stopped while waiting for ${what}`);
    try {
      const result = await step();
      if (failing) log.info(`${what} reachable`);
      return result;
    } catch (err) {
      if (!failing) log.warn({ err }, `${what} unreachable: retried with backoff`);
      failing = true;
    }
    await sleep(delay, stop);
  }
}
