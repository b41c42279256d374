import { ApplicationFailure } from '@temporalio/activity';
import { uuidv7 } from 'uuidv7';
import { findCheckoutCustomer, secondSubscriptionRefused } from '../db/checkout-customers.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { priceCurrency } from '../db/catalog/checkout-reads.ts';
import { transitionCheckout, type CheckoutRow } from '../db/checkout/lifecycle.ts';
import { lockCheckout } from '../db/checkout/records.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { executorOf, sqlIn, type SqlExecutor } from '../db/plain-sql.ts';
import { insertPaidSale, saleOfCheckout } from '../db/sale/sales.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import { subscriptionRecord } from '../db/subscription-records.ts';
import { checkoutRecord } from '../use-cases/schemas/checkouts.ts';
import type { GatewayPaymentData } from '../domain/checkout.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { parseTaxId } from '../domain/tax-id.ts';
import type { RecordSaleInput, RecordedSale } from '../contracts/checkout.ts';
import type { Events } from './sale-rows.ts';
import { customerRecordIn } from './event-records.ts';

type Row = Record<string, unknown>;

/**
 * Everything a paid checkout leads to, in one database transaction: the customer (found or
 * created), the transaction, the subscription of a recurring price's first sale, the sale, the
 * checkout succeeded, and their events. Repeating it changes nothing: a succeeded checkout returns what was
 * recorded, and the sale and the subscription are unique per checkout. It never calls the gateway.
 */
export async function recordSale(orm: Orm, input: RecordSaleInput): Promise<RecordedSale> {
  try {
    return await writeSale(orm, input);
  } catch (err) {
    // The database refuses these rows (a constraint): retrying cannot help, so the workflow gives the money back.
    if (isConstraintViolation(err)) {
      throw ApplicationFailure.nonRetryable(`The sale could not be recorded: ${err.message}`, 'RecordingRejected');
    }
    throw err;
  }
}

/** PostgreSQL's class 23: integrity constraint violations (unique, foreign key, not null, check). */
function isConstraintViolation(err: unknown): err is Error {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('23');
}

/**
 * Typed statements under the checkout's row lock, no entity tracked, events written in one insert:
 * this runs for every paid checkout, and entity tracking would cost more than the statements themselves.
 */
