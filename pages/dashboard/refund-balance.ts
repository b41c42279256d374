import { refundableAmount } from '../../domain/refunds.ts';
import type { SaleBody } from '../../use-cases/schemas/sales.ts';
import type { Locale } from '../locale.ts';
import { amount } from './components.ts';
import type { Notice } from './layout.ts';
import { dashboardMessages } from './messages.ts';

/**
 * A sale's refundable balance as the refund form shows it, so that the merchant is told before the
 * confirmation, in the page's language, what the API would refuse after it (its rule: domain/refunds.ts).
 */

/** What is still refundable: paid, less refunded or taken back by a lost dispute, less refunds pending. */
export const saleRefundable = (sale: SaleBody, refunds: readonly { status: string; amount: number }[]): number =>
  refundableAmount(
    sale.total_amount,
    sale.refunded_amount + sale.charged_back_amount,
    refunds.filter((r) => r.status === 'pending').reduce((sum, r) => sum + r.amount, 0),
  );

/**
 * Why an amount typed (cents; null for "all that is left"; undefined when not an amount) cannot be
 * refunded, or null when it can.
 */
export function refundAmountRefusal(
  locale: Locale,
  sale: SaleBody,
  cents: number | null | undefined,
  refundable: number,
): Notice | null {
  const t = dashboardMessages(locale).refund;
  if (cents === undefined || cents === 0) return { kind: 'alert', title: t.notAnAmount };
  if (refundable === 0) return { kind: 'alert', title: t.nothingLeft };
  if (cents !== null && cents > refundable) {
    return { kind: 'alert', title: t.overBalance(amount(locale, refundable, sale.currency)) };
  }
  return null;
}
