import type { EntityManager } from '@mikro-orm/postgresql';
import { subscriptionCardTokenId } from '../db/subscription/checkout-reads.ts';
import { offersKeptCardWithCode } from '../gateway/capabilities.ts';
import type { PaymentGateway } from '../gateway/port.ts';

/** The kept card a renewal checkout's page offers: the id the gateway's browser script names it by, brand and last digits. */
export interface KeptCardOffer {
  cardId: string;
  brand: string;
  last4: string;
}

const BRAND_NAMES: Record<string, string> = { mastercard: 'Mastercard', visa: 'Visa', amex: 'Amex', elo: 'Elo' };

/**
 * The card a renewal checkout's subscription keeps, as its page offers it to the buyer (decision 0078):
 * only where the gateway charges a kept card with the buyer present by the security code typed again
 * (Mercado Pago), and only a card the gateway still keeps (its brand and last digits read from it). A
 * gateway that does not answer leaves the page as it was: the whole card is asked.
 */
export async function keptCardOffer(
  em: EntityManager,
  gateway: PaymentGateway,
  checkout: { organizationId: string; subscriptionId?: string | null },
): Promise<KeptCardOffer | null> {
  if (!checkout.subscriptionId || !offersKeptCardWithCode(gateway)) return null;
  const cardTokenId = await subscriptionCardTokenId(em, checkout.organizationId, checkout.subscriptionId);
  const cardId = cardTokenId ? gateway.keptCardBrowserId(cardTokenId) : null;
  if (!cardTokenId || !cardId) return null;
  try {
    const card = await gateway.keptCard(cardTokenId);
    if (!card) return null;
    return { cardId, brand: BRAND_NAMES[card.brand] ?? card.brand, last4: card.last4 };
  } catch {
    return null;
  }
}
