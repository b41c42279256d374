import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { invoiceWorkflowId, type InvoiceWorkflowInput } from '../../contracts/invoice.ts';
import type { Orm } from '../../db/orm.ts';
import { invoiceWorkflow } from '../../workflows/invoice.ts';
import { makeOrganization } from './fixtures.ts';
import type { testWorkers } from './test-workers.ts';
import type { TimeSkippingStack } from './time-skipping.ts';

export type InvoiceHandle = WorkflowHandleWithFirstExecutionRunId<typeof invoiceWorkflow>;

/**
 * Runs an invoice's workflow on the time-skipping stack while `during` acts on it, with the real
 * activities on a worker (and task queue) of its own; the run is terminated once `during` is over.
 */
export async function runInvoiceWorkflow<T>(
  stack: TimeSkippingStack,
  workers: ReturnType<typeof testWorkers>,
  input: InvoiceWorkflowInput,
  during: (handle: InvoiceHandle) => Promise<T>,
): Promise<T> {
  const taskQueue = `invoice-test-${input.invoiceId}`;
  const worker = await workers.create({
    connection: stack.env.nativeConnection,
    taskQueue,
    workflowBundle: stack.bundle,
    activities: createActivities({ orm: stack.orm, gateway: stack.sim }),
  });
  return worker.runUntil(async () => {
    const handle = await stack.env.client.workflow.start(invoiceWorkflow, {
      workflowId: invoiceWorkflowId(input.invoiceId),
      taskQueue,
      args: [input],
    });
    try {
      return await during(handle);
    } finally {
      await handle.terminate('test over').catch(() => undefined);
    }
  });
}

/**
 * What an invoice test's subscription stands on: a new organization, its monthly R$ 99,00 "Club" price
 * and a customer, written by SQL. The subscription itself (billed by the gateway or by us) is the test's.
 */
export async function clubCustomer(orm: Orm) {
  const sql = (query: string, params: unknown[]) => orm.em.getConnection().execute(query, params);
  const org = await makeOrganization(orm);
  const [productId, priceId, customerId] = [uuidv7(), uuidv7(), uuidv7()];
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Club', now())`, [
    productId,
    org.id,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, interval,
       interval_count, created_at)
     values (?, ?, ?, 'recurring', 'brl', 9900, 'unspecified', 'month', 1, now())`,
    [priceId, productId, org.id],
  );
  await sql(
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
    [customerId, org.id, `${uuidv7()}@example.com`],
  );
  return { organizationId: org.id, slug: org.slug, productId, priceId, customerId };
}
