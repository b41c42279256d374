import { LockMode, type InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { redeemDiscount } from '../db/discount-redemptions.ts';
import { Checkout, Customer, Discount, Price } from '../db/entities/index.ts';
import { recordEvent } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { upsertTransaction } from '../db/transactions.ts';
import {
  applyDiscountCode,
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_INVALID,
  DISCOUNT_REJECTED,
  type CheckoutStatus,
  type ConfirmCheckoutInput,
  type PaymentSummary,
} from '../domain/checkout.ts';
import type { PeriodInterval } from '../domain/periods.ts';
import { discountRule } from '../domain/discounts.ts';

/**
 * The checkout's database steps. Each is one transaction under the checkout's row lock, and each is
 * idempotent: a retried or replayed activity finds its own work done and changes nothing.
 */

type CheckoutEntity = InferEntity<typeof Checkout>;

/** What a confirmation fixed: the amount to charge and everything the recording will need. */
export interface PreparedConfirmation {
  amount: number;
  currency: string;
  noFeesInstallments: boolean;
  expiresAt: string;
  buyer: { email: string; name: string | null; taxId: string | null };
  priceId: string;
  /** A recurring price's interval and the checkout's trial; null for a one-time price. */
  recurring: {
    interval: PeriodInterval;
    intervalCount: number;
    trial: { interval: PeriodInterval; count: number } | null;
    billing: 'gateway' | 'manual';
  } | null;
}

export function wireCheckout(c: CheckoutEntity) {
  return {
    id: c.id,
    status: c.status,
    amount: c.amount,
    currency: c.currency,
    payment_method: c.paymentMethod ?? null,
    customer_id: c.customerId ?? null,
    decline_reason: c.declineReason ?? null,
    ...(c.gatewayPaymentData ? { gateway_payment_data: c.gatewayPaymentData } : {}),
  };
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

  /** confirmed → `to` (open after a decline, failed for good), with the payment that was refused. */
  async function leaveConfirmed(
    checkoutId: string,
    to: 'open' | 'failed',
    reason: string,
    payment: PaymentSummary | null,
  ): Promise<void> {
    await orm.em.fork().transactional(async (tx) => {
      const checkout = await lockedCheckout(tx, checkoutId);
      if (payment) {
        await upsertTransaction(tx, { organizationId: checkout.organizationId, checkoutId }, payment);
      }
      if (checkout.status !== 'confirmed') return;
      checkout.status = to;
      checkout.declineReason = reason;
      if (payment) checkout.gatewayPaymentData = payment.paymentData;
      else if (checkout.gatewayPaymentData)
        checkout.gatewayPaymentData = { ...checkout.gatewayPaymentData, status: 'failed' };
      checkout.updatedAt = new Date();
      recordEvent(tx, checkout.organizationId, 'checkout.updated', wireCheckout(checkout));
    });
  }

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
    async prepareConfirmation(checkoutId: string, request: ConfirmCheckoutInput): Promise<PreparedConfirmation> {
      return orm.em.fork().transactional(async (tx) => {
        const checkout = await lockedCheckout(tx, checkoutId);
        // Confirmed already: this activity's own earlier attempt committed (the workflow runs one
        // confirmation at a time), so its result stands.
        if (checkout.status !== 'confirmed') {
          if (checkout.status !== 'open' || checkout.expiresAt.getTime() <= Date.now()) {
            const status = checkout.status === 'open' ? 'expired' : checkout.status;
            throw ApplicationFailure.nonRetryable(`Checkout is ${status}`, CHECKOUT_NOT_OPEN);
          }
          if (request.discountCode) await applyCode(tx, checkout, request.discountCode);
          const { buyer } = request;
          if (buyer.email) checkout.customerEmail = buyer.email;
          if (buyer.name) checkout.customerName = buyer.name;
          if (buyer.taxId) checkout.customerTaxId = buyer.taxId;
          checkout.status = 'confirmed';
          checkout.paymentMethod = request.paymentMethod;
          checkout.declineReason = null;
          checkout.gatewayPaymentData = null;
          checkout.updatedAt = new Date();
          recordEvent(tx, checkout.organizationId, 'checkout.updated', wireCheckout(checkout));
        }
        const email = checkout.customerEmail ?? (await customerEmail(tx, checkout));
        if (!email) {
          throw ApplicationFailure.nonRetryable('The checkout has no customer email', CONFIRMATION_INVALID);
        }
        if (request.paymentMethod === 'boleto' && !(checkout.customerName && checkout.customerTaxId)) {
          throw ApplicationFailure.nonRetryable('A boleto needs the buyer name and tax id', CONFIRMATION_INVALID);
        }
        const price = await tx.findOneOrFail(Price, { id: checkout.productPriceId });
        return {
          amount: Number(checkout.amount),
          currency: checkout.currency,
          noFeesInstallments: checkout.noFeesInstallments,
          expiresAt: checkout.expiresAt.toISOString(),
          buyer: { email, name: checkout.customerName ?? null, taxId: checkout.customerTaxId ?? null },
          priceId: price.id,
          recurring:
            price.type === 'recurring' && price.interval
              ? {
                  interval: price.interval,
                  intervalCount: price.intervalCount ?? 1,
                  trial:
                    checkout.trialInterval && checkout.trialIntervalCount
                      ? { interval: checkout.trialInterval, count: checkout.trialIntervalCount }
                      : null,
                  billing: checkout.recurrenceBilling,
                }
              : null,
        };
      });
    },

    /** open → expired; false when the checkout had already left open. */
    async expireCheckout(checkoutId: string): Promise<boolean> {
      return orm.em.fork().transactional(async (tx) => {
        const checkout = await lockedCheckout(tx, checkoutId);
        if (checkout.status !== 'open') return false;
        checkout.status = 'expired';
        checkout.updatedAt = new Date();
        recordEvent(tx, checkout.organizationId, 'checkout.updated', wireCheckout(checkout));
        return true;
      });
    },

    /** A refused payment: the checkout is open again for another try, with the reason. */
    async reopenCheckout(checkoutId: string, reason: string, payment: PaymentSummary | null): Promise<void> {
      await leaveConfirmed(checkoutId, 'open', reason, payment);
    },

    /** The checkout ends failed (pix/boleto never paid, attempts exhausted, a capture given back). */
    async failCheckout(checkoutId: string, reason: string, payment: PaymentSummary | null): Promise<void> {
      await leaveConfirmed(checkoutId, 'failed', reason, payment);
    },
  };
}

