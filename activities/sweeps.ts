import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Orm } from '../db/orm.ts';
import { plainSql } from '../db/plain-sql.ts';
import { CUSTOMER_ID, ORGANIZATION_ID, SUBSCRIPTION_ID } from '../domain/search-attributes.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';

/**
 * The periodic sweep's steps (workflows/sweep.ts). A subscription that is not canceled must have a
 * running workflow, or nothing renews it: one recorded before subscriptions had workflows, or whose
 * run an operator terminated, gets one started again. Starting is idempotent (an existing run is
 * kept), so a sweep that overlaps a checkout starting the same workflow changes nothing.
 */
export interface SweepPage {
  /** How many live subscriptions this page looked at. */
  checked: number;
  /** The last subscription id of the page; null when there is nothing after it. */
  next: string | null;
}

export function createSweepActivities(deps: { orm: Orm; temporal?: Client; taskQueue?: string }) {
  const db = plainSql(deps.orm);
  return {
    async ensureSubscriptionWorkflows(input: { after: string | null; limit: number }): Promise<SweepPage> {
      const { temporal, taskQueue } = deps;
      if (!temporal || !taskQueue) {
        throw ApplicationFailure.nonRetryable('This worker has no Temporal client for sweeps', 'SweepUnavailable');
      }
      const rows = await db.query(
        `select id, organization_id, customer_id from subscriptions
         where status <> 'canceled' and (?::uuid is null or id > ?::uuid) order by id limit ?`,
        [input.after, input.after, input.limit],
      );
      for (const row of rows) {
        const subscriptionId = row.id as string;
        await temporal.workflow.start('subscriptionWorkflow', {
          workflowId: subscriptionWorkflowId(subscriptionId),
          taskQueue,
          args: [{ subscriptionId }],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          typedSearchAttributes: [
            { key: ORGANIZATION_ID, value: row.organization_id as string },
            { key: CUSTOMER_ID, value: row.customer_id as string },
            { key: SUBSCRIPTION_ID, value: subscriptionId },
          ],
        });
      }
      return { checked: rows.length, next: rows.length < input.limit ? null : (rows.at(-1)!.id as string) };
    },
  };
}
