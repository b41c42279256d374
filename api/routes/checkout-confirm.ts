import { createHash } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Checkout, Discount, Price } from '../../db/entities/index.ts';
import { redeemDiscount } from '../../db/discount-redemptions.ts';
import { recordEvent } from '../../db/events.ts';
import { maxInstallments } from '../../domain/checkout-pricing.ts';
import { discountAmount, discountApplicability } from '../../domain/discounts.ts';
import { parseTaxId } from '../../domain/tax-id.ts';
import { GatewayError, type CardToken } from '../../gateway/port.ts';
import {
  CHECKOUT_NOT_OPEN,
  checkoutStateQuery,
  checkoutWorkflowId,
  confirmCheckoutUpdate,
  CONFIRMATION_IN_PROGRESS,
  type ConfirmCheckoutResult,
} from '../../workflows/checkout.ts';
import type { RouteDeps } from '../app.ts';
import { checkoutByClientSecret, discountRule } from '../checkout-service.ts';
import { ApiError, badRequest, unprocessable } from '../errors.ts';
import { errorBody } from '../schemas/common.ts';
import {
  confirmSdkBody,
  confirmSdkParams,
  confirmSdkResponse,
  paymentDeclinedBody,
  type ConfirmSdkBody,
} from '../schemas/checkout-confirm.ts';

type CheckoutEntity = NonNullable<Awaited<ReturnType<typeof checkoutByClientSecret>>>;

const notOpen = (status: string) =>
  new ApiError(409, CHECKOUT_NOT_OPEN, 'Checkout is not open', `Checkout is ${status}`);
const inProgress = () =>
  new ApiError(409, CONFIRMATION_IN_PROGRESS, 'A confirmation of this checkout is already in progress');

/**
 * The card's tokenization key: one token per checkout and card, so a retried request reuses it.
 * Only a hash of the card data goes into the key; the card itself is never stored or logged.
 */
function tokenKey(checkoutId: string, card: NonNullable<ConfirmSdkBody['card']>): string {
  const digest = createHash('sha256')
    .update([card.number, card.expiration_month, card.expiration_year, card.cvv, card.holder_name].join('|'))
    .digest('hex');
  return `checkout:${checkoutId}:card:${digest}`;
}

export function confirmResponse(c: CheckoutEntity) {
  const data = c.gatewayPaymentData as Record<string, unknown> | null | undefined;
  return {
    id: c.id,
    status: c.status,
    payment_method: c.paymentMethod ?? null,
    amount: Number(c.amount),
    currency: c.currency,
    gateway_payment_data: data
      ? {
          transaction_id: String(data.transaction_id),
          status: String(data.status),
          authorization_code: (data.authorization_code as string | null) ?? null,
          installments: Number(data.installments ?? 1),
          ...(data.pix ? { pix: data.pix as never } : {}),
          ...(data.boleto ? { boleto: data.boleto as never } : {}),
        }
      : null,
    decline_reason: c.declineReason ?? null,
  };
}

export const checkoutConfirmRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.post(
    '/client/:client_secret/confirm-sdk',
    {
      schema: {
        tags: ['checkouts'],
        summary: 'Confirm a checkout with card, pix or boleto (public: the client_secret is the credential)',
        description:
          'Card data is tokenized at the gateway by the server and never stored. A declined card answers 422 ' +
          '(code payment_declined, with decline_reason) and leaves the checkout open for another try. ' +
          'A checkout that is not open, or one already being confirmed, answers 409.',
        params: confirmSdkParams,
        body: confirmSdkBody,
        response: {
          200: confirmSdkResponse,
          400: errorBody,
          401: errorBody,
          404: errorBody,
          409: errorBody,
          422: paymentDeclinedBody,
          429: errorBody,
          503: errorBody,
        },
      },
    },
    async (request, reply) => {
      const em = deps.orm.em.fork();
      const checkout = await checkoutByClientSecret(em, request.params.client_secret);
      const { result, checkout: updated } = await confirmCheckout(deps, checkout, request.body);
      if (result.outcome === 'declined') {
        const reason = result.declineReason ?? 'card_declined';
        return reply
          .status(422)
          .send({ error: 'Payment declined', code: 'payment_declined', detail: reason, decline_reason: reason });
      }
      return reply.status(200).send(confirmResponse(updated));
    },
  );
};

/**
 * Confirms a checkout: the request rules, a discount code, server-side card tokenization (only the
 * token reaches the workflow), then the confirmation Update. Shared by confirm-sdk and transactions/direct.
 */