/** The email of the checkout's named customer, when the checkout itself has none. */
async function customerEmail(tx: EntityManager, checkout: CheckoutEntity): Promise<string | null> {
  if (!checkout.customerId) return null;
  const customer = await tx.findOne(Customer, {
    id: checkout.customerId,
    organizationId: checkout.organizationId,
    deletedAt: null,
  });
  return customer?.email ?? null;
}

/** A discount code applied at payment time (domain/checkout.ts decides), its redemption counted once. */
async function applyCode(tx: EntityManager, checkout: CheckoutEntity, code: string): Promise<void> {
  const [found] = await tx.execute<{ id: string }[]>(
    'select id from discounts where organization_id = ? and upper(code) = upper(?) and deleted_at is null',
    [checkout.organizationId, code],
  );
  const discount = found ? await tx.findOneOrFail(Discount, { id: found.id }) : null;
  const applied = applyDiscountCode(
    {
      allowDiscountCodes: checkout.allowDiscountCodes,
      discountId: checkout.discountId ?? null,
      subtotalAmount: Number(checkout.subtotalAmount),
      productId: checkout.productId,
      currency: checkout.currency,
    },
    discount ? { id: discount.id, ...discountRule(discount) } : null,
    new Date(),
  );
  if (!applied.ok) throw discountRejected(applied.reason);
  if (!applied.changed) return;
  if ((await redeemDiscount(tx, applied.discountId, checkout.id)) === 'exhausted') throw discountRejected('exhausted');
  checkout.discountId = applied.discountId;
  checkout.discountAmount = applied.discountAmount;
  checkout.amount = applied.amount;
}

const discountRejected = (reason: string) =>
  ApplicationFailure.create({
    message: `Discount code rejected: ${reason}`,
    type: DISCOUNT_REJECTED,
    nonRetryable: true,
    details: [reason],
  });
