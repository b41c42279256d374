import type { InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import { uuidv7 } from 'uuidv7';
import { recordEvent } from '../db/events.ts';
import { Checkout, Customer, Price, storedCard } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { addInterval, isoDate } from '../domain/periods.ts';
import { parseTaxId } from '../domain/tax-id.ts';
import {
  GatewayError,
  type BuyerInput,
  type GatewayTransaction,
  type PaymentGateway,
  type TransactionStatus,
} from '../gateway/port.ts';
import type { CheckoutStatus, ConfirmBuyer } from '../workflows/checkout.ts';
import { BOLETO_GRACE_DAYS } from '../gateway/payment-documents.ts';
import { ensureRecurrencePlan } from './recurrence-plans.ts';

export interface CheckoutActivityDeps {
  orm: Orm;
  gateway: PaymentGateway;
}

/** Gateway idempotency keys: the checkout and the business step, never a Temporal attempt number. */
export const checkoutKeys = {
  charge: (checkoutId: string, attempt: number) => `checkout:${checkoutId}:charge:${attempt}`,
  capture: (checkoutId: string, attempt: number) => `checkout:${checkoutId}:capture:${attempt}`,
  pix: (checkoutId: string, attempt: number) => `checkout:${checkoutId}:pix:${attempt}`,
  boleto: (checkoutId: string, attempt: number) => `checkout:${checkoutId}:boleto:${attempt}`,
  cancel: (checkoutId: string, transactionId: string) => `checkout:${checkoutId}:cancel:${transactionId}`,
  buyer: (checkoutId: string) => `checkout:${checkoutId}:buyer`,
  subscription: (checkoutId: string) => `checkout:${checkoutId}:subscription`,
};

/** A pix is valid until the checkout would have expired, and never longer than this. */
const PIX_MAX_VALIDITY_SECONDS = 30 * 60;
/** A boleto falls due this many days after it is issued. */
const BOLETO_DUE_DAYS = 3;

type Row = Record<string, unknown>;

/**
 * A gateway failure as Temporal should see it: GatewayError is retried by the workflow's retry
 * policy; GatewayRefusal (a definite refusal) is listed in its nonRetryableErrorTypes.
 */
async function callGateway<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof GatewayError) {
      throw ApplicationFailure.create({
        message: err.message,
        type: err.retryable ? 'GatewayError' : 'GatewayRefusal',
      });
    }
    throw err;
  }
}

type CheckoutEntity = InferEntity<typeof Checkout>;
type CustomerEntity = InferEntity<typeof Customer>;

function wireCheckout(c: CheckoutEntity) {
  return {
    id: c.id,
    status: c.status,
    amount: c.amount,
    currency: c.currency,
    payment_method: c.paymentMethod ?? null,
    customer_id: c.customerId ?? null,
    decline_reason: c.declineReason ?? null,
  };
}

/** The checkout's gateway_payment_data: the spec's four fields, plus what a pix/boleto buyer needs to pay. */
function paymentData(t: GatewayTransaction): Record<string, unknown> {
  return {
    transaction_id: t.id,
    status: t.status,
    authorization_code: t.authorizationCode,
    installments: t.installments,
    ...(t.pix ? { pix: { qr_code: t.pix.qrCode, qr_code_image: t.pix.qrCodeImage, expires_at: t.pix.expiresAt } } : {}),
    ...(t.boleto
      ? {
          boleto: {
            barcode: t.boleto.barcode,
            digitable_line: t.boleto.digitableLine,
            due_date: t.boleto.dueDate,
            url: t.boleto.url,
          },
        }
      : {}),
  };
}

