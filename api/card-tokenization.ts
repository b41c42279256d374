import { createHash } from 'node:crypto';
import { cardSourceRefusal } from '../domain/card-data.ts';
import { cardPaymentsOf, offersCardPayments } from '../gateway/capabilities.ts';
import { GatewayError, type CardInput, type CardOwner, type CardToken } from '../gateway/port.ts';
import { ApiError, badRequest, unprocessable } from '../use-cases/errors.ts';
import type { RouteDeps } from './route-deps.ts';

/**
 * The buyer's card made chargeable at the gateway, for confirm-sdk and direct transactions: its data
 * (the sandbox, or a live deployment that accepts full PCI DSS scope) or the token the buyer's
 * browser made with the gateway's own script. Only the answer's token reaches a workflow.
 */

/** One card, as the request sent it. */
export type SentCard = { data: CardInput } | { browserToken: string };

/** The request's card, or its refusal (both sent: 400; card data where only tokens are taken: 422). */
export function sentCard(deps: RouteDeps, data: CardInput | null, browserToken: string | null): SentCard | null {
  const refusal = cardSourceRefusal(
    { cardData: data !== null, browserToken: browserToken !== null },
    deps.config.acceptsCardData,
    offersCardPayments(deps.gateway),
  );
  if (refusal?.code === 'ambiguous_card') throw badRequest(refusal.message);
  if (refusal) throw unprocessable(refusal.code, 'Card data is not accepted here', refusal.message);
  if (data) return { data };
  return browserToken === null ? null : { browserToken };
}

/**
 * The key of making this card chargeable: one per `scope` (a checkout, a direct request) and card,
 * so a retried request gets the same token. Only a hash of the card goes into it: the card data is
 * never stored or logged.
 */
function cardKey(scope: string, card: SentCard): string {
  const material =
    'data' in card
      ? [card.data.number, card.data.expirationMonth, card.data.expirationYear, card.data.cvv, card.data.holderName]
      : ['browser-token', card.browserToken];
  return `${scope}:card:${createHash('sha256').update(material.join('|')).digest('hex')}`;
}

/** Tokenizes (or keeps) the card at the gateway; a card the gateway refuses is a 422, an outage a 503. */
export async function chargeableCard(
  deps: RouteDeps,
  scope: string,
  card: SentCard,
  owner: CardOwner,
): Promise<CardToken> {
  const key = cardKey(scope, card);
  try {
    return 'data' in card
      ? await cardPaymentsOf(deps.gateway).tokenizeCard(card.data, key, owner)
      : await cardPaymentsOf(deps.gateway).keepBrowserCard(card.browserToken, owner, key);
  } catch (err) {
    throw tokenizationError(err);
  }
}

/** A tokenization's failure as the API answers it: a card the gateway refuses is a 422, an outage a 503. */
export function tokenizationError(err: unknown): unknown {
  if (err instanceof GatewayError && !err.retryable) {
    return unprocessable('invalid_card', 'The card was refused by the gateway', err.message);
  }
  // Nothing was charged yet: a retry is safe.
  if (err instanceof GatewayError) {
    return new ApiError(503, 'gateway_unavailable', 'The payment gateway is unavailable', 'Retry the request');
  }
  return err;
}
