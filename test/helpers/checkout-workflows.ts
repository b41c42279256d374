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
        const cause = (err as Error & { cause?: Error & { cause?: Error } }).cause;
        outcomes[id] =
          `workflow failed: ${cause?.message ?? (err as Error).message}${cause?.cause ? ` (${cause.cause.message})` : ''}`;
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
  /**
   * Checkouts with a workflow task that timed out (lost with a killed worker) and ran again
   * elsewhere: a confirmation is one task (its preparation, charge and recording are local
   * activities inside it), so the whole confirmation ran again, at least once or at least twice.
   */
  lostTaskOnce: number;
  lostTaskTwice: number;
  /** Checkouts whose history holds an activity task (the confirmation made none of its own). */
  withActivities: number;
}

/** What the checkouts' histories say about the crashes. */
export async function crashTraces(client: Client, checkoutIds: string[]): Promise<CrashTraces> {
  const traces: CrashTraces = { lostTaskOnce: 0, lostTaskTwice: 0, withActivities: 0 };
  for (const id of checkoutIds) {
    const history = await client.workflow.getHandle(checkoutWorkflowId(id)).fetchHistory();
    const events = history.events ?? [];
    const lost = events.filter((e) => e.workflowTaskTimedOutEventAttributes).length;
    if (lost >= 1) traces.lostTaskOnce += 1;
    if (lost >= 2) traces.lostTaskTwice += 1;
    if (events.some((e) => e.activityTaskScheduledEventAttributes)) traces.withActivities += 1;
  }
  return traces;
}
