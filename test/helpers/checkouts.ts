import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { uuidv7 } from 'uuidv7';
import { ledgerOf as gatewayLedgerOf } from '@billing/simulated-gateway/books';
import { createCheckoutPaymentActivities } from '../../activities/checkout-payments.ts';
import { createCheckoutRecordActivities } from '../../activities/checkout-records.ts';
import type { Orm } from '../../db/orm.ts';
import type { PaymentSummary } from '../../domain/checkout.ts';
import { cardPaymentsOf } from '../../gateway/capabilities.ts';
import type { PaymentGateway } from '../../gateway/port.ts';
import { CHECKOUT_ID, ORGANIZATION_ID } from '../../domain/search-attributes.ts';
import { TEST_TASK_QUEUE } from './env.ts';
import { recordHistory as saveHistory } from './histories.ts';
import { makeOrganization } from './fixtures.ts';
import { checkoutWorkflowId } from '../../contracts/checkout.ts';
import { waitFor } from './processes.ts';

export interface CheckoutFixtureOptions {
  amount?: number;
  recurring?: 'month' | 'year';
  /** null: a checkout with no customer email yet. */
  email?: string | null;
  allowDiscountCodes?: boolean;
  trialDays?: number;
  expiresInMs?: number;
  productName?: string;
  /** Who bills a recurring price's renewals (default: the gateway). */
  recurrenceBilling?: 'gateway' | 'manual' | 'pix_automatico';
  /** The checkout's organization (default: a new one). */
  organizationId?: string;
  /** The task queue its workflow runs on (default: the test run's), for tests with a worker of their own. */
  taskQueue?: string;
}

export interface CheckoutFixture {
  id: string;
  clientSecret: string;
  organizationId: string;
  productId: string;
  priceId: string;
  email: string | null;
}

/**
 * An open checkout of a new organization, written by SQL, with its workflow started as the creation
 * endpoint starts it (that endpoint has its own tests): for tests of the confirmation and the workflow.
 */
