import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';

/**
 * One database per task queue (decision 0083). Two stacks with different databases on one Temporal
 * namespace and task queue take each other's tasks and fail them as "not found". Each worker claims
 * its queue (TEMPORAL_TASK_QUEUE, which names its batch and webhook queues too) with a marker
 * workflow of a fixed id per queue, whose memo names the database's deployment id (migration 0032):
 * Temporal keeps one running execution per workflow id, so of two databases racing for a queue one
 * wins, and the other's workers refuse to start. The marker runs on a queue that no worker polls, so it
 * stays running (the claim holds past the namespace's retention) and never runs any code.
 */
export const claimWorkflowId = (taskQueue: string) => `task-queue-claim:${taskQueue}`;
/** The marker's type and queue: no worker registers the one nor polls the other. */
export const CLAIM_WORKFLOW_TYPE = 'taskQueueClaim';
export const claimTaskQueueName = (taskQueue: string) => `${taskQueue}-claim`;

export interface QueueClaim {
  /** The database's deployment id (db/deployment/identity.ts). */
  deploymentId: string;
  /** Where the database is (host, port and name, no credentials), for the refusal's message. */
  database: string;
}

/** A worker of another database than the one that claimed its queue: it must not poll. */
export class TaskQueueClaimedError extends Error {
  override name = 'TaskQueueClaimedError';
}

/** DATABASE_URL without its user and password: what names the database in a log line. */
export function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.host}${url.pathname}`;
}

/**
 * Claims `taskQueue` in the client's namespace for this database, or throws TaskQueueClaimedError if
 * another database holds it. A worker restarting finds its own claim in one call (the describe);
 * the first start of a queue takes a second (the start).
 */
export async function claimTaskQueue(client: Client, taskQueue: string, claim: QueueClaim): Promise<void> {
  const workflowId = claimWorkflowId(taskQueue);
  const holder = async (): Promise<QueueClaim | null> => {
    try {
      const description = await client.workflow.getHandle(workflowId).describe();
      // A claim an operator terminated (to hand the queue to another database) holds no longer.
      if (description.status.name !== 'RUNNING') return null;
      return (description.memo ?? {}) as unknown as QueueClaim;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return null;
      throw err;
    }
  };
  let held = await holder();
  if (!held) {
    try {
      await client.workflow.start(CLAIM_WORKFLOW_TYPE, {
        workflowId,
        taskQueue: claimTaskQueueName(taskQueue),
        memo: { ...claim, claimedAt: new Date().toISOString() },
        workflowIdConflictPolicy: 'FAIL',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      });
      return;
    } catch (err) {
      // Another worker claimed it between the describe and the start: whose is it?
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      held = await holder();
    }
  }
  if (held && held.deploymentId === claim.deploymentId) return;
  const namespace = client.options.namespace;
  throw new TaskQueueClaimedError(
    `Temporal task queue "${taskQueue}" in namespace "${namespace}" is served by another database ` +
      `(${held?.database ?? 'unknown'}, deployment ${held?.deploymentId ?? 'unknown'}), not by this ` +
      `worker's (${claim.database}, deployment ${claim.deploymentId}): the two would run each other's ` +
      `tasks and fail them. Set TEMPORAL_TASK_QUEUE to a queue no other database serves (its Schedules ` +
      `are named after it), or TEMPORAL_NAMESPACE to a namespace of this database's own; or set ` +
      `DATABASE_URL to the database that serves it. If that database is gone for good, release the ` +
      `queue: temporal workflow terminate --namespace ${namespace} --workflow-id '${workflowId}'`,
  );
}
