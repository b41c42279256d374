/**
 * An exact oracle for installment plans, written apart from domain/installments.ts so that a test can
 * hold the implementation to it: every quantity is a fraction of BigInts, nothing is ever a float.
 *
 * The Price table (French amortization): a loan P repaid in n equal instalments at a monthly rate r
 * costs PMT = P·r / (1 − (1 + r)^−n) a month. Here r = basisPoints / 10 000 exactly.
 *
 * The rule the engine follows (domain/installments.ts, the checkout's installment options and the
 * simulated gateway's charges all use it):
 *  - one installment, `no_fees_installments`, a zero rate or a zero amount: the buyer pays the base
 *    amount, split as evenly as cents allow; the remainder cents go one each to the first installments
 *    (100 001 in 3 → 33 334, 33 334, 33 333);
 *  - otherwise every installment is PMT rounded half up to a whole cent, but never less than the
 *    base amount divided by n rounded up (so a few cents never get cheaper by installments); no
 *    installment carries a remainder, and the total is n times that installment.
 */

/** A rational number num/den in lowest terms, den > 0. */
export class Fraction {
  readonly num: bigint;
  readonly den: bigint;

  constructor(num: bigint, den: bigint = 1n) {
    if (den === 0n) throw new RangeError('zero denominator');
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num < 0n ? -num : num, den);
    this.num = num / g;
    this.den = den / g;
  }

  static of(n: number | bigint): Fraction {
    if (typeof n === 'number' && !Number.isSafeInteger(n)) throw new RangeError(`not a safe integer: ${n}`);
    return new Fraction(BigInt(n));
  }

  add(o: Fraction): Fraction {
    return new Fraction(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  sub(o: Fraction): Fraction {
    return new Fraction(this.num * o.den - o.num * this.den, this.den * o.den);
  }

  mul(o: Fraction): Fraction {
    return new Fraction(this.num * o.num, this.den * o.den);
  }

  div(o: Fraction): Fraction {
    if (o.num === 0n) throw new RangeError('division by zero');
    return new Fraction(this.num * o.den, this.den * o.num);
  }

  /** this^k for any integer k (a negative k inverts). */
  pow(k: number): Fraction {
    if (!Number.isInteger(k)) throw new RangeError('integer exponents only');
    const e = BigInt(Math.abs(k));
    const up = new Fraction(this.num ** e, this.den ** e);
    return k >= 0 ? up : Fraction.of(1).div(up);
  }

  /** The greatest integer ≤ this. */
  floor(): bigint {
    const q = this.num / this.den; // BigInt division truncates toward zero
    return this.num < 0n && q * this.den !== this.num ? q - 1n : q;
  }

  /** The least integer ≥ this. */
  ceil(): bigint {
    return -new Fraction(-this.num, this.den).floor();
  }

  /** Rounded to the nearest integer, an exact half going up (towards +∞). */
  roundHalfUp(): bigint {
    return this.add(new Fraction(1n, 2n)).floor();
  }

  compare(o: Fraction): -1 | 0 | 1 {
    const d = this.num * o.den - o.num * this.den;
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }

  toString(): string {
    return this.den === 1n ? `${this.num}` : `${this.num}/${this.den}`;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

/** The exact Price-table installment, P·r / (1 − (1 + r)^−n), r = basisPoints / 10 000. */
export function exactPmt(principal: number, installments: number, basisPoints: number): Fraction {
  const p = Fraction.of(principal);
  const r = new Fraction(BigInt(basisPoints), 10_000n);
  const one = Fraction.of(1);
  return p.mul(r).div(one.sub(one.add(r).pow(-installments)));
}

export interface OraclePlan {
  total: number;
  installmentAmounts: number[];
}

/** What the buyer should pay under the rule above, computed exactly. */
export function oraclePlan(
  baseAmount: number,
  installments: number,
  options: { noFees: boolean; monthlyRateBasisPoints: number },
): OraclePlan {
  const base = BigInt(baseAmount);
  const n = BigInt(installments);
  if (installments === 1 || options.noFees || options.monthlyRateBasisPoints === 0 || baseAmount === 0) {
    const each = base / n;
    const remainder = base % n;
    const parts = Array.from({ length: installments }, (_, k) => (BigInt(k) < remainder ? each + 1n : each));
    return { total: baseAmount, installmentAmounts: parts.map(toSafeNumber) };
  }
  const rounded = exactPmt(baseAmount, installments, options.monthlyRateBasisPoints).roundHalfUp();
  const evenSplitUp = new Fraction(base, n).ceil();
  const each = rounded > evenSplitUp ? rounded : evenSplitUp;
  return {
    total: toSafeNumber(each * n),
    installmentAmounts: Array.from({ length: installments }, () => toSafeNumber(each)),
  };
}

function toSafeNumber(x: bigint): number {
  const n = Number(x);
  if (!Number.isSafeInteger(n)) throw new RangeError(`${x} is not a safe integer`);
  return n;
}
