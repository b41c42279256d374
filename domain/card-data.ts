import type { PaymentCard } from './checkout.ts';

/**
 * Where a card number may travel. Card data that reaches our server (confirm-sdk's `card`, a direct
 * transaction's) puts the whole deployment in PCI DSS scope (SAQ D); a card tokenized in the buyer's
 * browser by the gateway's own script keeps it out (our server only sees the token). So a live
 * deployment takes card data only when its operator accepts that scope explicitly; the sandbox
 * always does, since it only sees test cards.
 */
export function cardDataAccepted(deployment: 'test' | 'live', acceptedFullPciScope: boolean): boolean {
  return deployment === 'test' || acceptedFullPciScope;
}

export interface CardSourceRefusal {
  code: 'card_data_refused' | 'ambiguous_card' | 'payment_method_not_allowed';
  message: string;
}

/**
 * Why this request's card may not be used as sent (a confirmation or a direct charge names one card:
 * its data, or the browser's token, never both); null when it may.
 */
export function cardSourceRefusal(
  sent: { cardData: boolean; browserToken: boolean },
  acceptsCardData: boolean,
  gatewayTakesCards = true,
): CardSourceRefusal | null {
  if (sent.cardData && sent.browserToken) {
    return { code: 'ambiguous_card', message: 'Send the card or its card_token, not both' };
  }
  // A gateway without card payments (Efí, decision 0097): refused before anything reaches it.
  if ((sent.cardData || sent.browserToken) && !gatewayTakesCards) {
    return {
      code: 'payment_method_not_allowed',
      message: 'This payment gateway takes no cards: pay with pix or boleto',
    };
  }
  if (sent.cardData && !acceptsCardData) {
    return {
      code: 'card_data_refused',
      message:
        "This deployment takes cards only as the gateway's browser tokens (card_token): card data would put it " +
        'in full PCI DSS scope (ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE)',
    };
  }
  return null;
}

/** What a transaction keeps of a card (DESIGN.md: never the number or CVV), as its `card` column stores it. */
export function storedCard(card: Omit<PaymentCard, 'id'>) {
  return {
    brand: card.brand,
    first4: card.first4,
    last4: card.last4,
    holder_name: card.holderName,
    expiration_month: card.expirationMonth,
    expiration_year: card.expirationYear,
  };
}
