import { chargedPayment } from '../../domain/installments.ts';
import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { money, type Locale } from '../locale.ts';
import type { Messages } from './messages.ts';

/**
 * What the buyer reads of what the card is charged: the instalments chosen, each one and the total with
 * interest (the consumer-protection rule: the total cost in plain sight). The amounts come from the
 * checkout's instalment options (domain/installments.ts, api/checkout-public.ts) or, once paid, from the
 * sale; nothing here computes interest.
 */
export interface BuyerPlan {
  installments: number;
  /** Each instalment, in cents. */
  each: number;
  /** What the card is charged in all, interest included. */
  total: number;
  /** The checkout's amount, before interest. */
  base: number;
}

/** The plan of the instalments the form chose (`requested`, as posted), or of one payment. */
export function chosenPlan(checkout: PublicCheckout, requested?: string): BuyerPlan {
  const options = checkout.installment_options;
  const option = options.find((o) => String(o.installments) === requested) ?? options[0];
  if (!option) return { installments: 1, each: checkout.amount, total: checkout.amount, base: checkout.amount };
  return {
    installments: option.installments,
    each: option.installment_amount,
    total: option.total,
    base: checkout.amount,
  };
}

/** The plan of a paid checkout, from what its sale recorded (the gateway's interest, not our estimate). */
export function paidPlan(checkout: PublicCheckout, sale: { amount: number; installments: number }): BuyerPlan {
  const paid = chargedPayment(sale.amount, sale.installments);
  return {
    installments: paid.installments,
    each: paid.installment_amount,
    total: paid.total_amount,
    base: checkout.amount,
  };
}

/** "Em 12x de R$ 90,26, com R$ 184,12 de juros", "Em 3x de R$ 33,30 sem juros", "À vista". */
export function planText(t: Messages, locale: Locale, plan: BuyerPlan): string {
  const interest = plan.total - plan.base;
  return t.planLine(plan.installments, money(locale, plan.each), interest > 0 ? money(locale, interest) : null);
}

/** The receipt's account of how it was paid: the method, and for a card the plan. */
export function paidHow(t: Messages, locale: Locale, method: string, plan: BuyerPlan): string {
  if (method === 'pix') return t.pix;
  if (method === 'boleto') return t.boleto;
  const how = planText(t, locale, plan);
  return `${t.card}, ${how.charAt(0).toLowerCase()}${how.slice(1)}`;
}
