import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { discountByCode } from '../db/catalog/checkout-reads.ts';
import { lockCheckoutForConfirmation, type ConfirmingCheckout } from '../db/checkout/confirmations.ts';
import { transitionCheckout, type CheckoutRow } from '../db/checkout/lifecycle.ts';
import { findCheckoutRow, lockCheckout, updateCheckoutFields } from '../db/checkout/records.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { secondSubscriptionRefused } from '../db/customer/checkout-customers.ts';
import { customerEmailOf } from '../db/customer/checkout-reads.ts';
import { redeemDiscount } from '../db/catalog/discount-redemptions.ts';
import type { StoredConfirmation } from '../db/entities/index.ts';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import {
  applyDiscountCode,
  CHECKOUT_NOT_OPEN,
  CONFIRMATION_INVALID,
  DISCOUNT_REJECTED,
  SUBSCRIPTION_EXISTS,
  type CheckoutStatus,
  type ConfirmCheckoutInput,
  type PaymentSummary,
} from '../domain/checkout.ts';
import {
  addressGaps,
  confirmationRefusal,
  hasFirstAndLastName,
  type ConfirmationGateway,
} from '../domain/checkout-confirmation.ts';
import { boletoRequires, offersPixAutomatico } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { discountRule } from '../domain/discounts.ts';
import type { PreparedConfirmation } from '../contracts/checkout.ts';
import { checkoutRecord } from '../use-cases/schemas/checkouts.ts';
import type { CheckoutActivities } from '../contracts/checkout.ts';

/**
 * The checkout's database steps. Each is one transaction under the checkout's row lock, and each is
 * idempotent: a retried or replayed activity finds its own work done and changes nothing. The
 * status changes go through the repository's guarded transitions (db/checkout/lifecycle.ts).
 */

/** The checkout, locked; a missing one ends the workflow's step for good. */
export async function lockedCheckout(tx: EntityManager, checkoutId: string): Promise<CheckoutRow> {
  const checkout = await lockCheckout(tx, checkoutId);
  if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} not found`, 'CheckoutNotFound');
  return checkout;
}

/** The checkout.updated of a row as written (the update's `returning`: no second read). */
async function checkoutUpdated(tx: EntityManager, row: CheckoutRow): Promise<void> {
  await insertEvents(tx, row.organizationId, [['checkout.updated', checkoutRecord(row)]]);
}

export function createCheckoutRecordActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  const { orm } = deps;
  const gateway: ConfirmationGateway = {
    boletoNeedsAddress: boletoRequires(deps.gateway, 'address'),
    boletoNeedsFullName: boletoRequires(deps.gateway, 'full_name'),
    pixAutomatico: offersPixAutomatico(deps.gateway),
  };

  return {
    async loadCheckout(
      checkoutId: string,
    ): Promise<{ status: CheckoutStatus; expiresAt: string; declineReason: string | null } | null> {
      const checkout = await findCheckoutRow(orm.em.fork(), checkoutId);
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
      return orm.em.fork().transactional(async (tx) => {
        const locked = await lockCheckoutForConfirmation(tx, checkoutId);
        if (!locked) throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} not found`, 'CheckoutNotFound');
        // Confirmed already, or even recorded: this confirmation's own earlier attempt committed (the
        // workflow runs one confirmation at a time, and a workflow task lost with its worker runs the
        // whole confirmation again), so its result stands: the same slot, so the same payment key.
        const c =
          locked.status !== 'confirmed' && locked.status !== 'succeeded'
            ? { ...locked, ...(await confirm(tx, locked, request, leastSlot)) }
            : locked;
        const email =
          c.customerEmail ?? (c.customerId ? await customerEmailOf(tx, c.organizationId, c.customerId) : null);
        refuseInvalidConfirmation(c, request, email, gateway);
        // refuseInvalidConfirmation passed: the e-mail is known.
        return preparedConfirmation(c, email!);
      });
    },

    /** open → expired; false when the checkout had already left open. */
    async expireCheckout(checkoutId: string): Promise<boolean> {
      return orm.em.fork().transactional(async (tx) => {
        await lockedCheckout(tx, checkoutId);
        const expired = await transitionCheckout(tx, checkoutId, 'expire');
        if (!expired) return false;
        await checkoutUpdated(tx, expired);
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
    if (payment) await upsertTransaction(tx, { organizationId: checkout.organizationId, checkoutId }, payment);
    const shown = checkout.gatewayPaymentData;
    const left = await transitionCheckout(tx, checkoutId, to === 'open' ? 'refuse' : 'fail', {
      declineReason: reason,
      gatewayPaymentData: payment ? payment.paymentData : shown ? { ...shown, status: 'failed' } : shown,
    });
    if (left) await checkoutUpdated(tx, left);
  });
}