export async function makeCheckout(
  orm: Orm,
  temporal: Client,
  options: CheckoutFixtureOptions = {},
): Promise<CheckoutFixture> {
  const amount = options.amount ?? 10_000;
  const org = options.organizationId ? { id: options.organizationId } : await makeOrganization(orm);
  const conn = orm.em.getConnection();
  const productId = uuidv7();
  const priceId = uuidv7();
  await conn.execute(
    `insert into products (id, organization_id, name, metadata, is_archived, is_tax_applicable, created_at)
     values (?, ?, ?, '{}', false, true, now())`,
    [productId, org.id, options.productName ?? 'Course'],
  );
  await conn.execute(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, interval_count, active, metadata, created_at)
     values (?, ?, ?, ?, 'brl', ?, ?, ?, true, '{}', now())`,
    [
      priceId,
      productId,
      org.id,
      options.recurring ? 'recurring' : 'one_time',
      amount,
      options.recurring ?? null,
      options.recurring ? 1 : null,
    ],
  );
  const id = uuidv7();
  const clientSecret = `cs_${randomBytes(32).toString('base64url').slice(0, 43)}`;
  const email = options.email === undefined ? `buyer-${id.slice(-8)}@example.com` : options.email;
  await conn.execute(
    `insert into checkouts (id, organization_id, status, client_secret, workflow_id, product_id, product_price_id, products,
       currency, subtotal_amount, amount, customer_email, allow_discount_codes, trial_interval, trial_interval_count,
       expires_at, recurrence_billing, created_at, updated_at)
     values (?, ?, 'open', ?, ?, ?, ?, ?::uuid[], 'BRL', ?, ?, ?, ?, ?, ?, ?, ?, now(), now())`,
    [
      id,
      org.id,
      clientSecret,
      checkoutWorkflowId(id),
      productId,
      priceId,
      `{${productId}}`,
      amount,
      amount,
      email,
      options.allowDiscountCodes ?? true,
      options.trialDays ? 'day' : null,
      options.trialDays ?? null,
      new Date(Date.now() + (options.expiresInMs ?? 10 * 60_000)),
      options.recurrenceBilling ?? 'gateway',
    ],
  );
  await startCheckoutWorkflow(temporal, id, org.id, options.taskQueue);
  return { id, clientSecret, organizationId: org.id, productId, priceId, email };
}

export async function startCheckoutWorkflow(
  temporal: Client,
  checkoutId: string,
  organizationId: string,
  taskQueue = TEST_TASK_QUEUE,
) {
  await temporal.workflow.start('checkoutWorkflow', {
    workflowId: checkoutWorkflowId(checkoutId),
    taskQueue,
    args: [{ checkoutId, organizationId }],
    typedSearchAttributes: [
      { key: ORGANIZATION_ID, value: organizationId },
      { key: CHECKOUT_ID, value: checkoutId },
    ],
  });
}

/** The checkout's row as stored. */
export async function checkoutRow(orm: Orm, checkoutId: string): Promise<Record<string, any>> {
  const [r] = await orm.em
    .getConnection()
    .execute<Record<string, any>[]>('select * from checkouts where id = ?', [checkoutId]);
  return r!;
}

/** Polls the checkout's row until it has `status`. */
export async function waitForCheckoutStatus(orm: Orm, checkoutId: string, status: string, timeoutMs = 20_000) {
  let last: Record<string, any> | undefined;
  return waitFor(
    async () => {
      last = await checkoutRow(orm, checkoutId);
      return last.status === status && last;
    },
    {
      what: `checkout ${checkoutId} to be ${status}`,
      timeoutMs,
      intervalMs: 150,
      describe: () => String(last?.status),
    },
  );
}

/** The simulated gateway's ledger for one checkout: how many captures and refunds, and their sums. */
export const ledgerOf = (orm: Orm, checkoutId: string) => gatewayLedgerOf(orm, checkoutId);

/** With RECORD_HISTORIES=1 the finished checkout's history is saved for the replay test. */
export async function recordHistory(temporal: Client, name: string, checkoutId: string): Promise<void> {
  await saveHistory(temporal, `checkout-${name}`, checkoutWorkflowId(checkoutId));
}

/**
 * What a confirmation's workflow task left when it was lost before its run heard of it (its worker
 * gone with it, its Update lost): the checkout prepared (confirmed, its slot taken) and, with
 * `charge`, the buyer's approving card charged by the slot's key; nothing in the run's history. It
 * runs the task's own activities, as the task would have. Returns the charge, if any.
 */
export async function leaveLostConfirmation(
  orm: Orm,
  gateway: PaymentGateway,
  checkoutId: string,
  options: { charge: boolean },
): Promise<PaymentSummary | null> {
  const task = {
    ...createCheckoutRecordActivities({ orm, gateway }),
    ...createCheckoutPaymentActivities({ orm, gateway }),
  };
  const token = await cardPaymentsOf(gateway).tokenizeCard(
    { number: '4111111111111111', holderName: 'ANA SOUZA', expirationMonth: '12', expirationYear: '2031', cvv: '123' },
    `test:${checkoutId}:card`,
  );
  const prepared = await task.prepareConfirmation(
    checkoutId,
    {
      paymentMethod: 'credit_card',
      card: { id: token.id, brand: token.brand, first4: token.first4, last4: token.last4 },
      installments: 1,
      buyer: { email: 'ana@example.com', name: null, taxId: null },
      discountCode: null,
    },
    1,
  );
  if (!options.charge) return null;
  return task.chargeCard({
    checkoutId,
    slot: prepared.slot!,
    amount: prepared.amount,
    currency: prepared.currency,
    installments: 1,
    noFeesInstallments: prepared.noFeesInstallments,
    cardTokenId: token.id,
  });
}
