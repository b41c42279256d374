import { savedCardId } from './mercadopago-cards.ts';

/**
 * Mercado Pago's Card Updater notice (its notifications page, "Additional information about
 * notifications"): a webhook of type `automatic-payments`, action `card.updated` (its only action),
 * sent after a rejected payment when the updater gave a customer's card a new `card_id` or updated the
 * card behind the same one: `data: { customer_id, new_card_id, old_card_id }`. Signed as every webhook
 * (no `data.id`, so the manifest has no `id:` part, as the page says of a missing value).
 */

/** Our ids of the kept card replaced and of its replacement; null for another notice or the same card id. */
export function cardReplacementOf(
  type: string | undefined,
  body: { action?: unknown; data?: Record<string, unknown> | null },
): { replaced: string; by: string } | null {
  if (type !== 'automatic-payments' || body.action !== 'card.updated') return null;
  const customerId = idOf(body.data?.customer_id);
  const oldCardId = idOf(body.data?.old_card_id);
  const newCardId = idOf(body.data?.new_card_id);
  // The same card id: Mercado Pago updated the card behind it, and we keep nothing of it but the id.
  if (!customerId || !oldCardId || !newCardId || oldCardId === newCardId) return null;
  // Without the card's payment method and issuer, which the kept card's own lookup adds (decision 0074).
  const id = (cardId: string) => savedCardId({ customerId, cardId, paymentMethodId: null, issuerId: null });
  return { replaced: id(oldCardId), by: id(newCardId) };
}

const idOf = (value: unknown): string | null =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null;
