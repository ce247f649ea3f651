import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import {
  VERNIETIGING_STOP_SIGNAL,
  VERNIETIGING_WORKFLOW,
  VERNIETIGING_VOORTGANG_QUERY,
  vernietigingWorkflowId,
  type VernietigingOpdracht,
  type VernietigingVoortgang,
} from '@zgw/shared';
import type { Deps } from '../../common/platform/component';
import { ZgwError } from '../../common/http/errors';
import type { TemporalClient } from '../../common/platform/temporal';

/** Root zaken of a list carried out at once by its workflow. */
export const GELIJKTIJDIG = 8;
/** How long a view of a list waits for the workflow's answer to its progress query. */
const VRAAG_MS = 2000;

/**
 * The API's side of the destruction workflow (`vernietigen`, id `vernietiging-<lijst>`, on the transfer worker's task
 * queue): start, the signal to stop after the zaken under way, the query of its progress. Over the API's one Temporal
 * connection (deps.temporal), which connects on first use (the API answers while Temporal is away; a start then is
 * a 503).
 */
export class Uitvoering {
  readonly temporal: TemporalClient;

  constructor(private readonly deps: Deps) {
    this.temporal = deps.temporal;
  }

  /** Starts the list's workflow (once: a second start of a running one is none); 503 when Temporal is unreachable. */
  async start(lijst: string, tenant: string): Promise<string> {
    const opdracht: VernietigingOpdracht = {
      lijst,
      tenant,
      hartslagSeconden: this.deps.config.TRANSFER_HEARTBEAT_SECONDS,
      gelijktijdig: GELIJKTIJDIG,
    };
    const workflowId = vernietigingWorkflowId(lijst);
    try {
      const client = await this.temporal.connect();
      await client.workflow.start(VERNIETIGING_WORKFLOW, { taskQueue: this.deps.config.TRANSFER_TASK_QUEUE, workflowId, args: [opdracht] });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return workflowId;
      this.deps.log.error({ err, lijst }, 'destruction workflow not started: Temporal unreachable');
      throw new ZgwError(503, 'unavailable', 'De uitvoering kon niet starten: Temporal is niet bereikbaar. Probeer het later opnieuw.');
    }
    return workflowId;
  }

  /** Asks the running workflow to stop after the zaken under way; false when none runs. */
  async stop(lijst: string): Promise<boolean> {
    try {
      const handle = (await this.temporal.connect()).workflow.getHandle(vernietigingWorkflowId(lijst));
      if ((await handle.describe()).status.name !== 'RUNNING') return false;
      await handle.signal(VERNIETIGING_STOP_SIGNAL);
      return true;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }

  /** The running workflow's progress, or null (not running, or Temporal away: the list's items tell it too). */
  async voortgang(lijst: string): Promise<VernietigingVoortgang | null> {
    try {
      const handle = (await this.temporal.connect()).workflow.getHandle(vernietigingWorkflowId(lijst));
      // (a query waits for a worker: while none runs, the answer is left out after a moment)
      const timeout = new Promise<null>((done) => setTimeout(() => done(null), VRAAG_MS).unref());
      const vraag = handle.query<VernietigingVoortgang>(VERNIETIGING_VOORTGANG_QUERY);
      // (the answer that comes after the wait, or the failure of a connection closed meanwhile, is no one's)
      vraag.catch(() => undefined);
      return await Promise.race([vraag, timeout]);
    } catch {
      return null;
    }
  }
}