async function writeSale(orm: Orm, input: RecordSaleInput): Promise<RecordedSale> {
  return orm.em.fork().transactional(async (em) => {
    const tx = executorOf(sqlIn(em));
    const checkout = await lockCheckout(em, input.checkoutId);
    if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${input.checkoutId} not found`, 'CheckoutNotFound');
    const known = checkout.status === 'succeeded' ? await saleOfCheckout(em, checkout.id) : null;
    if (known) return known;
    const now = new Date();
    const events: Events = [];
    const customerId = await findOrCreateCustomer(orm, tx, checkout, now, events);
    const transactionId = input.payment
      ? await upsertTransaction(em, { organizationId: checkout.organizationId, checkoutId: checkout.id }, input.payment)
      : null;
    // A renewal or upgrade checkout's subscription recorded what the sale moves (its workflow is its
    // only writer: activities/subscription-sales.ts); a recurring price's first sale makes one.
    const subscriptionId =
      checkout.subscriptionId ??
      (input.subscription ? await insertSubscription(em, checkout, customerId, input.subscription, events) : null);
    const sale = { customerId, transactionId, subscriptionId, installments: input.payment?.installments ?? 1 };
    const saleId = await insertSale(em, checkout, sale, now, events);
    await markSucceeded(em, checkout, sale, input.payment?.paymentData ?? null, now, events);
    await insertEvents(tx, checkout.organizationId, events);
    return { customerId, subscriptionId, saleId };
  });
}

/** The checkout's sale, paid, with sale.created and sale.paid on `events`. */
async function insertSale(
  em: EntityManager,
  checkout: CheckoutRow,
  s: { customerId: string; transactionId: string | null; subscriptionId: string | null; installments: number },
  now: Date,
  events: Events,
): Promise<string> {
  const saleId = await insertPaidSale(em, {
    organizationId: checkout.organizationId,
    checkoutId: checkout.id,
    transactionId: s.transactionId,
    customerId: s.customerId,
    productId: checkout.productId,
    priceId: checkout.productPriceId,
    subscriptionId: s.subscriptionId,
    invoiceId: null,
    discountId: checkout.discountId,
    currency: checkout.currency,
    subtotalAmount: checkout.subtotalAmount,
    discountAmount: checkout.discountAmount,
    amount: checkout.amount,
    installments: s.installments,
    paymentMethod: checkout.paymentMethod ?? 'credit_card',
    at: now,
  });
  const sale = await saleRecordIn(em, saleId);
  events.push(['sale.created', sale], ['sale.paid', sale]);
  return saleId;
}

/**
 * confirmed → succeeded, guarded (db/checkout/lifecycle.ts), with its customer and payment details,
 * and checkout.updated on `events`. A checkout that is not confirmed is not recorded: the
 * transaction is given up and the workflow gives the money back.
 */
async function markSucceeded(
  em: EntityManager,
  checkout: CheckoutRow,
  { customerId, subscriptionId }: { customerId: string; subscriptionId: string | null },
  paymentData: GatewayPaymentData | null,
  now: Date,
  events: Events,
): Promise<void> {
  const row = await transitionCheckout(
    em,
    checkout.id,
    'pay',
    {
      customerId,
      subscriptionId: checkout.subscriptionId ?? subscriptionId,
      declineReason: null,
      gatewayPaymentData: paymentData ?? checkout.gatewayPaymentData,
    },
    now,
  );
  if (!row) {
    throw ApplicationFailure.nonRetryable(`Checkout ${checkout.id} is ${checkout.status}`, 'RecordingRejected');
  }
  // The row as written is the event's record: no second read.
  events.push(['checkout.updated', checkoutRecord(row)]);
}

async function insertSubscription(
  em: EntityManager,
  checkout: CheckoutRow,
  customerId: string,
  s: NonNullable<RecordSaleInput['subscription']>,
  events: Events,
): Promise<string> {
  const tx = executorOf(sqlIn(em));
  await refuseSecondSubscription(tx, checkout, customerId);
  const id = uuidv7();
  const currency = await priceCurrency(em, checkout.productPriceId);
  const [row] = await tx.execute<Row[]>(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, checkout_id, status,
       recurrence_billing, gateway_subscription_id, amount, currency, discount_id, current_period_start,
       current_period_end, trial_end, created_at, workflow_id, billing_anchor, period_number, card_token_id,
       subtotal_amount)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning *`,
    [
      id,
      checkout.organizationId,
      customerId,
      checkout.productId,
      checkout.productPriceId,
      checkout.id,
      s.status,
      // Without a gateway subscription (none could be made), our own renewals bill it.
      s.gatewaySubscriptionId ? checkout.recurrenceBilling : 'manual',
      s.gatewaySubscriptionId,
      checkout.amount,
      currency,
      checkout.discountId,
      s.periodStart,
      s.periodEnd,
      s.trialEnd,
      s.periodStart,
      subscriptionWorkflowId(id),
      // Periods are counted from the first paid one: the trial's end, or now.
      s.trialEnd ?? s.periodStart,
      s.trialEnd ? 0 : 1,
      s.cardTokenId ?? null,
      checkout.subtotalAmount,
    ],
  );
  // The record every later subscription event carries (the API's, currency in upper case).
  const data = { ...subscriptionRecord(row!) };
  events.push(['subscription.created', data]);
  if (s.status === 'active') events.push(['subscription.active', data]);
  return id;
}

/**
 * The guard behind the confirmation's check: a payment that arrived after the customer got a live
 * subscription another way (a pix paid late, two checkouts paid at once) is refused where the
 * organization allows one, and the workflow gives it back. The customer's row lock serializes the
 * sales of one customer, so two of them cannot both pass.
 */
async function refuseSecondSubscription(tx: SqlExecutor, checkout: CheckoutRow, customerId: string): Promise<void> {
  const buyer = { customerId, externalCustomerId: null, email: null };
  if (await secondSubscriptionRefused(tx, checkout.organizationId, buyer, { renewal: false, lock: true })) {
    throw ApplicationFailure.nonRetryable(
      `Customer ${customerId} already has a live subscription of organization ${checkout.organizationId}`,
      'RecordingRejected',
    );
  }
}

interface CustomerRow extends Row {
  id: string;
  email: string;
  name: string | null;
  external_id: string | null;
  billing_name: string | null;
  billing_address: unknown;
  tax_id: unknown;
}

/**
 * The buyer as a customer of the organization: the checkout's customer_id, else its external
 * customer id, else its email. A found customer gets the fields it lacked; a new one gets them all.
 */
async function findOrCreateCustomer(
  orm: Orm,
  tx: SqlExecutor,
  c: CheckoutRow,
  now: Date,
  events: Events,
): Promise<string> {
  const org = c.organizationId;
  const customer = await findCheckoutCustomer<CustomerRow>(
    tx,
    org,
    { customerId: c.customerId, externalCustomerId: c.externalCustomerId, email: c.customerEmail },
    'id, email, name, external_id, billing_name, billing_address, tax_id',
  );
  const taxId = c.customerTaxId ? parseTaxId(c.customerTaxId) : null;
  if (customer) {
    const patch: Record<string, unknown> = {};
    if (!customer.name && c.customerName) patch.name = c.customerName;
    if (!customer.tax_id && taxId) patch.tax_id = JSON.stringify(taxId);
    if (!customer.billing_name && c.customerBillingName) patch.billing_name = c.customerBillingName;
    if (!customer.billing_address && c.customerBillingAddress) {
      patch.billing_address = JSON.stringify(c.customerBillingAddress);
    }
    if (!customer.external_id && c.externalCustomerId) patch.external_id = c.externalCustomerId;
    const fields = Object.keys(patch);
    if (fields.length > 0) {
      await tx.execute(
        `update customers set ${fields.map((f) => `${f} = ?`).join(', ')}, updated_at = ? where id = ?`,
        [...Object.values(patch), now, customer.id],
      );
      events.push(['customer.updated', { ...(await customerRecordIn(orm, tx, customer.id)), changed_fields: fields }]);
    }
    return customer.id;
  }
  // prepareConfirmation checked the email before any money moved; this is only a guard.
  if (!c.customerEmail) {
    throw ApplicationFailure.nonRetryable('The checkout has no customer email', 'MissingCustomerEmail');
  }
  const id = uuidv7();
  await tx.execute(
    `insert into customers (id, organization_id, email, name, external_id, billing_name, billing_address, tax_id,
       user_metadata, email_verified, avatar_url, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, false, null, ?, ?)`,
    [
      id,
      org,
      c.customerEmail,
      c.customerName,
      c.externalCustomerId,
      c.customerBillingName,
      c.customerBillingAddress ? JSON.stringify(c.customerBillingAddress) : null,
      taxId ? JSON.stringify(taxId) : null,
      JSON.stringify(c.customerMetadata ?? {}),
      now,
      now,
    ],
  );
  events.push(['customer.created', await customerRecordIn(orm, tx, id)]);
  return id;
}