/**
 * open → confirmed on the row `c`, guarded (open and unexpired): the buyer and any second
 * subscription checked, the discount code applied, the buyer's fields and the next payment slot set,
 * all of it written with its event. The row as written.
 */
async function confirm(
  tx: EntityManager,
  c: ConfirmingCheckout,
  request: ConfirmCheckoutInput,
  leastSlot: number,
): Promise<CheckoutRow> {
  const { buyer } = request;
  const confirmation: StoredConfirmation = {
    payment_method: request.paymentMethod,
    card: request.card,
    installments: request.installments,
    ...(request.pixAutomatico ? { pix_automatico: true } : {}),
  };
  let row = await transitionCheckout(tx, c.id, 'confirm', {
    paymentMethod: request.paymentMethod,
    paymentSlot: Math.max(c.paymentSlot + 1, leastSlot),
    confirmation,
    declineReason: null,
    gatewayPaymentData: null,
    customerEmail: buyer.email ?? c.customerEmail,
    customerName: buyer.name ?? c.customerName,
    customerTaxId: buyer.taxId ?? c.customerTaxId,
    customerBillingAddress: buyer.billingAddress ?? c.customerBillingAddress,
  });
  if (!row) {
    const status = c.status === 'open' ? 'expired' : c.status;
    throw ApplicationFailure.nonRetryable(`Checkout is ${status}`, CHECKOUT_NOT_OPEN);
  }
  await refuseSecondSubscription(tx, c, buyer.email ?? c.customerEmail);
  const discounted = request.discountCode ? await applyCode(tx, c, request.discountCode) : null;
  if (discounted) row = await updateCheckoutFields(tx, c.id, discounted, row.updatedAt);
  await checkoutUpdated(tx, row);
  return row;
}

/**
 * The confirmation's refusals (domain/checkout-confirmation.ts), applied here and only here in the
 * workflow (decision 0062): on the checkout under its lock, the request's buyer fields already on it.
 */
function refuseInvalidConfirmation(
  c: ConfirmingCheckout,
  request: ConfirmCheckoutInput,
  email: string | null,
  gateway: ConfirmationGateway,
): void {
  const refusal = confirmationRefusal(
    {
      request: {
        paymentMethod: request.paymentMethod,
        hasCard: request.card !== null,
        installments: request.installments,
        // As confirmed: a run resumed on a confirmed checkout asks again without the buyer's request.
        pixAutomatico: optedIntoPixAutomatico(c),
      },
      pixAutomatico: c.recurrenceBilling === 'pix_automatico',
      optIn: {
        price: {
          id: c.productPriceId,
          type: c.priceType,
          interval: c.priceInterval,
          intervalCount: c.priceIntervalCount,
        },
        recurrenceBilling: c.recurrenceBilling,
        trial: c.trialInterval !== null,
        ofSubscription: c.subscriptionId !== null,
      },
      price: { type: c.priceType, interval: c.priceInterval },
      buyer: {
        hasEmail: Boolean(email),
        hasName: Boolean(c.customerName),
        hasTaxId: Boolean(c.customerTaxId),
        hasAddress: c.customerBillingAddress !== null,
        addressRequired: c.requireBillingAddress,
        hasFullName: hasFirstAndLastName(c.customerName),
        addressLacks: addressGaps(c.customerBillingAddress),
      },
    },
    gateway,
  );
  if (refusal) {
    // The refusal's status and code travel with it, so the API answers as its early check would.
    const { status, code, detail } = refusal;
    throw ApplicationFailure.nonRetryable(refusal.message, CONFIRMATION_INVALID, { status, code, detail });
  }
}

