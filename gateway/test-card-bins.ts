import { DEFAULT_MONTHLY_RATE_BASIS_POINTS, installmentOptions } from '../domain/installments.ts';
import { MAX_INSTALLMENTS } from '../domain/money.ts';
import { cardBrand } from './test-cards.ts';

/**
 * What the sandbox answers for a card's BIN, as MercadoPago.js' `getPaymentMethods({ bin })` and
 * `getInstallments({ amount, bin, paymentTypeId })` answer for a real one: the payment method, its
 * issuer, and the instalment plans that issuer offers (with their interest). A debit card pays at once
 * (one instalment); one test issuer offers fewer instalments than the checkout allows, so that a page
 * shows the issuer's offer and not its own.
 */

export interface TestCardBin {
  /** Mercado Pago's payment_method_id (`visa`, `master`, `debvisa`, …). */
  paymentMethodId: string;
  paymentTypeId: 'credit_card' | 'debit_card';
  issuer: { id: number; name: string };
  maxInstallments: number;
}

/** BINs (first 8 digits) with an issuer of their own; any other card number is its brand's credit card. */
const SPECIAL_BINS: Record<string, TestCardBin> = {
  // 4000 0566 5566 5556: a Visa debit card.
  '40000566': {
    paymentMethodId: 'debvisa',
    paymentTypeId: 'debit_card',
    issuer: { id: 9002, name: 'Banco Simulado (débito)' },
    maxInstallments: 1,
  },
  // 5555 5555 5555 4444: a Mastercard whose issuer offers up to 6 instalments.
  '55555555': {
    paymentMethodId: 'master',
    paymentTypeId: 'credit_card',
    issuer: { id: 9003, name: 'Banco Simulado Master' },
    maxInstallments: 6,
  },
};

const METHOD_OF_BRAND: Record<string, string> = {
  visa: 'visa',
  mastercard: 'master',
  elo: 'elo',
  amex: 'amex',
  hipercard: 'hipercard',
};

/** The card behind a BIN (6 to 8 digits); null for a number no brand claims. */
export function testCardBin(bin: string): TestCardBin | null {
  const special = SPECIAL_BINS[bin.slice(0, 8)];
  if (special) return special;
  const method = METHOD_OF_BRAND[cardBrand(bin)];
  if (!method) return null;
  return {
    paymentMethodId: method,
    paymentTypeId: 'credit_card',
    issuer: { id: 9001, name: 'Banco Simulado' },
    maxInstallments: MAX_INSTALLMENTS,
  };
}

/**
 * The issuer's plans for `amount` cents: each number of instalments it offers, at the simulator's
 * interest (the rule the simulator then charges, domain/installments.ts).
 */
export function testCardPlans(card: TestCardBin, amount: number) {
  return installmentOptions(
    amount,
    { noFees: false, monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS },
    card.maxInstallments,
  ).map((o) => ({
    installments: o.installments,
    installmentAmount: o.installmentAmounts[0]!,
    total: o.total,
  }));
}