/** Records (or refreshes) our copy of a gateway transaction. Of a card, only what DESIGN.md allows is kept. */
async function upsertTransaction(
  em: EntityManager,
  checkout: { id: string; organizationId: string },
  t: GatewayTransaction,
): Promise<string> {
  const now = new Date();
  const rows = await em.execute<Row[]>(
    `insert into transactions (id, organization_id, checkout_id, gateway_transaction_id, status, payment_type, amount,
       currency, installments, card, authorization_code, decline_reason, captured_amount, confirmed_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (gateway_transaction_id) do update set status = excluded.status,
       authorization_code = excluded.authorization_code, decline_reason = excluded.decline_reason,
       captured_amount = greatest(transactions.captured_amount, excluded.captured_amount),
       confirmed_at = coalesce(transactions.confirmed_at, excluded.confirmed_at), updated_at = excluded.updated_at
     returning id`,
    [
      uuidv7(),
      checkout.organizationId,
      checkout.id,
      t.id,
      t.status,
      t.paymentType,
      t.amount,
      t.currency.toUpperCase(),
      t.installments,
      t.card ? JSON.stringify(storedCard(t.card)) : null,
      t.authorizationCode,
      t.declineReason,
      t.capturedAmount,
      t.confirmedAt,
      now,
      now,
    ],
  );
  return rows[0]!.id as string;
}

