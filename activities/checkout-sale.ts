import { ConstraintViolationException, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { uuidv7 } from 'uuidv7';
import { Checkout, Customer } from '../db/entities/index.ts';
import { recordEvent } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { upsertTransaction } from '../db/transactions.ts';
import type { PaymentSummary } from '../domain/checkout.ts';
import { parseTaxId } from '../domain/tax-id.ts';
import { lockedCheckout, wireCheckout } from './checkout-records.ts';

type CheckoutEntity = InferEntity<typeof Checkout>;
type CustomerEntity = InferEntity<typeof Customer>;
type Row = Record<string, unknown>;

export interface RecordSaleInput {
  checkoutId: string;
  /** The captured (or paid) payment; null for a checkout whose total is zero. */
  payment: PaymentSummary | null;
  /** The first period the workflow chose (domain/checkout.ts firstSubscriptionPeriod); null for a one-time price. */
  subscription: {
    status: 'active' | 'trialing';
    periodStart: string;
    periodEnd: string;
    trialEnd: string | null;
    gatewaySubscriptionId: string | null;
  } | null;
}

export interface RecordedSale {
  customerId: string;
  subscriptionId: string | null;
  saleId: string;
}

/**
 * Everything a paid checkout leads to, in one database transaction: the customer (found or
 * created), the transaction, the subscription of a recurring price, the sale, the checkout
 * succeeded, and their events. Repeating it changes nothing: a succeeded checkout returns what was
 * recorded, and the sale and the subscription are unique per checkout. It never calls the gateway.
 */
export async function recordSale(orm: Orm, input: RecordSaleInput): Promise<RecordedSale> {
  try {
    return await writeSale(orm, input);
  } catch (err) {
    // The database refuses these rows (a constraint): retrying cannot help, so the workflow gives the money back.
    if (err instanceof ConstraintViolationException) {
      throw ApplicationFailure.nonRetryable(`The sale could not be recorded: ${err.message}`, 'RecordingRejected');
    }
    throw err;
  }
}

async function writeSale(orm: Orm, input: RecordSaleInput): Promise<RecordedSale> {
  return orm.em.fork().transactional(async (tx) => {
    const checkout = await lockedCheckout(tx, input.checkoutId);
    if (checkout.status === 'succeeded') {
      const [sale] = await tx.execute<Row[]>(
        'select id, customer_id, subscription_id from sales where checkout_id = ?',
        [checkout.id],
      );
      if (sale) {
        return {
          customerId: sale.customer_id as string,
          subscriptionId: (sale.subscription_id as string | null) ?? null,
          saleId: sale.id as string,
        };
      }
    }
    const now = new Date();
    const { customer, created } = await findOrCreateCustomer(tx, checkout, now);
    const org = checkout.organizationId;
    if (created) {
      recordEvent(tx, org, 'customer.created', {
        id: customer.id,
        email: customer.email,
        name: customer.name ?? null,
        external_id: customer.externalId ?? null,
      });
    }
    const transactionId = input.payment
      ? await upsertTransaction(tx, { organizationId: org, checkoutId: checkout.id }, input.payment)
      : null;
    const subscriptionId = input.subscription
      ? await insertSubscription(tx, checkout, customer.id, input.subscription)
      : null;

    const saleId = uuidv7();
    const installments = input.payment?.installments ?? 1;
    await tx.execute(
      `insert into sales (id, organization_id, checkout_id, transaction_id, customer_id, product_id, price_id,
         subscription_id, discount_id, currency, subtotal_amount, discount_amount, amount, installments,
         payment_method, status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'paid', ?, ?)`,
      [
        saleId,
        org,
        checkout.id,
        transactionId,
        customer.id,
        checkout.productId,
        checkout.productPriceId,
        subscriptionId,
        checkout.discountId,
        checkout.currency,
        checkout.subtotalAmount,
        checkout.discountAmount,
        checkout.amount,
        installments,
        checkout.paymentMethod ?? 'credit_card',
        now,
        now,
      ],
    );
    const sale = {
      id: saleId,
      checkout_id: checkout.id,
      customer_id: customer.id,
      product_id: checkout.productId,
      price_id: checkout.productPriceId,
      subscription_id: subscriptionId,
      currency: checkout.currency,
      subtotal_amount: checkout.subtotalAmount,
      discount_amount: checkout.discountAmount,
      amount: checkout.amount,
      installments,
      payment_method: checkout.paymentMethod,
      status: 'paid',
    };
    recordEvent(tx, org, 'sale.created', sale);
    recordEvent(tx, org, 'sale.paid', sale);

    checkout.status = 'succeeded';
    checkout.customerId = customer.id;
    checkout.subscriptionId = checkout.subscriptionId ?? subscriptionId;
    checkout.declineReason = null;
    if (input.payment) checkout.gatewayPaymentData = input.payment.paymentData;
    checkout.updatedAt = now;
    recordEvent(tx, org, 'checkout.updated', wireCheckout(checkout));
    return { customerId: customer.id, subscriptionId, saleId };
  });
}

async function insertSubscription(
  tx: EntityManager,
  checkout: CheckoutEntity,
  customerId: string,
  s: NonNullable<RecordSaleInput['subscription']>,
): Promise<string> {
  const id = uuidv7();
  const [price] = await tx.execute<Row[]>('select currency from prices where id = ?', [checkout.productPriceId]);
  const currency = price!.currency as string;
  await tx.execute(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, checkout_id, status,
       recurrence_billing, gateway_subscription_id, amount, currency, discount_id, current_period_start,
       current_period_end, trial_end, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    ],
  );
  const data = {
    id,
    status: s.status,
    customer_id: customerId,
    product_id: checkout.productId,
    price_id: checkout.productPriceId,
    checkout_id: checkout.id,
    gateway_subscription_id: s.gatewaySubscriptionId,
    amount: checkout.amount,
    currency,
    current_period_start: s.periodStart,
    current_period_end: s.periodEnd,
    trial_end: s.trialEnd,
  };
  recordEvent(tx, checkout.organizationId, 'subscription.created', data);
  if (s.status === 'active') recordEvent(tx, checkout.organizationId, 'subscription.active', data);
  return id;
}

