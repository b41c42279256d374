import { CardToken as MpCardToken, Customer, MercadoPagoError, type MercadoPagoConfig } from 'mercadopago';
import { GatewayError, type CardInput, type CardOwner, type CardToken } from './port.ts';

/**
 * Cards at Mercado Pago. A card token (made in the buyer's browser by MercadoPago.js, or on our
 * server when the operator accepts card data) is single-use and lapses in days, while a subscription
 * charges its card again at every renewal. So a card is kept as a customer's card
 * (`POST /v1/customers/:id/cards`, the customer found or created by the buyer's e-mail), and each
 * charge mints a fresh token from it (`POST /v1/card_tokens` with `customer_id` and `card_id`).
 * Our card token id names both, and the card's payment method and issuer, which a payment with the
 * card sends (`mpcard:<customer id>:<card id>:<payment_method_id>:<issuer_id>`; ids kept before
 * decision 0074 end at the card id).
 *
 * The order is the recurring-charges guide's (Automatic payments, "Create recurring charges"): the
 * first payment is charged with the browser's token as it is (its security code in it), and the card is
 * associated with the customer after that payment was approved (decision 0074).
 */

/** What the adapter lends these functions: a per-call config and its error mapping. */
export interface MercadoPagoCalls {
  config(idempotencyKey: string): MercadoPagoConfig;
  sdk<T>(what: string, run: () => Promise<T>): Promise<T>;
}

const SAVED = /^mpcard:([^:]+):([^:]+)(?::([^:]*):([^:]*))?$/;

/** A kept card: its customer, its card, and the payment method and issuer a payment with it names. */
export interface SavedCard {
  customerId: string;
  cardId: string;
  paymentMethodId: string | null;
  issuerId: string | null;
}

export const savedCardId = (card: SavedCard) =>
  `mpcard:${card.customerId}:${card.cardId}` +
  (card.paymentMethodId ? `:${card.paymentMethodId}:${card.issuerId ?? ''}` : '');

/** The customer and card a kept card's id names; null for a plain (single-use) token. */
export function savedCardOf(tokenId: string): SavedCard | null {
  const match = SAVED.exec(tokenId);
  if (!match) return null;
  return { customerId: match[1]!, cardId: match[2]!, paymentMethodId: match[3] || null, issuerId: match[4] || null };
}

/** Mercado Pago's payment method ids as the brands our records show (`master` is Mastercard, `deb*` debit). */
const BRANDS: Record<string, string> = {
  master: 'mastercard',
  debmaster: 'mastercard',
  visa: 'visa',
  debvisa: 'visa',
  amex: 'amex',
  elo: 'elo',
  debelo: 'elo',
  hipercard: 'hipercard',
};
export const brandOf = (paymentMethodId: string | undefined) =>
  paymentMethodId ? (BRANDS[paymentMethodId] ?? paymentMethodId) : 'unknown';

/**
 * `POST /v1/customers` refuses an e-mail the account already has with 400 and cause 101 ("the customer
 * already exist.", the customers API reference's errors): the customer was created between our search
 * and our create (another checkout of the same buyer), so it is found again rather than the card refused.
 */
const alreadyExists = (err: unknown) =>
  err instanceof MercadoPagoError &&
  err.status === 400 &&
  (err.causes as { code?: unknown }[]).some((cause) => String(cause?.code) === '101');

async function searchCustomer(calls: MercadoPagoCalls, email: string, key: string): Promise<string | null> {
  const found = await calls.sdk('GET /v1/customers/search', () =>
    new Customer(calls.config(key)).search({ options: { email } }),
  );
  return found.results?.find((c) => c.id)?.id ?? null;
}

/** The customer that keeps the owner's cards: found by e-mail (unique per account), else created. */
async function customerOf(calls: MercadoPagoCalls, owner: CardOwner, key: string): Promise<string> {
  const email = owner.email;
  if (!email) throw new GatewayError("Mercado Pago keeps a card with a customer: the buyer's e-mail is needed", false);
  const existing = await searchCustomer(calls, email, `${key}:customer-search`);
  if (existing) return existing;
  const [firstName, ...rest] = (owner.name ?? '').trim().split(/\s+/);
  const created = await calls.sdk('POST /v1/customers', () =>
    new Customer(calls.config(`${key}:customer`))
      .create({
        body: {
          email,
          ...(firstName ? { first_name: firstName } : {}),
          ...(rest.length ? { last_name: rest.join(' ') } : {}),
        },
      })
      .catch((err: unknown) => {
        if (alreadyExists(err)) return null;
        throw err;
      }),
  );
  if (created === null) {
    const raced = await searchCustomer(calls, email, `${key}:customer-search-again`);
    // Created, yet not found yet: the search lags; the activity's retry finds it.
    if (!raced)
      throw new GatewayError('Mercado Pago has a customer for this e-mail that its search does not show yet', true);
    return raced;
  }
  if (!created.id) throw new GatewayError('Mercado Pago created a customer without an id', true);
  return created.id;
}

