import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Orm } from '../../db/orm.ts';
import { webhookWorkflowId } from '../../domain/webhooks.ts';
import { until } from './processes.ts';

/**
 * Waits until the webhook relay's cursor (webhook_relay's (tx, seq)) has passed the event: by then
 * the relay has started every delivery of it there will ever be (it starts them before it moves the
 * cursor), so a check that an endpoint got nothing cannot pass only because it looked too early.
 */
export async function relayPassed(orm: Orm, eventId: string, timeoutMs = 20_000): Promise<void> {
  await until(
    async () => {
      const [row] = await orm.em
        .getConnection()
        .execute<{ passed: boolean }[]>(
          `select (r.tx, r.seq) >= (e.tx, e.seq) as passed from webhook_relay r, events e where r.id = 1 and e.id = ?`,
          [eventId],
        );
      if (!row) throw new Error(`no event ${eventId}`);
      return row.passed;
    },
    timeoutMs,
    `the webhook relay to pass event ${eventId}`,
  );
}

/** Whether a delivery of the event to the endpoint was ever started (its workflow exists, running or not). */
export async function deliveryStarted(temporal: Client, eventId: string, endpointId: string): Promise<boolean> {
  try {
    await temporal.workflow.getHandle(webhookWorkflowId(eventId, endpointId)).describe();
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
