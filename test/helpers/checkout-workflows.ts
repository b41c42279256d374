import type { Client } from '@temporalio/client';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';

/**
 * The checkout workflows as a crash test reads them: how each ended, and what its history says the
 * crashes did to it.
 */

/**
 * Waits until every checkout's workflow has closed and returns how each ended: its status, or what
 * went wrong. Past `timeoutMs` the ones still running are answered 'still running', so a test names
 * the stuck checkouts instead of hitting its own timeout.
 */
export async function checkoutOutcomes(
  client: Client,
  checkoutIds: string[],
  timeoutMs: number,
): Promise<Record<string, string>> {
  const outcomes: Record<string, string> = {};
  const settled = Promise.all(
    checkoutIds.map(async (id) => {
      try {
        const result = (await client.workflow.getHandle(checkoutWorkflowId(id)).result()) as { status: string };
        outcomes[id] = result.status;
      } catch (err) {
        outcomes[id] = `workflow failed: ${(err as Error).message}`;
      }
    }),
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
  clearTimeout(timer);
  for (const id of checkoutIds) outcomes[id] ??= 'still running';
  return outcomes;
}

export interface CrashTraces {
  /** Activity executions that took more than one attempt (one lost with a worker times out), by type. */
  retriedActivities: Record<string, number>;
  /**
   * Checkouts whose workflow task was lost with a worker (timed out) before the card was charged:
   * the confirmation's preparation (a local activity, inside the task) ran again elsewhere.
   */
  taskLostBeforeCharge: number;
  /** Same, after the charge completed: the recording (a local activity) ran again elsewhere. */
  taskLostAfterCharge: number;
}

/** What the checkouts' histories say about the crashes. */
export async function crashTraces(client: Client, checkoutIds: string[]): Promise<CrashTraces> {
  const traces: CrashTraces = { retriedActivities: {}, taskLostBeforeCharge: 0, taskLostAfterCharge: 0 };
  for (const id of checkoutIds) {
    const history = await client.workflow.getHandle(checkoutWorkflowId(id)).fetchHistory();
    const typeOf = new Map<string, string>();
    let charged = false;
    let lostBefore = false;
    let lostAfter = false;
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) typeOf.set(String(event.eventId), scheduled.activityType?.name ?? '?');
      const started = event.activityTaskStartedEventAttributes;
      if (started && (started.attempt ?? 1) > 1) {
        const type = typeOf.get(String(started.scheduledEventId)) ?? '?';
        traces.retriedActivities[type] = (traces.retriedActivities[type] ?? 0) + 1;
      }
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed && typeOf.get(String(completed.scheduledEventId)) === 'chargeCard') charged = true;
      if (event.workflowTaskTimedOutEventAttributes) {
        if (charged) lostAfter = true;
        else lostBefore = true;
      }
    }
    if (lostBefore) traces.taskLostBeforeCharge += 1;
    if (lostAfter) traces.taskLostAfterCharge += 1;
  }
  return traces;
}
