import { IMPORT_HERVAT_SIGNAL, IMPORT_PAUZEER_SIGNAL, IMPORT_WORKFLOW, importWorkflowId, type Config, type ImportOpdracht } from '@zgw/shared';
import type { TemporalClient } from '../common/platform/temporal';

const SIGNALS = { pauzeren: IMPORT_PAUZEER_SIGNAL, hervatten: IMPORT_HERVAT_SIGNAL } as const;

/**
 * The API's side of the registration import's workflow (its type, signals and input are shared/'s): starts
 * `import-<run>`, pauses and resumes it by its signals, cancels it; over the API's one Temporal connection
 * (deps.temporal). A start or a steer throws when Temporal cannot be reached.
 */
export class ImportClient {
  constructor(
    private readonly config: Pick<Config, 'TRANSFER_TASK_QUEUE'>,
    private readonly temporal: TemporalClient,
  ) {}

  async start(opdracht: ImportOpdracht): Promise<void> {
    const client = await this.temporal.connect();
    await client.workflow.start(IMPORT_WORKFLOW, {
      taskQueue: this.config.TRANSFER_TASK_QUEUE,
      workflowId: importWorkflowId(opdracht.run),
      args: [opdracht],
    });
  }

  async steer(run: string, actie: 'pauzeren' | 'hervatten' | 'annuleren'): Promise<void> {
    const handle = (await this.temporal.connect()).workflow.getHandle(importWorkflowId(run));
    if (actie === 'annuleren') await handle.cancel();
    else await handle.signal(SIGNALS[actie]);
  }
}
