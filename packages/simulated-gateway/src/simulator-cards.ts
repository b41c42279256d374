import type { Sql } from './database.ts';
import {
  GatewayError,
  type Buyer,
  type BuyerInput,
  type CardInput,
  type CardToken,
  type DeclineReason,
} from '../../../gateway/port.ts';
import { cardTokenOf, newId } from './simulator-rows.ts';
import { cardBrand, cardOutcome, digitsOf, isExpired, type CardOutcome } from '../../../gateway/test-cards.ts';

/** The simulator's cards and buyers (gateway_sim.cards, gateway_sim.buyers) and why a card is declined. */

/** Keeps what a receipt shows and the test card's scripted outcome; never the number or the CVV. */
export async function storeCard(sql: Sql, card: CardInput): Promise<CardToken>;
export async function storeCard(
  sql: Sql,
  card: CardInput,
  withOutcome: true,
): Promise<{ token: CardToken; outcome: CardOutcome }>;
export async function storeCard(sql: Sql, card: CardInput, withOutcome = false) {
  const digits = digitsOf(card.number);
  const outcome = cardOutcome(digits);
  const [row] = await sql(
    `insert into gateway_sim.cards (id, brand, first4, last4, holder_name, expiration_month, expiration_year, outcome)
     values (?, ?, ?, ?, ?, ?, ?, ?) returning *`,
    [
      newId('card'),
      cardBrand(digits),
      digits.slice(0, 4),
      digits.slice(-4),
      card.holderName,
      card.expirationMonth,
      card.expirationYear,
      outcome,
    ],
  );
  const token = cardTokenOf(row!);
  return withOutcome ? { token, outcome } : token;
}

export async function findCard(sql: Sql, tokenId: string): Promise<{ token: CardToken; outcome: CardOutcome }> {
  const [row] = await sql('select * from gateway_sim.cards where id = ?', [tokenId]);
  if (!row) throw new GatewayError(`Unknown card token ${tokenId}`, false);
  return { token: cardTokenOf(row), outcome: row.outcome as CardOutcome };
}

export async function storeBuyer(sql: Sql, buyer: BuyerInput): Promise<Buyer> {
  const id = newId('buyer');
  await sql('insert into gateway_sim.buyers (id, email, name, tax_id) values (?, ?, ?, ?)', [
    id,
    buyer.email,
    buyer.name ?? null,
    buyer.taxId ?? null,
  ]);
  return { id, email: buyer.email, name: buyer.name ?? null, taxId: buyer.taxId ?? null };
}

export async function requireBuyer(sql: Sql, buyerId: string): Promise<void> {
  const [row] = await sql('select 1 from gateway_sim.buyers where id = ?', [buyerId]);
  if (!row) throw new GatewayError(`Unknown buyer ${buyerId}`, false);
}

/** `clock` is the simulator's, read only when the card's expiry matters. */
export function declineReasonOf(
  outcome: CardOutcome,
  card: CardToken,
  cvv: string | null,
  clock: () => Date,
): DeclineReason | null {
  if (outcome === 'decline:invalid_card') return 'invalid_card';
  if (isExpired(card.expirationMonth, card.expirationYear, clock())) return 'expired_card';
  if (cvv !== null && !/^\d{3,4}$/.test(cvv)) return 'incorrect_cvc';
  if (outcome.startsWith('decline:')) return outcome.slice('decline:'.length) as DeclineReason;
  return null;
}
