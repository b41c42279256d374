import type { Orm } from '../db/orm.ts';
import { invoiceChargeKey, notInvoiceable } from '../domain/invoices.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { findChargeByKey } from './card-charges.ts';
import { summarize } from './checkout-payments.ts';
import { chargeSavedCard } from './subscription-extra-charges.ts';
import { lockedTerms } from './subscription-lifecycle.ts';
import type { InvoiceActivities, InvoiceCardCharge, InvoiceCardChargeAnswer } from '../contracts/invoice.ts';

/**
 * A manual subscription's extra charge, which this engine charges (no gateway invoice): the kept card,
 * once, through the one card-charge path, keyed by the invoice (invoiceChargeKey), so a retried try
 * gets the gateway's first answer and a lost one is found by its key. The record is settleInvoice's,
 * the gateway-billed invoices' own.
 */
export function createInvoiceChargeActivities(deps: { orm: Orm; gateway: PaymentGateway }) {
  const { gateway } = deps;

  return {
    /**
     * Charges the invoice's amount to the subscription's kept card (captured); a decline is an answer.
     * A subscription that can no longer be charged (it ended) is not charged, unless an earlier try of
     * this charge reached the gateway: its answer is taken then, never money without its record.
     */
    async chargeInvoiceCard(input: InvoiceCardCharge): Promise<InvoiceCardChargeAnswer> {
      const t = await lockedTerms(deps.orm.em.fork(), input.subscriptionId);
      const key = invoiceChargeKey(input.invoiceId);
      const why = notInvoiceable({
        status: t.status,
        recurrenceBilling: t.recurrenceBilling,
        gatewaySubscriptionId: t.gatewaySubscriptionId ?? null,
        cardTokenId: t.cardTokenId ?? null,
      });
      if (why && !(await findChargeByKey(gateway, key))) return { notCharged: why };
      const description = input.description ?? 'Extra charge';
      return { payment: await chargeSavedCard(gateway, t, { amount: input.amount, key, description }) };
    },

    /** What the gateway made under the invoice's charge key, if anything: how a lost answer is resolved. */
    async findInvoiceCharge(invoiceId: string) {
      const found = await findChargeByKey(gateway, invoiceChargeKey(invoiceId));
      return found ? summarize(found) : null;
    },
  } satisfies Partial<InvoiceActivities>;
}