/** Keeps the card behind a single-use token with its owner's customer; the answer charges it again and again. */
export async function keepCard(
  calls: MercadoPagoCalls,
  token: string,
  owner: CardOwner,
  key: string,
): Promise<CardToken> {
  const customerId = await customerOf(calls, owner, key);
  const card = await calls.sdk(`POST /v1/customers/${customerId}/cards`, () =>
    new Customer(calls.config(`${key}:card`)).createCard({ customerId, body: { token } }),
  );
  if (!card.id) throw new GatewayError('Mercado Pago kept a card without an id', true);
  return keptCardOf(customerId, card.id, card, owner.name ?? '');
}

/** A customer's card as Mercado Pago answers it, as our kept card (never its number). */
function keptCardOf(
  customerId: string,
  cardId: string,
  card: Awaited<ReturnType<Customer['getCard']>>,
  holderName: string,
): CardToken {
  const issuer = (card as { issuer?: { id?: string | number | null } }).issuer?.id;
  return {
    id: savedCardId({
      customerId,
      cardId,
      paymentMethodId: card.payment_method?.id ?? null,
      issuerId: issuer === undefined || issuer === null ? null : String(issuer),
    }),
    brand: brandOf(card.payment_method?.id),
    first4: (card.first_six_digits ?? '').slice(0, 4),
    last4: card.last_four_digits ?? '',
    holderName: card.cardholder?.name ?? holderName,
    expirationMonth: String(card.expiration_month ?? '').padStart(2, '0'),
    expirationYear: String(card.expiration_year ?? ''),
  };
}

/**
 * A kept card as Mercado Pago has it now (`GET /v1/customers/:id/cards/:card_id`): how a Card Updater
 * notice is believed (decision 0071). Null for a card it does not keep (404) or an id not of a kept card.
 */
export async function readKeptCard(calls: MercadoPagoCalls, cardTokenId: string): Promise<CardToken | null> {
  const saved = savedCardOf(cardTokenId);
  if (!saved) return null;
  try {
    const card = await calls.sdk(`GET /v1/customers/${saved.customerId}/cards/${saved.cardId}`, () =>
      new Customer(calls.config(`kept-card:${cardTokenId}`)).getCard(saved),
    );
    return card.id ? keptCardOf(saved.customerId, saved.cardId, card, '') : null;
  } catch (err) {
    // The adapter's error carries the HTTP status (MercadoPagoGatewayError, not imported: it imports this module).
    if (err instanceof GatewayError && (err as GatewayError & { status?: number }).status === 404) return null;
    throw err;
  }
}

/** Card data typed on our own page, tokenized from the server (full PCI DSS scope: the operator's choice). */
export async function tokenizeOnServer(calls: MercadoPagoCalls, card: CardInput, key: string): Promise<string> {
  const year = card.expirationYear.length === 2 ? `20${card.expirationYear}` : card.expirationYear;
  const token = await calls.sdk('POST /v1/card_tokens', () =>
    new MpCardToken(calls.config(`${key}:token`)).create({
      body: {
        card_number: card.number.replace(/\D/g, ''),
        expiration_month: card.expirationMonth.padStart(2, '0'),
        expiration_year: year,
        security_code: card.cvv,
        // The holder's name travels as cardholder.name, which this SDK's body type lacks.
        ...({ cardholder: { name: card.holderName } } as object),
      },
    }),
  );
  if (!token.id) throw new GatewayError('Mercado Pago answered a card token without an id', true);
  return token.id;
}

/**
 * A fresh single-use token from a kept card, for one payment (keyed by it: a retry mints the same one).
 * It carries no security code: Mercado Pago charges it only as a merchant-initiated recurring charge of
 * an application enabled for automatic payments ("To operate automatic payments without CVV, the
 * application must be enabled for this purpose", Automatic payments, Prerequisites). With the buyer
 * present, the buyer's browser mints the token from the card's id and its security code instead.
 */
export async function tokenFromSavedCard(
  calls: MercadoPagoCalls,
  saved: Pick<SavedCard, 'customerId' | 'cardId'>,
  key: string,
): Promise<string> {
  const token = await calls.sdk('POST /v1/card_tokens', () =>
    new MpCardToken(calls.config(`${key}:token`)).create({
      body: { customer_id: saved.customerId, card_id: saved.cardId },
    }),
  );
  if (!token.id) throw new GatewayError('Mercado Pago answered a card token without an id', true);
  return token.id;
}
