import { ApplicationFailure } from '@temporalio/activity';
import type { CheckoutActivities, PendingPaymentIssue } from '../contracts/checkout.ts';
import { syncTransaction } from '../db/checkout/transactions.ts';
import { checkoutKeys, type GatewayPaymentData, type PaymentSummary } from '../domain/checkout.ts';
import { boletoDueDate, pixValiditySeconds } from '../domain/pending-payments.ts';
import { boletoPayableUntil } from '../gateway/payment-documents.ts';
import { GatewayError, type GatewayTransaction, type PaymentGateway, type SaleDetails } from '../gateway/port.ts';
import { checkoutMandateTermsOf, issueMandate, mandateRenewalPix, type MandateTerms } from './checkout-mandates.ts';
import { assertPayable, saleDetailsOf, showOnCheckout, type PaymentDeps } from './checkout-payment-context.ts';
import { callGateway } from './gateway-failures.ts';
import { summarize } from './payment-summaries.ts';

/** The pix or boleto: issued and shown on the checkout, synced from the gateway, voided past its deadline. */
export function pendingPaymentActivities(deps: PaymentDeps) {
  const { orm, gateway } = deps;
  return {
    /** Issues the pix or boleto for the amount the confirmation fixed, and shows it on the checkout. */
    async issuePendingPayment(input: PendingPaymentIssue): Promise<{ payment: PaymentSummary; payBy: string }> {
      const terms = input.kind === 'pix' ? await checkoutMandateTermsOf(orm, input.checkoutId) : null;
      return issuePendingPayment(deps, input, terms);
    },

    /** The gateway's word on a transaction, copied into our transactions table. */
    async syncPayment(gatewayTransactionId: string): Promise<PaymentSummary> {
      const t = await callGateway(() => gateway.getTransaction(gatewayTransactionId));
      if (!t) {
        throw ApplicationFailure.nonRetryable(
          `Gateway has no transaction ${gatewayTransactionId}`,
          'UnknownTransaction',
        );
      }
      await syncTransaction(orm.em.fork(), t);
      return summarize(t);
    },

    /**
     * Voids an unpaid pix/boleto past its deadline, or a card payment under review; if it was paid (or
     * refused) meanwhile, says so instead.
     */
    async cancelPendingPayment(checkoutId: string, gatewayTransactionId: string): Promise<PaymentSummary> {
      try {
        return summarize(
          await gateway.cancel(gatewayTransactionId, checkoutKeys.cancel(checkoutId, gatewayTransactionId)),
        );
      } catch (err) {
        if (!(err instanceof GatewayError) || err.retryable) throw err;
        const t = await callGateway(() => gateway.getTransaction(gatewayTransactionId));
        if (!t)
          throw ApplicationFailure.nonRetryable(
            `Gateway has no transaction ${gatewayTransactionId}`,
            'UnknownTransaction',
          );
        return summarize(t);
      }
    },
  } satisfies Partial<CheckoutActivities>;
}

async function issuePendingPayment(
  { orm, gateway }: PaymentDeps,
  input: PendingPaymentIssue,
  terms: MandateTerms | null,
): Promise<{ payment: PaymentSummary; payBy: string }> {
  await assertPayable(orm, input.checkoutId, input.slot);
  const sale = await saleDetailsOf(orm, input);
  // A renewal's pix may be the due-date charge of the mandate offered with it (journey 4, decision 0100).
  const riding = input.kind === 'pix' && !terms ? await mandateRenewalPix(orm, gateway, input) : null;
  const { issued, payBy, mandate } = riding
    ? { issued: riding, payBy: new Date(riding.pix!.expiresAt), mandate: undefined }
    : await issuePixOrBoleto(gateway, input, sale, terms);
  const payment = summarize(issued);
  if (mandate) payment.paymentData.pix_automatico = mandate;
  await showOnCheckout(orm, input.checkoutId, payment);
  return { payment, payBy: payBy.toISOString() };
}

/**
 * A Pix Automático checkout's pix whose answer was lost: the journey 3 mandate was made under the
 * mandate's key (and its first pix under keys formed from it), which the pix's key does not find. The
 * creation asked again under that key finds it: a repeat returns the mandate the gateway made, with its
 * first pix (issuing a pix takes no money, so one the gateway never made is made now, as a retry would).
 * Undefined for any other payment, which its own key finds.
 */
export async function findIssuedMandate(
  deps: PaymentDeps,
  input: PendingPaymentIssue,
): Promise<PaymentSummary | undefined> {
  const terms = input.kind === 'pix' ? await checkoutMandateTermsOf(deps.orm, input.checkoutId) : null;
  if (!terms) return undefined;
  return (await issuePendingPayment(deps, input, terms)).payment;
}

/** The pix or boleto at the gateway, keyed by the checkout's payment slot, and the last moment it can be paid. */
async function issuePixOrBoleto(
  gateway: PaymentGateway,
  input: PendingPaymentIssue,
  sale: SaleDetails,
  mandateTerms: MandateTerms | null,
): Promise<{ issued: GatewayTransaction; payBy: Date; mandate?: GatewayPaymentData['pix_automatico'] }> {
  const now = Date.now();
  let issued: GatewayTransaction;
  let payBy: Date;
  if (input.kind === 'pix' && mandateTerms) {
    const offered = await issueMandate(gateway, input, mandateTerms, sale, now);
    return { ...offered, payBy: new Date(offered.issued.pix!.expiresAt) };
  } else if (input.kind === 'pix') {
    issued = await callGateway(() =>
      gateway.createPixCharge(
        {
          reference: input.checkoutId,
          amount: input.amount,
          currency: input.currency,
          buyer: input.buyer.email ? input.buyer : null,
          expiresInSeconds: pixValiditySeconds(new Date(input.expiresAt), new Date(now)),
          sale,
        },
        checkoutKeys.pix(input.checkoutId, input.slot),
      ),
    );
    payBy = new Date(issued.pix!.expiresAt);
  } else {
    issued = await callGateway(() =>
      gateway.createBoleto(
        {
          reference: input.checkoutId,
          amount: input.amount,
          currency: input.currency,
          buyer: input.buyer,
          dueDate: boletoDueDate(new Date(now)),
          sale,
        },
        checkoutKeys.boleto(input.checkoutId, input.slot),
      ),
    );
    // Payable through the due date and the grace days after it (UTC), as the gateway counts them.
    payBy = boletoPayableUntil(issued.boleto!.dueDate);
  }
  return { issued, payBy };
}
