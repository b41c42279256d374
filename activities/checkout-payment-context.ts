import { ApplicationFailure } from '@temporalio/activity';
import { isDeepStrictEqual } from 'node:util';
import type { Config } from '../config/env.ts';
import { checkoutSaleDetails } from '../db/checkout/sale-details.ts';
import { findCheckoutRow, updateCheckoutFields } from '../db/checkout/records.ts';
import { upsertTransaction } from '../db/checkout/transactions.ts';
import { insertEvents } from '../db/events.ts';
import type { Orm } from '../db/orm.ts';
import { CHECKOUT_NOT_OPEN, type BuyerDevice, type PaymentSummary } from '../domain/checkout.ts';
import type { PaymentGateway, SaleDetails } from '../gateway/port.ts';
import { checkoutRecord } from '../use-cases/schemas/checkouts.ts';
import { lockedCheckout } from './checkout-records.ts';

/**
 * What every checkout payment step (checkout-payments.ts, checkout-pending-payments.ts) does around its
 * gateway call: the checkout it may charge, what the gateway is told of the sale, and a payment the
 * buyer waits on shown on the checkout.
 */

/** What the checkout's gateway steps use: the database, the gateway, and how long a card's review is waited for. */
export interface PaymentDeps {
  orm: Orm;
  gateway: PaymentGateway;
  config?: Pick<Config, 'CARD_REVIEW_WAIT_SECONDS'>;
}

/**
 * A charge is made only for a checkout this confirmation holds: one that expired or was paid is
 * refused, unless it was paid by this very slot (a workflow task lost after recording the sale runs
 * the confirmation again, and the slot's key returns the same charge rather than a second one).
 */
export async function assertPayable(orm: Orm, checkoutId: string, slot: number): Promise<void> {
  const row = await findCheckoutRow(orm.em.fork(), checkoutId);
  const paidBySlot = row?.status === 'succeeded' && row.paymentSlot === slot;
  if (row?.status !== 'confirmed' && !paidBySlot) {
    throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} is ${row?.status ?? 'missing'}`, CHECKOUT_NOT_OPEN);
  }
}

/**
 * What the checkout's charge tells the gateway of the sale (decision 0069): the seller, the product
 * for the amount charged, and the buyer's IP address (the confirming request's, else the one the
 * merchant gave) and device id. The checkout knows no phone number.
 */
export async function saleDetailsOf(
  orm: Orm,
  input: { checkoutId: string; amount: number; buyerDevice?: BuyerDevice },
): Promise<SaleDetails> {
  const details = await checkoutSaleDetails(orm.em.fork(), input.checkoutId);
  const product = details?.productName
    ? [{ id: details.productId, title: details.productName, quantity: 1, unitPrice: input.amount }]
    : [];
  return {
    merchantName: details?.sellerName ?? null,
    items: product,
    buyerIp: input.buyerDevice?.ip ?? details?.customerIpAddress ?? null,
    deviceSessionId: input.buyerDevice?.sessionId ?? null,
  };
}

/**
 * A payment the buyer waits on (a pix code or boleto to pay, a card under review) recorded as our
 * transaction and shown on the confirmed checkout: once, with its checkout.updated.
 */
export async function showOnCheckout(orm: Orm, checkoutId: string, payment: PaymentSummary): Promise<void> {
  await orm.em.fork().transactional(async (tx) => {
    const checkout = await lockedCheckout(tx, checkoutId);
    await upsertTransaction(tx, { organizationId: checkout.organizationId, checkoutId }, payment);
    if (checkout.status !== 'confirmed' || isDeepStrictEqual(checkout.gatewayPaymentData, payment.paymentData)) return;
    const shown = await updateCheckoutFields(tx, checkout.id, { gatewayPaymentData: payment.paymentData });
    await insertEvents(tx, shown.organizationId, [['checkout.updated', checkoutRecord(shown)]]);
  });
}
