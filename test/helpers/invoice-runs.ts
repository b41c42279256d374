import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { createActivities } from '../../activities/index.ts';
import { invoiceWorkflowId, type InvoiceWorkflowInput } from '../../contracts/invoice.ts';
import type { Orm } from '../../db/orm.ts';
import { brazilToday } from '../../domain/invoices.ts';
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

const DAY = 86_400_000;

/**
 * An active subscription's row, in its first monthly period of R$ 99,00 from `now`: billed by the
 * gateway (its gateway subscription) or by us (the card the gateway keeps).
 */
export async function insertActiveSubscription(
  orm: Orm,
  now: Date,
  s: Omit<Awaited<ReturnType<typeof clubCustomer>>, 'slug'> & {
    id: string;
    billing: { recurrence: 'gateway'; gatewaySubscriptionId: string } | { recurrence: 'manual'; cardTokenId: string };
  },
): Promise<void> {
  const { billing } = s;
  await orm.em.getConnection().execute(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
       gateway_subscription_id, card_token_id, amount, subtotal_amount, currency, current_period_start,
       current_period_end, created_at, workflow_id, billing_anchor, period_number)
     values (?, ?, ?, ?, ?, 'active', ?, ?, ?, 9900, 9900, 'brl', ?, ?, ?, ?, ?, 1)`,
    [
      s.id,
      s.organizationId,
      s.customerId,
      s.productId,
      s.priceId,
      billing.recurrence,
      billing.recurrence === 'gateway' ? billing.gatewaySubscriptionId : null,
      billing.recurrence === 'manual' ? billing.cardTokenId : null,
      now,
      new Date(now.getTime() + 30 * DAY),
      now,
      `subscription:${s.id}`,
      now,
    ],
  );
}

/**
 * A gateway-billed subscription (its gateway plan, buyer, card and subscription) of a new organization,
 * started today by the test server's clock.
 */
export async function gatewayBilledSubscription({ env, orm, sim }: Omit<TimeSkippingStack, 'bundle'>) {
  const key = (label: string) => `test:${label}:${uuidv7()}`;
  const customer = await clubCustomer(orm);
  const id = uuidv7();
  const plan = await sim.createRecurrencePlan(
    { reference: customer.priceId, name: 'Club', amount: 9_900, currency: 'BRL', interval: 'month', intervalCount: 1 },
    key('plan'),
  );
  const buyer = await sim.createBuyer({ email: 'ana@example.com', name: 'Ana' }, key('buyer'));
  const card = await sim.tokenizeCard(
    { number: '4111111111111111', holderName: 'ANA', expirationMonth: '12', expirationYear: '2035', cvv: '123' },
    key('card'),
  );
  const now = new Date(await env.currentTimeMs());
  const gatewaySub = await sim.createSubscription(
    { reference: id, planId: plan.id, buyerId: buyer.id, cardToken: card.id, startDate: brazilToday(now) },
    key('sub'),
  );
  const billing = { recurrence: 'gateway' as const, gatewaySubscriptionId: gatewaySub.id };
  await insertActiveSubscription(orm, now, { ...customer, id, billing });
  const { organizationId, slug, customerId } = customer;
  return { id, organizationId, slug, customerId, gatewaySubscriptionId: gatewaySub.id };
}

export type GatewayBilledSubscription = Awaited<ReturnType<typeof gatewayBilledSubscription>>;

/**
 * The workflow's input for an extra charge of R$ 150,00 on `s`, due today (test-server time), payable
 * for `days` more days (null: the gateway's default).
 */
export async function extraChargeInput(
  env: TimeSkippingStack['env'],
  s: GatewayBilledSubscription,
  days: number | null = 2,
): Promise<InvoiceWorkflowInput> {
  const now = await env.currentTimeMs();
  return {
    invoiceId: uuidv7(),
    organizationId: s.organizationId,
    subscriptionId: s.id,
    customerId: s.customerId,
    gatewaySubscriptionId: s.gatewaySubscriptionId,
    amount: 15_000,
    currency: 'BRL',
    description: 'Setup fee',
    dueDate: brazilToday(new Date(now)),
    expirationDate: days === null ? null : brazilToday(new Date(now + days * DAY)),
    noFeesInstallments: false,
    answerBy: new Date(now + DAY).toISOString(),
  };
}
