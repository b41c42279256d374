import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { secondSubscriptionRefused } from '../db/checkout-customers.ts';
import { redeemDiscount } from '../db/discount-redemptions.ts';
import { Checkout, Discount } from '../db/entities/index.ts';
import { insertEvents, recordEvent } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { executorOf, plainSql, sqlIn, type Row, type SqlExecutor } from '../db/plain-sql.ts';
import { upsertTransaction } from '../db/transactions.ts';
import {
  applyDiscountCode,
  CHECKOUT_NOT_OPEN,
  checkoutTransition,
  CONFIRMATION_INVALID,
  DISCOUNT_REJECTED,
  SUBSCRIPTION_EXISTS,
  type CheckoutStatus,
  type BuyerAddress,
  type ConfirmCheckoutInput,
  type PaymentSummary,
} from '../domain/checkout.ts';
import { buyerRefusal, paymentRefusal } from '../domain/checkout-confirmation.ts';
import type { PeriodInterval } from '../domain/periods.ts';
import { discountRule } from '../domain/discounts.ts';
import type { PreparedConfirmation } from '../contracts/checkout.ts';
import { checkoutRecord } from '../use-cases/schemas/checkouts.ts';
import { checkoutRecordOf } from './event-records.ts';
import type { CheckoutActivities } from '../contracts/checkout.ts';

/**
 * The checkout's database steps. Each is one transaction under the checkout's row lock, and each is
 * idempotent: a retried or replayed activity finds its own work done and changes nothing.
 */

type CheckoutEntity = InferEntity<typeof Checkout>;

/** What a confirmation asked the gateway for, kept on the checkout (its `confirmation` column). */
interface StoredConfirmation {
  payment_method: ConfirmCheckoutInput['paymentMethod'];
  card: ConfirmCheckoutInput['card'];
  installments: number;
}