/** What the workflow charges and records, from the confirmed row. */
function preparedConfirmation(c: ConfirmingCheckout, email: string): PreparedConfirmation {
  return {
    amount: c.amount,
    currency: c.currency,
    noFeesInstallments: c.noFeesInstallments,
    expiresAt: c.expiresAt.toISOString(),
    buyer: { email, name: c.customerName, taxId: c.customerTaxId, address: c.customerBillingAddress },
    priceId: c.productPriceId,
    renewal:
      c.subscriptionId && c.renewalPeriod !== null
        ? { subscriptionId: c.subscriptionId, period: c.renewalPeriod }
        : null,
    upgrade: c.subscriptionId && c.renewalPeriod === null ? { subscriptionId: c.subscriptionId } : null,
    customerId: c.customerId,
    slot: c.paymentSlot,
    recurring:
      c.priceType === 'recurring' && c.priceInterval
        ? {
            interval: c.priceInterval,
            intervalCount: c.priceIntervalCount ?? 1,
            trial:
              c.trialInterval && c.trialIntervalCount
                ? { interval: c.trialInterval, count: c.trialIntervalCount }
                : null,
            // The buyer's Pix Automático bills the subscription by its mandate (decision 0096's opt-in).
            billing: optedIntoPixAutomatico(c) ? 'pix_automatico' : c.recurrenceBilling,
          }
        : null,
  };
}

/** The confirmation on the checkout is the buyer's choice of Pix Automático for its pix. */
export const optedIntoPixAutomatico = (c: { confirmation: StoredConfirmation | null }): boolean =>
  c.confirmation?.pix_automatico === true;

/**
 * The buyer is known now (the email at the latest): a customer with a live subscription cannot buy
 * another recurring price where the organization allows one. Refused before any money moves; the
 * checkout stays open. The sale checks again under the customer's lock (activities/checkout-sale.ts).
 */
async function refuseSecondSubscription(tx: EntityManager, c: ConfirmingCheckout, email: string | null): Promise<void> {
  if (c.priceType !== 'recurring') return; // one-time sales, the hot path, read nothing more
  const buyer = { customerId: c.customerId, externalCustomerId: c.externalCustomerId, email };
  // A renewal or an upgrade pays the subscription the customer has.
  const renewal = c.subscriptionId !== null;
  if (await secondSubscriptionRefused(tx, c.organizationId, buyer, { renewal })) {
    throw ApplicationFailure.nonRetryable('The customer already has a subscription', SUBSCRIPTION_EXISTS);
  }
}

/**
 * A discount code applied at payment time (domain/checkout.ts decides), its redemption counted once.
 * The checkout's new discount and amount, or null when the code is the one it already carries.
 */
async function applyCode(
  tx: EntityManager,
  c: ConfirmingCheckout,
  code: string,
): Promise<{ discountId: string; discountAmount: number; amount: number } | null> {
  const discount = await discountByCode(tx, c.organizationId, code);
  const applied = applyDiscountCode(
    {
      allowDiscountCodes: c.allowDiscountCodes,
      discountId: c.discountId,
      subtotalAmount: c.subtotalAmount,
      productId: c.productId,
      currency: c.currency,
    },
    discount ? { id: discount.id, ...discountRule(discount) } : null,
    new Date(),
  );
  if (!applied.ok) throw discountRejected(applied.reason);
  if (!applied.changed) return null;
  if ((await redeemDiscount(tx, applied.discountId, c.id)) === 'exhausted') {
    throw discountRejected('exhausted');
  }
  return { discountId: applied.discountId, discountAmount: applied.discountAmount, amount: applied.amount };
}

const discountRejected = (reason: string) =>
  ApplicationFailure.create({
    message: `Discount code rejected: ${reason}`,
    type: DISCOUNT_REJECTED,
    nonRetryable: true,
    details: [reason],
  });
