import { z } from 'zod';
import type { StoredCard } from '../contracts/gateway-records.ts';

/**
 * The card, declared once for the gateway layer: the port's types are inferred from these schemas
 * and the wire shapes (http-cards.ts) are derived from them, so a card field is named in one place.
 */

/** The card as the buyer typed it; the gateway turns it into a token. */
export const cardInput = z.object({
  number: z.string().min(1).max(32),
  holderName: z.string().min(1).max(255),
  expirationMonth: z.string().min(1).max(2),
  expirationYear: z.string().min(2).max(4),
  cvv: z.string().min(3).max(4),
});
export type CardInput = z.infer<typeof cardInput>;

/** What is kept of a card: never its number or CVV. */
export const cardToken = z.object({
  id: z.string(),
  brand: z.string(),
  first4: z.string(),
  last4: z.string(),
  holderName: z.string(),
  expirationMonth: z.string(),
  expirationYear: z.string(),
});
export type CardToken = z.infer<typeof cardToken>;
/** The schema and the plain shape the workflows see (contracts/gateway-records.ts) stay one: each fits the other. */
export const cardTokenFitsStoredCard = (token: CardToken): StoredCard => token;
export const storedCardFitsCardToken = (card: StoredCard): CardToken => card;