export async function lockedCheckout(tx: EntityManager, checkoutId: string): Promise<CheckoutEntity> {
  const checkout = await tx.findOne(
    Checkout,
    { id: checkoutId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} not found`, 'CheckoutNotFound');
  return checkout;
}

export function createCheckoutRecordActivities(deps: { orm: Orm }) {
  const { orm } = deps;

  return {
    async loadCheckout(
      checkoutId: string,
    ): Promise<{ status: CheckoutStatus; expiresAt: string; declineReason: string | null } | null> {
      const checkout = await orm.em.fork().findOne(Checkout, { id: checkoutId });
      if (!checkout) return null;
      return {
        status: checkout.status,
        expiresAt: checkout.expiresAt.toISOString(),
        declineReason: checkout.declineReason ?? null,
      };
    },

    /**
     * open → confirmed, fixing what will be charged: the discount code applied (and its redemption
     * counted), the buyer's fields, the payment method. Everything the recording of a payment needs
     * is checked here, before any money moves, so nothing can refuse the record after a capture.
     * The row lock serializes this with the merchant's PATCH, which refuses a checkout that is not open.
     */
    async prepareConfirmation(
      checkoutId: string,
      request: ConfirmCheckoutInput,
      /** The run's own next number: a run from before the number was stored may have counted further. */
      leastSlot = 1,
    ): Promise<PreparedConfirmation> {
      // Plain statements: this runs for every confirmation, and entity tracking would cost more
      // than the statements themselves.
      return plainSql(orm).transaction(async (sql) => {
        const tx = executorOf(sql);
        const c = await lockedPreparingRow(tx, checkoutId);
        // Confirmed already, or even recorded: this confirmation's own earlier attempt committed (the
        // workflow runs one confirmation at a time, and a workflow task lost with its worker runs the
        // whole confirmation again), so its result stands: the same slot, so the same payment key.
        if (c.status !== 'confirmed' && c.status !== 'succeeded') await confirm(orm, tx, c, request, leastSlot);
        const email = c.customer_email ?? (await customerEmail(tx, c));
        refuseInvalidConfirmation(c, request, email);
        // refuseInvalidConfirmation passed: the e-mail is known.
        return preparedConfirmation(c, email!);
      });
    },

    /** open → expired; false when the checkout had already left open. */
    async expireCheckout(checkoutId: string): Promise<boolean> {
      return orm.em.fork().transactional(async (tx) => {
        const checkout = await lockedCheckout(tx, checkoutId);
        const next = checkoutTransition(checkout.status, 'expire');
        if (!next) return false;
        checkout.status = next;
        checkout.updatedAt = new Date();
        recordEvent(tx, checkout.organizationId, 'checkout.updated', checkoutRecord(checkout));
        return true;
      });
    },

    /** A refused payment: the checkout is open again for another try, with the reason. */
    async reopenCheckout(checkoutId: string, reason: string, payment: PaymentSummary | null): Promise<void> {
      await leaveConfirmed(orm, checkoutId, 'open', reason, payment);
    },

    /** The checkout ends failed (pix/boleto never paid, attempts exhausted, a capture given back). */
    async failCheckout(checkoutId: string, reason: string, payment: PaymentSummary | null): Promise<void> {
      await leaveConfirmed(orm, checkoutId, 'failed', reason, payment);
    },
  } satisfies Partial<CheckoutActivities>;
}

/** confirmed → `to` (open after a decline, failed for good), with the payment that was refused. */
async function leaveConfirmed(
  orm: Orm,
  checkoutId: string,
  to: 'open' | 'failed',
  reason: string,
  payment: PaymentSummary | null,
): Promise<void> {
  await orm.em.fork().transactional(async (tx) => {
    const checkout = await lockedCheckout(tx, checkoutId);
    if (payment) {
      await upsertTransaction(executorOf(sqlIn(tx)), { organizationId: checkout.organizationId, checkoutId }, payment);
    }
    const next = checkoutTransition(checkout.status, to === 'open' ? 'refuse' : 'fail');
    if (!next) return;
    checkout.status = next;
    checkout.declineReason = reason;
    if (payment) checkout.gatewayPaymentData = payment.paymentData;
    else if (checkout.gatewayPaymentData)
      checkout.gatewayPaymentData = { ...checkout.gatewayPaymentData, status: 'failed' };
    checkout.updatedAt = new Date();
    recordEvent(tx, checkout.organizationId, 'checkout.updated', checkoutRecord(checkout));
  });
}

/** The checkout's row with its price's terms, as prepareConfirmation reads it (bigints as strings). */
interface PreparingRow {
  id: string;
  organization_id: string;
  status: CheckoutStatus;
  expires_at: Date | string;
  product_id: string;
  product_price_id: string;
  currency: string;
  subtotal_amount: string;
  discount_amount: string | number;
  amount: string | number;
  discount_id: string | null;
  allow_discount_codes: boolean;
  no_fees_installments: boolean;
  customer_id: string | null;
  external_customer_id: string | null;
  customer_email: string | null;
  customer_name: string | null;
  customer_tax_id: string | null;
  customer_billing_address: BuyerAddress | null;
  require_billing_address: boolean;
  payment_method: string | null;
  payment_slot: number;
  trial_interval: PeriodInterval | null;
  trial_interval_count: number | null;
  recurrence_billing: 'gateway' | 'manual';
  subscription_id: string | null;
  renewal_period: number | null;
  price_type: 'one_time' | 'recurring';
  price_interval: PeriodInterval | null;
  price_interval_count: number | null;
}

/** The checkout's row with its price's terms, locked for this confirmation. */
async function lockedPreparingRow(tx: SqlExecutor, checkoutId: string): Promise<PreparingRow> {
  const [c] = await tx.execute<PreparingRow[]>(
    `select c.*, p.type as price_type, p.interval as price_interval, p.interval_count as price_interval_count
     from checkouts c join prices p on p.id = c.product_price_id where c.id = ? for update of c`,
    [checkoutId],
  );
  if (!c) throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} not found`, 'CheckoutNotFound');
  return c;
}

