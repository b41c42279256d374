import { ApplicationFailure } from '@temporalio/activity';
import { uuidv7 } from 'uuidv7';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database, Updateable } from '../db/kysely.ts';
import { priceCurrency } from '../db/catalog/checkout-reads.ts';
import { transitionCheckout, type CheckoutRow } from '../db/checkout/lifecycle.ts';
import { lockCheckout } from '../db/checkout/records.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { findCheckoutCustomer, secondSubscriptionRefused } from '../db/customer/checkout-customers.ts';
import { completeSaleCustomer, insertSaleCustomer } from '../db/customer/sale-customers.ts';
import { insertPaidSale, saleOfCheckout } from '../db/sale/sales.ts';
import { saleRecordIn } from '../use-cases/sale-records.ts';
import { customerRecord } from '../use-cases/schemas/customers.ts';
import { subscriptionRecord } from '../db/subscription/record.ts';
import { insertSubscription as insertSubscriptionRow } from '../db/subscription/rows.ts';
import { checkoutRecord } from '../use-cases/schemas/checkouts.ts';
import type { GatewayPaymentData } from '../domain/checkout.ts';
import { subscriptionWorkflowId } from '../domain/subscriptions.ts';
import { parseTaxId } from '../domain/tax-id.ts';
import type { RecordSaleInput, RecordedSale } from '../contracts/checkout.ts';
import type { Events } from './sale-rows.ts';

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
    const checkout = await lockCheckout(em, input.checkoutId);
    if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${input.checkoutId} not found`, 'CheckoutNotFound');
    const known = checkout.status === 'succeeded' ? await saleOfCheckout(em, checkout.id) : null;
    if (known) return known;
    const now = new Date();
    const events: Events = [];
    const customerId = await findOrCreateCustomer(em, checkout, now, events);
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
    await insertEvents(em, checkout.organizationId, events);
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
      gatewayPaymentData: paymentData ? { ...paymentData, ...mandateOf(checkout) } : checkout.gatewayPaymentData,
    },
    now,
  );
  if (!row) {
    throw ApplicationFailure.nonRetryable(`Checkout ${checkout.id} is ${checkout.status}`, 'RecordingRejected');
  }
  // The row as written is the event's record: no second read.
  events.push(['checkout.updated', checkoutRecord(row)]);
}

/**
 * A Pix Automático checkout's mandate (decision 0096), as its pix was issued: kept on the checkout past
 * the payment's own data, for the subscription's workflow to adopt (activities/mandate-adoption.ts).
 */
function mandateOf(checkout: CheckoutRow): Pick<GatewayPaymentData, 'pix_automatico'> {
  const mandate = (checkout.gatewayPaymentData as GatewayPaymentData | null)?.pix_automatico;
  return mandate ? { pix_automatico: mandate } : {};
}

async function insertSubscription(
  em: EntityManager,
  checkout: CheckoutRow,
  customerId: string,
  s: NonNullable<RecordSaleInput['subscription']>,
  events: Events,
): Promise<string> {
  await refuseSecondSubscription(em, checkout, customerId);
  const id = uuidv7();
  const currency = await priceCurrency(em, checkout.productPriceId);
  const periodStart = new Date(s.periodStart);
  const trialEnd = s.trialEnd ? new Date(s.trialEnd) : null;
  const row = await insertSubscriptionRow(em, {
    id,
    organizationId: checkout.organizationId,
    customerId,
    productId: checkout.productId,
    priceId: checkout.productPriceId,
    checkoutId: checkout.id,
    status: s.status,
    // Without a gateway subscription (none could be made), our own renewals bill it: through the
    // mandate the buyer's pix authorized (Pix Automático, the merchant's or the buyer's choice), or the
    // kept card and renewal checkouts.
    recurrenceBilling: s.gatewaySubscriptionId
      ? checkout.recurrenceBilling
      : mandateOf(checkout).pix_automatico
        ? 'pix_automatico'
        : 'manual',
    gatewaySubscriptionId: s.gatewaySubscriptionId,
    amount: checkout.amount,
    currency,
    discountId: checkout.discountId ?? null,
    currentPeriodStart: periodStart,
    currentPeriodEnd: new Date(s.periodEnd),
    trialEnd,
    cancelAtPeriodEnd: false,
    canceledAt: null,
    createdAt: periodStart,
    modifiedAt: null,
    workflowId: subscriptionWorkflowId(id),
    // Periods are counted from the first paid one: the trial's end, or now.
    billingAnchor: trialEnd ?? periodStart,
    anchorPeriod: 1,
    periodNumber: trialEnd ? 0 : 1,
    cardTokenId: s.cardTokenId ?? null,
    endedAt: null,
    subtotalAmount: checkout.subtotalAmount,
    balanceAmount: 0,
    priceChanges: 0,
    balanceSettledPeriod: null,
    metadata: {},
  });
  // The record every later subscription event carries (the API's, currency in upper case).
  const data = { ...subscriptionRecord(row) };
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
async function refuseSecondSubscription(tx: EntityManager, checkout: CheckoutRow, customerId: string): Promise<void> {
  const buyer = { customerId, externalCustomerId: null, email: null };
  if (await secondSubscriptionRefused(tx, checkout.organizationId, buyer, { renewal: false, lock: true })) {
    throw ApplicationFailure.nonRetryable(
      `Customer ${customerId} already has a live subscription of organization ${checkout.organizationId}`,
      'RecordingRejected',
    );
  }
}

/**
 * The buyer as a customer of the organization: the checkout's customer_id, else its external
 * customer id, else its email. A found customer gets the fields it lacked; a new one gets them all.
 */
async function findOrCreateCustomer(em: EntityManager, c: CheckoutRow, now: Date, events: Events): Promise<string> {
  const org = c.organizationId;
  const buyer = { customerId: c.customerId, externalCustomerId: c.externalCustomerId, email: c.customerEmail };
  const customer = await findCheckoutCustomer(em, org, buyer);
  const taxId = c.customerTaxId ? parseTaxId(c.customerTaxId) : null;
  if (customer) {
    // What the customer lacks and the checkout has, by wire name (customer.updated's changed_fields).
    const lacking = {
      name: !customer.name && c.customerName ? { name: c.customerName } : null,
      tax_id: !customer.taxId && taxId ? { taxId } : null,
      billing_name: !customer.billingName && c.customerBillingName ? { billingName: c.customerBillingName } : null,
      billing_address:
        !customer.billingAddress && c.customerBillingAddress ? { billingAddress: c.customerBillingAddress } : null,
      external_id: !customer.externalId && c.externalCustomerId ? { externalId: c.externalCustomerId } : null,
    };
    const fields = Object.keys(lacking).filter((f) => lacking[f as keyof typeof lacking] !== null);
    const patch: Updateable<Database['customers']> = Object.assign({}, ...Object.values(lacking).filter(Boolean));
    if (fields.length > 0) {
      const completed = await completeSaleCustomer(em, customer.id, patch, now);
      events.push(['customer.updated', { ...customerRecord(completed), changed_fields: fields }]);
    }
    return customer.id;
  }
  // prepareConfirmation checked the email before any money moved; this is only a guard.
  if (!c.customerEmail) {
    throw ApplicationFailure.nonRetryable('The checkout has no customer email', 'MissingCustomerEmail');
  }
  const id = uuidv7();
  const created = await insertSaleCustomer(em, {
    id,
    organizationId: org,
    email: c.customerEmail,
    name: c.customerName,
    externalId: c.externalCustomerId,
    billingName: c.customerBillingName,
    billingAddress: c.customerBillingAddress ?? null,
    taxId,
    userMetadata: c.customerMetadata ?? {},
    emailVerified: false,
    avatarUrl: null,
    createdAt: now,
    updatedAt: now,
  });
  events.push(['customer.created', customerRecord(created)]);
  return id;
}
