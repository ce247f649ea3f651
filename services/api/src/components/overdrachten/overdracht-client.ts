import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { TemporalClient } from '../../common/platform/temporal';
import { ZAAK_SEARCH_ATTRIBUTE, workflowIdOf, type Config, type Logger, type OverdrachtOpdracht, type Pii } from '@zgw/shared';

const ZAAK_KEY = defineSearchAttributeKey(ZAAK_SEARCH_ATTRIBUTE, SearchAttributeType.KEYWORD);

/**
 * The API's side of the transfer workflows: starts `overdracht-<uuid>` (at most one run at a time per overdracht),
 * cancels it. Connects on first use, so the API starts and answers while Temporal is down; an overdracht that could
 * not be started stays `ontvangen` and is started by the sweep (see index.ts).
 */
export class Workflows {
  private readonly temporal: TemporalClient;

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    pii: Pii,
  ) {
    this.temporal = new TemporalClient(config, pii);
  }

  private connect(): Promise<Client> {
    return this.temporal.connect();
  }

  /** Starts the workflow; true when it runs now (started here or already running), false when Temporal is unreachable. */
  async start(opdracht: OverdrachtOpdracht): Promise<boolean> {
    try {
      const client = await this.connect();
      await client.workflow.start('overdracht', {
        taskQueue: this.config.TRANSFER_TASK_QUEUE,
        workflowId: workflowIdOf(opdracht.overdracht),
        args: [opdracht],
        typedSearchAttributes: [{ key: ZAAK_KEY, value: opdracht.zaakIdentificatie }],
      });
      return true;
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return true;
      this.log.warn(
        { err, overdracht: opdracht.overdracht, ZaakIdentificatie: opdracht.zaakIdentificatie },
        'transfer workflow not started yet; the sweep retries',
      );
      return false;
    }
  }

  /** Asks the running workflow to stop; it compensates and ends `geannuleerd`. False when none runs. */
  async cancel(uuid: string): Promise<boolean> {
    const client = await this.connect();
    try {
      const handle = client.workflow.getHandle(workflowIdOf(uuid));
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') return false;
      await handle.cancel();
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.temporal.close();
  }
}