/**
 * open → confirmed on the row `c`: the buyer and any second subscription checked, the discount code
 * applied, the buyer's fields and the next payment slot set, and all of it written with its event.
 */
async function confirm(
  orm: Orm,
  tx: SqlExecutor,
  c: PreparingRow,
  request: ConfirmCheckoutInput,
  leastSlot: number,
): Promise<void> {
  const confirmed = checkoutTransition(c.status, 'confirm');
  if (!confirmed || new Date(c.expires_at).getTime() <= Date.now()) {
    const status = c.status === 'open' ? 'expired' : c.status;
    throw ApplicationFailure.nonRetryable(`Checkout is ${status}`, CHECKOUT_NOT_OPEN);
  }
  await refuseSecondSubscription(tx, c, request.buyer.email ?? c.customer_email);
  const discounted = request.discountCode ? await applyCode(orm, tx, c, request.discountCode) : null;
  if (discounted) Object.assign(c, discounted);
  const { buyer } = request;
  c.customer_email = buyer.email ?? c.customer_email;
  c.customer_name = buyer.name ?? c.customer_name;
  c.customer_tax_id = buyer.taxId ?? c.customer_tax_id;
  c.customer_billing_address = buyer.billingAddress ?? c.customer_billing_address;
  c.status = confirmed;
  c.payment_method = request.paymentMethod;
  c.payment_slot = Math.max(c.payment_slot + 1, leastSlot);
  await storeConfirmation(orm, tx, c, request);
}

/** The confirmed row written, with its checkout.updated. */
async function storeConfirmation(
  orm: Orm,
  tx: SqlExecutor,
  c: PreparingRow,
  request: ConfirmCheckoutInput,
): Promise<void> {
  const confirmation: StoredConfirmation = {
    payment_method: request.paymentMethod,
    card: request.card,
    installments: request.installments,
  };
  // The row as written is the event's record: no second read.
  const [row] = await tx.execute<Row[]>(
    `update checkouts set status = ?, payment_method = ?, payment_slot = ?, confirmation = ?,
       decline_reason = null, gateway_payment_data = null, customer_email = ?, customer_name = ?,
       customer_tax_id = ?, customer_billing_address = ?::jsonb, discount_id = ?, discount_amount = ?, amount = ?, updated_at = ?
     where id = ? returning *`,
    [
      c.status,
      c.payment_method,
      c.payment_slot,
      JSON.stringify(confirmation),
      c.customer_email,
      c.customer_name,
      c.customer_tax_id,
      c.customer_billing_address === null ? null : JSON.stringify(c.customer_billing_address),
      c.discount_id,
      c.discount_amount,
      c.amount,
      new Date(),
      c.id,
    ],
  );
  await insertEvents(tx, c.organization_id, [['checkout.updated', checkoutRecordOf(orm, row!)]]);
}

/** The payment method, installments and buyer the confirmation needs (domain/checkout-confirmation.ts). */
function refuseInvalidConfirmation(c: PreparingRow, request: ConfirmCheckoutInput, email: string | null): void {
  const price = { type: c.price_type, interval: c.price_interval };
  const hasCard = request.card !== null;
  const refusal =
    paymentRefusal({ paymentMethod: request.paymentMethod, hasCard, installments: request.installments }, price) ??
    buyerRefusal(request.paymentMethod, {
      hasEmail: Boolean(email),
      hasName: Boolean(c.customer_name),
      hasTaxId: Boolean(c.customer_tax_id),
      lacksRequiredAddress: c.require_billing_address && c.customer_billing_address === null,
    });
  if (refusal) throw ApplicationFailure.nonRetryable(refusal.message, CONFIRMATION_INVALID, refusal.detail);
}

