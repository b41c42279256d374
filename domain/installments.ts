import { installmentAmounts, MAX_INSTALLMENTS } from './money.ts';

/** Installment interest when the seller does not absorb it: 2.99% a month. */
export const DEFAULT_MONTHLY_RATE_BASIS_POINTS = 299;

export interface InstallmentOptions {
  /** The seller absorbs the interest (`no_fees_installments`): the buyer pays the base amount. */
  noFees: boolean;
  /** Monthly interest rate in basis points (299 = 2.99%). */
  monthlyRateBasisPoints: number;
}

export interface InstallmentPlan {
  /** What the buyer pays, interest included. */
  total: number;
  /** Each installment in cents; they add up to `total`. */
  installmentAmounts: number[];
}

/**
 * What the buyer pays for `baseAmount` in `installments` parts. One installment, no-fees
 * installments or a zero rate: the base amount, split evenly to the cent. Otherwise the Price
 * table: a fixed installment PMT = P·i / (1 − (1 + i)^−n) rounded half up to the cent, every
 * installment equal, and the total is their sum (so it is exact by construction). For amounts of a
 * few cents, where PMT would round below an even split, the installment is the even split rounded up:
 * interest never makes the buyer pay less than the base amount.
 */
export function installmentPlan(
  baseAmount: number,
  installments: number,
  options: InstallmentOptions,
): InstallmentPlan {
  if (!Number.isSafeInteger(baseAmount) || baseAmount < 0)
    throw new RangeError('baseAmount must be a non-negative safe integer');
  if (!Number.isInteger(installments) || installments < 1 || installments > MAX_INSTALLMENTS) {
    throw new RangeError(`installments must be an integer between 1 and ${MAX_INSTALLMENTS}`);
  }
  if (!Number.isInteger(options.monthlyRateBasisPoints) || options.monthlyRateBasisPoints < 0) {
    throw new RangeError('monthlyRateBasisPoints must be a non-negative integer');
  }
  if (installments === 1 || options.noFees || options.monthlyRateBasisPoints === 0 || baseAmount === 0) {
    return { total: baseAmount, installmentAmounts: installmentAmounts(baseAmount, installments) };
  }
  // PMT = P·r / (1 − (1 + r)^−n) with r = b / 10000, in exact integers (a float lands on the wrong
  // side of a half cent for some amounts): P·b·g / (10000·(g − 10000ⁿ)) with g = (10000 + b)ⁿ,
  // rounded half up.
  const b = BigInt(options.monthlyRateBasisPoints);
  const g = (10_000n + b) ** BigInt(installments);
  const den = 10_000n * (g - 10_000n ** BigInt(installments));
  const pmt = Math.max(
    Number((2n * BigInt(baseAmount) * b * g + den) / (2n * den)),
    Math.ceil(baseAmount / installments),
  );
  return { total: pmt * installments, installmentAmounts: Array.from({ length: installments }, () => pmt) };
}

export interface InstallmentOption extends InstallmentPlan {
  installments: number;
}

/** Every choice from 1 to `max` installments, with what each costs the buyer. */
export function installmentOptions(
  baseAmount: number,
  options: InstallmentOptions,
  max = MAX_INSTALLMENTS,
): InstallmentOption[] {
  const upTo = Math.min(Math.max(1, Math.floor(max)), MAX_INSTALLMENTS);
  return Array.from({ length: upTo }, (_, k) => ({
    installments: k + 1,
    ...installmentPlan(baseAmount, k + 1, options),
  }));
}

/** What the buyer pays, shown beside the price: each installment and the total, interest included. */
export interface BuyerPayment {
  installments: number;
  /** The first (largest) installment; with interest every installment is this. */
  installment_amount: number;
  total_amount: number;
}

/** The buyer's payment for `baseAmount` in `installments` parts, by the default rate the gateway applies. */
export function buyerPayment(baseAmount: number, installments: number, noFees: boolean): BuyerPayment {
  const plan = installmentPlan(baseAmount, installments, {
    noFees,
    monthlyRateBasisPoints: DEFAULT_MONTHLY_RATE_BASIS_POINTS,
  });
  return { installments, installment_amount: plan.installmentAmounts[0]!, total_amount: plan.total };
}

/** The buyer's payment from what was charged (a recorded transaction's total), split as the plan splits it. */
export function chargedPayment(total: number, installments: number): BuyerPayment {
  return { installments, installment_amount: installmentAmounts(total, installments)[0]!, total_amount: total };
}