export function createCheckoutActivities(deps: CheckoutActivityDeps) {
  const { orm, gateway } = deps;

  async function loadOrFail(em: EntityManager, checkoutId: string) {
    const checkout = await em.findOne(Checkout, { id: checkoutId }, { refresh: true });
    if (!checkout) throw ApplicationFailure.nonRetryable(`Checkout ${checkoutId} not found`, 'CheckoutNotFound');
    return checkout;
  }

  /**
   * open → confirmed with the buyer's fields (only the ones sent; the checkout's own stay otherwise).
   * Idempotent: a retry finds it confirmed already and records no second event.
   */
  async function markConfirmed(checkoutId: string, paymentMethod: string, buyer: ConfirmBuyer) {
    const em = orm.em.fork();
    return em.transactional(async (tx) => {
      const checkout = await loadOrFail(tx, checkoutId);
      if (checkout.status === 'open') {
        checkout.status = 'confirmed';
        checkout.paymentMethod = paymentMethod;
        checkout.declineReason = null;
        if (buyer.email) checkout.customerEmail = buyer.email;
        if (buyer.name) checkout.customerName = buyer.name;
        if (buyer.taxId) checkout.customerTaxId = buyer.taxId;
        checkout.updatedAt = new Date();
        recordEvent(tx, checkout.organizationId, 'checkout.updated', wireCheckout(checkout));
      }
      return checkout;
    });
  }

  /** confirmed → `to` (open after a decline, failed when a pix/boleto was never paid). */
  async function leaveConfirmed(
    checkoutId: string,
    to: 'open' | 'failed',
    reason: string,
    transaction: GatewayTransaction | null,
  ): Promise<void> {
    const em = orm.em.fork();
    await em.transactional(async (tx) => {
      const checkout = await loadOrFail(tx, checkoutId);
      if (transaction) await upsertTransaction(tx, checkout, transaction);
      if (checkout.status !== 'confirmed') return;
      checkout.status = to;
      checkout.declineReason = reason;
      if (transaction) checkout.gatewayPaymentData = paymentData(transaction);
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

    /** open → expired; false when the checkout had already left open. */
    async expireCheckout(checkoutId: string): Promise<boolean> {
      const em = orm.em.fork();
      return em.transactional(async (tx) => {
        const checkout = await loadOrFail(tx, checkoutId);
        if (checkout.status !== 'open') return false;
        checkout.status = 'expired';
        checkout.updatedAt = new Date();
        recordEvent(tx, checkout.organizationId, 'checkout.updated', wireCheckout(checkout));
        return true;
      });
    },

    /**
     * Charges the tokenized card for the checkout's amount (capturing a pre-authorization) and
     * records the transaction. A decline reopens the checkout with its reason. The gateway keys
     * are fixed by the confirmation attempt, so a retried activity gets the first result back.
     */
    async chargeCard(input: {
      checkoutId: string;
      attempt: number;
      cardTokenId: string;
      installments: number;
      buyer: ConfirmBuyer;
    }): Promise<
      | { outcome: 'approved'; gatewayTransactionId: string }
      | { outcome: 'declined'; gatewayTransactionId: string; declineReason: string }
    > {
      const checkout = await markConfirmed(input.checkoutId, 'credit_card', input.buyer);
      let charged = await callGateway(() =>
        gateway.chargeCard(
          {
            reference: checkout.id,
            amount: checkout.amount,
            currency: checkout.currency,
            installments: input.installments,
            noFeesInstallments: checkout.noFeesInstallments,
            card: { token: input.cardTokenId },
            capture: true,
          },
          checkoutKeys.charge(checkout.id, input.attempt),
        ),
      );
      if (charged.status === 'pre_authorized') {
        charged = await callGateway(() =>
          gateway.capture(charged.id, null, checkoutKeys.capture(checkout.id, input.attempt)),
        );
      }
      if (charged.status !== 'succeeded') {
        const reason = charged.declineReason ?? 'card_declined';
        await leaveConfirmed(checkout.id, 'open', reason, charged);
        return { outcome: 'declined', gatewayTransactionId: charged.id, declineReason: reason };
      }
      await upsertTransaction(orm.em.fork(), checkout, charged);
      return { outcome: 'approved', gatewayTransactionId: charged.id };
    },

    /** Issues the pix or boleto and shows it on the checkout (status confirmed, payment in flight). */
    async issuePendingPayment(input: {
      checkoutId: string;
      attempt: number;
      kind: 'pix' | 'boleto';
      buyer: ConfirmBuyer;
    }): Promise<{ gatewayTransactionId: string; payBy: string }> {
      const checkout = await markConfirmed(input.checkoutId, input.kind, input.buyer);
      const buyer: BuyerInput = {
        email: checkout.customerEmail ?? '',
        name: checkout.customerName,
        taxId: checkout.customerTaxId,
      };
      const now = Date.now();
      let issued: GatewayTransaction;
      let payBy: Date;
      if (input.kind === 'pix') {
        const untilExpiry = Math.ceil((checkout.expiresAt.getTime() - now) / 1000);
        issued = await callGateway(() =>
          gateway.createPixCharge(
            {
              reference: checkout.id,
              amount: checkout.amount,
              currency: checkout.currency,
              buyer: buyer.email ? buyer : null,
              expiresInSeconds: Math.min(Math.max(untilExpiry, 1), PIX_MAX_VALIDITY_SECONDS),
            },
            checkoutKeys.pix(checkout.id, input.attempt),
          ),
        );
        payBy = new Date(issued.pix!.expiresAt);
      } else {
        issued = await callGateway(() =>
          gateway.createBoleto(
            {
              reference: checkout.id,
              amount: checkout.amount,
              currency: checkout.currency,
              buyer,
              dueDate: isoDate(addInterval(new Date(now), 'day', BOLETO_DUE_DAYS)),
            },
            checkoutKeys.boleto(checkout.id, input.attempt),
          ),
        );
        // Payable through the due date and the grace days after it (UTC), as the gateway counts them.
        payBy = addInterval(new Date(`${issued.boleto!.dueDate}T00:00:00Z`), 'day', BOLETO_GRACE_DAYS + 1);
      }
      const em = orm.em.fork();
      await em.transactional(async (tx) => {
        await upsertTransaction(tx, checkout, issued);
        const current = await loadOrFail(tx, checkout.id);
        if (current.status !== 'confirmed') return;
        current.gatewayPaymentData = paymentData(issued);
        current.updatedAt = new Date();
        recordEvent(tx, current.organizationId, 'checkout.updated', {
          ...wireCheckout(current),
          gateway_payment_data: current.gatewayPaymentData,
        });
      });
      return { gatewayTransactionId: issued.id, payBy: payBy.toISOString() };
    },

    /** The gateway's word on a transaction, copied into our transactions table. */
    async syncPayment(gatewayTransactionId: string): Promise<{ status: TransactionStatus }> {
      const t = await callGateway(() => gateway.getTransaction(gatewayTransactionId));
      if (!t)
        throw ApplicationFailure.nonRetryable(
          `Gateway has no transaction ${gatewayTransactionId}`,
          'UnknownTransaction',
        );
      const em = orm.em.fork();
      await em.execute(
        'update transactions set status = ?, captured_amount = ?, confirmed_at = coalesce(confirmed_at, ?), updated_at = ? where gateway_transaction_id = ?',
        [t.status, t.capturedAmount, t.confirmedAt, new Date(), t.id],
      );
      return { status: t.status };
    },

    /** Voids an unpaid pix/boleto past its deadline; if it was paid meanwhile, says so instead. */
    async cancelPendingPayment(
      checkoutId: string,
      gatewayTransactionId: string,
    ): Promise<{ status: TransactionStatus }> {
      try {
        const t = await gateway.cancel(gatewayTransactionId, checkoutKeys.cancel(checkoutId, gatewayTransactionId));
        return { status: t.status };
      } catch (err) {
        if (!(err instanceof GatewayError) || err.retryable) throw err;
        const t = await callGateway(() => gateway.getTransaction(gatewayTransactionId));
        return { status: t?.status ?? 'failed' };
      }
    },

    async reopenCheckout(checkoutId: string, reason: string): Promise<void> {
      await leaveConfirmed(checkoutId, 'open', reason, null);
    },

    async failCheckout(checkoutId: string, reason: string): Promise<void> {
      await leaveConfirmed(checkoutId, 'failed', reason, null);
    },

    /**
     * Everything a paid checkout leads to, in one database transaction: the customer (found or
     * created), the transaction, the subscription of a recurring price, the sale, the checkout
     * succeeded, and their events. Repeating it changes nothing: a succeeded checkout returns
     * what was recorded, the gateway subscription is keyed by the checkout, the sale and the
     * subscription are unique per checkout.
     */
    async completeCheckout(input: {
      checkoutId: string;
      gatewayTransactionId: string;
      cardTokenId: string | null;
    }): Promise<{ customerId: string; subscriptionId: string | null; saleId: string }> {
      const em = orm.em.fork();
      const checkout = await loadOrFail(em, input.checkoutId);
      if (checkout.status === 'succeeded') {
        const [sale] = await em.execute<Row[]>(
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
      const paid = await callGateway(() => gateway.getTransaction(input.gatewayTransactionId));
      if (!paid || paid.status !== 'succeeded') {
        throw ApplicationFailure.nonRetryable(`Transaction ${input.gatewayTransactionId} is not paid`, 'NotPaid');
      }
      const price = await em.findOneOrFail(Price, { id: checkout.productPriceId });
      const now = new Date();

      // The recurring part: periods, and the gateway subscription (keyed by the checkout) outside
      // the database transaction, since it is a remote call.
      let subscription: {
        status: 'active' | 'trialing';
        periodEnd: Date;
        trialEnd: Date | null;
        gatewayId: string | null;
      } | null = null;
      if (price.type === 'recurring' && price.interval) {
        const trialEnd =
          checkout.trialInterval && checkout.trialIntervalCount
            ? addInterval(now, checkout.trialInterval, checkout.trialIntervalCount)
            : null;
        const periodEnd = trialEnd ?? addInterval(now, price.interval, price.intervalCount ?? 1);
        let gatewayId: string | null = null;
        if (checkout.recurrenceBilling === 'gateway' && input.cardTokenId) {
          const planId = price.gatewayRecurrencePlanId ?? (await ensureRecurrencePlan(deps, price.id));
          if (planId) {
            const buyer = await callGateway(() =>
              gateway.createBuyer(
                { email: checkout.customerEmail ?? '', name: checkout.customerName, taxId: checkout.customerTaxId },
                checkoutKeys.buyer(checkout.id),
              ),
            );
            const cardTokenId = input.cardTokenId;
            const created = await callGateway(() =>
              gateway.createSubscription(
                {
                  reference: checkout.id,
                  planId,
                  buyerId: buyer.id,
                  cardToken: cardTokenId,
                  startDate: isoDate(periodEnd),
                },
                checkoutKeys.subscription(checkout.id),
              ),
            );
            gatewayId = created.id;
          }
        }
        subscription = { status: trialEnd ? 'trialing' : 'active', periodEnd, trialEnd, gatewayId };
      }

      return em.fork().transactional(async (tx) => {
        const current = await tx.findOneOrFail(Checkout, { id: checkout.id }, { refresh: true });
        const { customer, created } = await findOrCreateCustomer(tx, current, now);
        if (created) {
          recordEvent(tx, current.organizationId, 'customer.created', {
            id: customer.id,
            email: customer.email,
            name: customer.name ?? null,
            external_id: customer.externalId ?? null,
          });
        }
        const transactionId = await upsertTransaction(tx, current, paid);

        let subscriptionId: string | null = null;
        if (subscription) {
          const inserted = await tx.execute<Row[]>(
            `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, checkout_id, status,
               recurrence_billing, gateway_subscription_id, amount, currency, discount_id, current_period_start,
               current_period_end, trial_end, created_at)
             values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             on conflict (checkout_id) do nothing returning id`,
            [
              uuidv7(),
              current.organizationId,
              customer.id,
              current.productId,
              price.id,
              current.id,
              subscription.status,
              current.recurrenceBilling,
              subscription.gatewayId,
              current.amount,
              price.currency,
              current.discountId,
              now,
              subscription.periodEnd,
              subscription.trialEnd,
              now,
            ],
          );
          if (inserted[0]) {
            subscriptionId = inserted[0].id as string;
            const data = {
              id: subscriptionId,
              status: subscription.status,
              customer_id: customer.id,
              product_id: current.productId,
              price_id: price.id,
              checkout_id: current.id,
              gateway_subscription_id: subscription.gatewayId,
              amount: current.amount,
              currency: price.currency,
              current_period_start: now.toISOString(),
              current_period_end: subscription.periodEnd.toISOString(),
              trial_end: subscription.trialEnd?.toISOString() ?? null,
            };
            recordEvent(tx, current.organizationId, 'subscription.created', data);
            if (subscription.status === 'active') recordEvent(tx, current.organizationId, 'subscription.active', data);
          } else {
            const [existing] = await tx.execute<Row[]>('select id from subscriptions where checkout_id = ?', [
              current.id,
            ]);
            subscriptionId = existing!.id as string;
          }
        }

        const saleId = uuidv7();
        const sale = await tx.execute<Row[]>(
          `insert into sales (id, organization_id, checkout_id, transaction_id, customer_id, product_id, price_id,
             subscription_id, discount_id, currency, subtotal_amount, discount_amount, amount, installments,
             payment_method, status, created_at, updated_at)
           values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'paid', ?, ?)
           on conflict (checkout_id) do nothing returning id`,
          [
            saleId,
            current.organizationId,
            current.id,
            transactionId,
            customer.id,
            current.productId,
            price.id,
            subscriptionId,
            current.discountId,
            current.currency,
            current.subtotalAmount,
            current.discountAmount,
            current.amount,
            paid.installments,
            current.paymentMethod ?? 'credit_card',
            now,
            now,
          ],
        );
        if (sale[0]) {
          const data = {
            id: saleId,
            checkout_id: current.id,
            customer_id: customer.id,
            product_id: current.productId,
            price_id: price.id,
            subscription_id: subscriptionId,
            currency: current.currency,
            subtotal_amount: current.subtotalAmount,
            discount_amount: current.discountAmount,
            amount: current.amount,
            installments: paid.installments,
            payment_method: current.paymentMethod,
            status: 'paid',
          };
          recordEvent(tx, current.organizationId, 'sale.created', data);
          recordEvent(tx, current.organizationId, 'sale.paid', data);
        }
        if (current.status !== 'succeeded') {
          current.status = 'succeeded';
          current.customerId = customer.id;
          current.subscriptionId = current.subscriptionId ?? subscriptionId;
          current.declineReason = null;
          current.gatewayPaymentData = paymentData(paid);
          current.updatedAt = now;
          recordEvent(tx, current.organizationId, 'checkout.updated', {
            ...wireCheckout(current),
            gateway_payment_data: current.gatewayPaymentData,
          });
        }
        const [saleRow] = await tx.execute<Row[]>('select id from sales where checkout_id = ?', [current.id]);
        return { customerId: customer.id, subscriptionId, saleId: saleRow!.id as string };
      });
    },
  };
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
