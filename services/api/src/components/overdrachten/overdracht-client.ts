import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import type { TemporalClient } from '../../common/platform/temporal';
import { OVERDRACHT_WORKFLOW, ZAAK_SEARCH_ATTRIBUTE, workflowIdOf, type Config, type Logger, type OverdrachtOpdracht } from '@zgw/shared';

const ZAAK_KEY = defineSearchAttributeKey(ZAAK_SEARCH_ATTRIBUTE, SearchAttributeType.KEYWORD);

/**
 * The API's side of the overdracht workflow (its type and input are shared/'s): starts `overdracht-<uuid>`
 * (at most one run at a time per overdracht), cancels it, over the API's one Temporal connection (deps.temporal),
 * which connects on first use, so the API starts and answers while Temporal is down; an overdracht that could not be
 * started stays `ontvangen` and is started by the sweep (see index.ts).
 */
export class OverdrachtClient {
  constructor(
    private readonly config: Config,
    private readonly log: Logger,
    private readonly temporal: TemporalClient,
  ) {}

  /** Starts the workflow; true when it runs now (started here or already running), false when Temporal is unreachable. */
  async start(opdracht: OverdrachtOpdracht): Promise<boolean> {
    try {
      const client = await this.temporal.connect();
      await client.workflow.start(OVERDRACHT_WORKFLOW, {
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
    const client = await this.temporal.connect();
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
}