export async function confirmCheckout(
  deps: RouteDeps,
  checkout: CheckoutEntity,
  body: ConfirmSdkBody,
): Promise<{ result: ConfirmCheckoutResult; checkout: CheckoutEntity }> {
  const em = deps.orm.em.fork();
  if (checkout.status !== 'open') throw notOpen(checkout.status);
  const price = await em.findOneOrFail(Price, { id: checkout.productPriceId });

  const installments = body.card?.installments ?? 1;
  if (body.payment_method === 'credit_card') {
    if (!body.card) throw badRequest('card is required when payment_method is credit_card');
    const max = maxInstallments({ type: price.type, interval: price.interval ?? null });
    if (installments > max) {
      throw badRequest('Too many installments', `This price accepts at most ${max} installment${max === 1 ? '' : 's'}`);
    }
  } else if (body.card) {
    throw badRequest('card is only accepted when payment_method is credit_card');
  }
  if (body.customer_tax_id && !parseTaxId(body.customer_tax_id)) {
    throw badRequest('Invalid customer_tax_id', 'customer_tax_id must be a valid CPF or CNPJ');
  }
  if (!body.customer_email && !checkout.customerEmail && !checkout.customerId) {
    throw badRequest('customer_email is required', 'The checkout has no customer yet: send customer_email');
  }
  if (body.payment_method === 'boleto') {
    if (!(body.customer_name ?? checkout.customerName)) throw badRequest('customer_name is required for boleto');
    if (!(body.customer_tax_id ?? checkout.customerTaxId)) throw badRequest('customer_tax_id is required for boleto');
  }

  const handle = deps.temporal.workflow.getHandle(checkoutWorkflowId(checkout.id));
  if (body.discount_code) {
    // The amount must not change under a charge already running.
    const state = await handle.query(checkoutStateQuery).catch(() => null);
    if (state?.confirming) throw inProgress();
    await applyDiscountCode(deps, checkout.id, body.discount_code);
  }

  let card: CardToken | null = null;
  if (body.card) {
    const c = body.card;
    try {
      card = await deps.gateway.tokenizeCard(
        {
          number: c.number,
          holderName: c.holder_name,
          expirationMonth: c.expiration_month,
          expirationYear: c.expiration_year,
          cvv: c.cvv,
        },
        tokenKey(checkout.id, c),
      );
    } catch (err) {
      if (err instanceof GatewayError && !err.retryable) {
        throw unprocessable('invalid_card', 'The card was refused by the gateway', err.message);
      }
      if (err instanceof GatewayError)
        throw new ApiError(503, 'gateway_unavailable', 'The payment gateway is unavailable');
      throw err;
    }
  }

  let result: ConfirmCheckoutResult;
  try {
    result = await handle.executeUpdate(confirmCheckoutUpdate, {
      args: [
        {
          paymentMethod: body.payment_method,
          card: card ? { id: card.id, brand: card.brand, first4: card.first4, last4: card.last4 } : null,
          installments,
          buyer: {
            email: body.customer_email ?? null,
            name: body.customer_name ?? null,
            taxId: body.customer_tax_id ? parseTaxId(body.customer_tax_id)!.number : null,
          },
        },
      ],
    });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure) {
      if (err.cause.type === CONFIRMATION_IN_PROGRESS) throw inProgress();
      if (err.cause.type === CHECKOUT_NOT_OPEN) throw notOpen(err.cause.message.replace(/^Checkout is /, ''));
    }
    // The workflow has ended: the checkout expired or was paid meanwhile.
    if (err instanceof WorkflowNotFoundError) throw notOpen('closed');
    throw err;
  }

  const updated = await deps.orm.em.fork().findOneOrFail(Checkout, { id: checkout.id });
  return { result, checkout: updated };
}

/**
 * Applies a discount code at payment time: the checkout's amount changes and the redemption is
 * counted, in one database transaction (a code already applied to this checkout is a no-op).
 */
async function applyDiscountCode(deps: RouteDeps, checkoutId: string, code: string): Promise<void> {
  await deps.orm.em.fork().transactional(async (tx) => {
    const checkout = await tx.findOneOrFail(Checkout, { id: checkoutId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (checkout.status !== 'open') throw notOpen(checkout.status);
    if (!checkout.allowDiscountCodes) {
      throw unprocessable('discount_codes_not_allowed', 'This checkout does not accept discount codes');
    }
    const [found] = await tx.execute<{ id: string }[]>(
      'select id from discounts where organization_id = ? and upper(code) = upper(?) and deleted_at is null',
      [checkout.organizationId, code],
    );
    if (!found) throw unprocessable('discount_not_found', 'Unknown discount code');
    if (checkout.discountId === found.id) return;
    if (checkout.discountId) {
      throw unprocessable('discount_already_applied', 'The checkout already has a discount');
    }
    const discount = await tx.findOneOrFail(Discount, { id: found.id });
    const rule = discountRule(discount);
    const applicable = discountApplicability(rule, {
      productId: checkout.productId,
      currency: checkout.currency,
      now: new Date(),
    });
    if (!applicable.ok) {
      throw unprocessable('discount_not_applicable', 'The discount does not apply to this checkout', applicable.reason);
    }
    const off = discountAmount(Number(checkout.subtotalAmount), checkout.currency, rule);
    if (Number(checkout.subtotalAmount) - off < 1) {
      throw unprocessable(
        'discount_not_applicable',
        'The discount does not apply to this checkout',
        'amount_below_minimum',
      );
    }
    const outcome = await redeemDiscount(tx, discount.id, checkout.id);
    if (outcome === 'exhausted') {
      throw unprocessable('discount_not_applicable', 'The discount does not apply to this checkout', 'exhausted');
    }
    checkout.discountId = discount.id;
    checkout.discountAmount = off;
    checkout.amount = Number(checkout.subtotalAmount) - off;
    checkout.updatedAt = new Date();
    recordEvent(tx, checkout.organizationId, 'checkout.updated', {
      id: checkout.id,
      status: checkout.status,
      discount_id: discount.id,
      discount_amount: off,
      amount: checkout.amount,
      currency: checkout.currency,
    });
  });
}