/**
 * The buyer as a customer of the organization: the checkout's customer_id, else its external
 * customer id, else its email. A found customer gets the fields it lacked; a new one gets them all.
 */
async function findOrCreateCustomer(
  tx: EntityManager,
  checkout: CheckoutEntity,
  now: Date,
): Promise<{ customer: CustomerEntity; created: boolean }> {
  const org = checkout.organizationId;
  let customer =
    (checkout.customerId
      ? await tx.findOne(Customer, { id: checkout.customerId, organizationId: org, deletedAt: null })
      : null) ??
    (checkout.externalCustomerId
      ? await tx.findOne(Customer, { externalId: checkout.externalCustomerId, organizationId: org, deletedAt: null })
      : null) ??
    (checkout.customerEmail
      ? await tx.findOne(Customer, {
          email: {
            $ilike: checkout.customerEmail.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_'),
          },
          organizationId: org,
          deletedAt: null,
        })
      : null);
  const taxId = checkout.customerTaxId ? parseTaxId(checkout.customerTaxId) : null;
  if (customer) {
    const patch: Partial<CustomerEntity> = {};
    if (!customer.name && checkout.customerName) patch.name = checkout.customerName;
    if (!customer.taxId && taxId) patch.taxId = taxId;
    if (!customer.billingName && checkout.customerBillingName) patch.billingName = checkout.customerBillingName;
    if (!customer.billingAddress && checkout.customerBillingAddress)
      patch.billingAddress = checkout.customerBillingAddress;
    if (!customer.externalId && checkout.externalCustomerId) patch.externalId = checkout.externalCustomerId;
    const changed = Object.keys(patch).length > 0;
    Object.assign(customer, patch);
    if (changed) {
      customer.updatedAt = now;
      recordEvent(tx, org, 'customer.updated', { id: customer.id, email: customer.email, name: customer.name });
    }
    return { customer, created: false };
  }
  // prepareConfirmation checked the email before any money moved; this is only a guard.
  if (!checkout.customerEmail) {
    throw ApplicationFailure.nonRetryable('The checkout has no customer email', 'MissingCustomerEmail');
  }
  customer = tx.create(Customer, {
    id: uuidv7(),
    organizationId: org,
    email: checkout.customerEmail,
    name: checkout.customerName,
    externalId: checkout.externalCustomerId,
    billingName: checkout.customerBillingName,
    billingAddress: checkout.customerBillingAddress,
    taxId,
    userMetadata: checkout.customerMetadata ?? {},
    emailVerified: false,
    avatarUrl: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });
  await tx.flush();
  return { customer, created: true };
}