/** What the workflow charges and records, from the confirmed row. */
function preparedConfirmation(c: PreparingRow, email: string): PreparedConfirmation {
  return {
    amount: Number(c.amount),
    currency: c.currency,
    noFeesInstallments: c.no_fees_installments,
    expiresAt: new Date(c.expires_at).toISOString(),
    buyer: { email, name: c.customer_name, taxId: c.customer_tax_id, address: c.customer_billing_address },
    priceId: c.product_price_id,
    renewal:
      c.subscription_id && c.renewal_period !== null
        ? { subscriptionId: c.subscription_id, period: c.renewal_period }
        : null,
    upgrade: c.subscription_id && c.renewal_period === null ? { subscriptionId: c.subscription_id } : null,
    slot: c.payment_slot,
    recurring:
      c.price_type === 'recurring' && c.price_interval
        ? {
            interval: c.price_interval,
            intervalCount: c.price_interval_count ?? 1,
            trial:
              c.trial_interval && c.trial_interval_count
                ? { interval: c.trial_interval, count: c.trial_interval_count }
                : null,
            billing: c.recurrence_billing,
          }
        : null,
  };
}

/**
 * The buyer is known now (the email at the latest): a customer with a live subscription cannot buy
 * another recurring price where the organization allows one. Refused before any money moves; the
 * checkout stays open. The sale checks again under the customer's lock (activities/checkout-sale.ts).
 */
async function refuseSecondSubscription(tx: SqlExecutor, c: PreparingRow, email: string | null): Promise<void> {
  if (c.price_type !== 'recurring') return; // one-time sales, the hot path, read nothing more
  const buyer = { customerId: c.customer_id, externalCustomerId: c.external_customer_id, email };
  // A renewal or an upgrade pays the subscription the customer has.
  if (await secondSubscriptionRefused(tx, c.organization_id, buyer, { renewal: c.subscription_id !== null })) {
    throw ApplicationFailure.nonRetryable('The customer already has a subscription', SUBSCRIPTION_EXISTS);
  }
}

/** The email of the checkout's named customer, when the checkout itself has none. */
async function customerEmail(tx: SqlExecutor, c: PreparingRow): Promise<string | null> {
  if (!c.customer_id) return null;
  const [customer] = await tx.execute<{ email: string }[]>(
    'select email from customers where id = ? and organization_id = ? and deleted_at is null',
    [c.customer_id, c.organization_id],
  );
  return customer?.email ?? null;
}

/**
 * A discount code applied at payment time (domain/checkout.ts decides), its redemption counted once.
 * The checkout's new discount and amount, or null when the code is the one it already carries.
 */
async function applyCode(
  orm: Orm,
  tx: SqlExecutor,
  c: PreparingRow,
  code: string,
): Promise<Pick<PreparingRow, 'discount_id' | 'discount_amount' | 'amount'> | null> {
  const [found] = await tx.execute<{ id: string }[]>(
    'select id from discounts where organization_id = ? and upper(code) = upper(?) and deleted_at is null',
    [c.organization_id, code],
  );
  // Its terms, read as an entity (a rare path); the redemption below counts on the transaction.
  const discount = found ? await orm.em.fork().findOneOrFail(Discount, { id: found.id }) : null;
  const applied = applyDiscountCode(
    {
      allowDiscountCodes: c.allow_discount_codes,
      discountId: c.discount_id,
      subtotalAmount: Number(c.subtotal_amount),
      productId: c.product_id,
      currency: c.currency,
    },
    discount ? { id: discount.id, ...discountRule(discount) } : null,
    new Date(),
  );
  if (!applied.ok) throw discountRejected(applied.reason);
  if (!applied.changed) return null;
  if ((await redeemDiscount(tx, applied.discountId, c.id)) === 'exhausted') throw discountRejected('exhausted');
  return { discount_id: applied.discountId, discount_amount: applied.discountAmount, amount: applied.amount };
}

const discountRejected = (reason: string) =>
  ApplicationFailure.create({
    message: `Discount code rejected: ${reason}`,
    type: DISCOUNT_REJECTED,
    nonRetryable: true,
    details: [reason],
  });
