import { ApplicationFailure } from '@temporalio/activity';
import type { PendingPaymentIssue } from '../contracts/checkout.ts';
import { checkoutKeys, type GatewayPaymentData } from '../domain/checkout.ts';
import { GATEWAY_REFUSAL } from '../domain/failures.ts';
import { pixValiditySeconds } from '../domain/pending-payments.ts';
import { renewalPixRidesOnMandate } from '../domain/mandate-requests.ts';
import { checkoutMandateTerms } from '../domain/pix-automatico.ts';
import { checkoutPriceTerms } from '../db/catalog/checkout-reads.ts';
import { findCheckoutRow } from '../db/checkout/records.ts';
import { liveMandateOfSubscription } from '../db/mandate/mandates.ts';
import type { Orm } from '../db/orm.ts';
import { offersPixAutomatico } from '../gateway/capabilities.ts';
import { pngDataUrl } from '../gateway/payment-documents.ts';
import type { GatewayTransaction, PaymentGateway, SaleDetails } from '../gateway/port.ts';
import { callGateway } from './gateway-failures.ts';
import { optedIntoPixAutomatico } from './checkout-records.ts';

export type MandateTerms = NonNullable<ReturnType<typeof checkoutMandateTerms>>;

/**
 * A Pix Automático checkout's mandate terms, when its pix is issued: its price's periodicity and the day
 * its first period will end. A checkout created so, or one whose buyer chose it for this pix (the
 * confirmation's opt-in, checked by the confirmation's rules). None for any other checkout, or for a
 * renewal's or an upgrade's, whose subscription keeps its own billing.
 */
export async function checkoutMandateTermsOf(orm: Orm, checkoutId: string): Promise<MandateTerms | null> {
  const em = orm.em.fork();
  const c = await findCheckoutRow(em, checkoutId);
  const billedByMandate = c && (c.recurrenceBilling === 'pix_automatico' || optedIntoPixAutomatico(c));
  if (!billedByMandate || c.renewalPeriod !== null || c.subscriptionId !== null) return null;
  const price = await checkoutPriceTerms(em, c.productPriceId);
  if (!price?.priceInterval) return null;
  const recurring = {
    interval: price.priceInterval,
    intervalCount: price.priceIntervalCount ?? 1,
    billing: 'pix_automatico',
  };
  return checkoutMandateTerms(recurring, Date.now());
}

/**
 * A Pix Automático checkout's pix (journey 3, decision 0096): the mandate, offered with an immediate pix
 * that pays the first period; its QR code pays that pix and authorizes the mandate at once. The buyer is
 * shown the mandate's QR code and terms; the checkout waits for the pix as for any other.
 */
export async function issueMandate(
  gateway: PaymentGateway,
  input: PendingPaymentIssue,
  terms: MandateTerms,
  sale: SaleDetails,
  now: number,
): Promise<{ issued: GatewayTransaction; mandate: NonNullable<GatewayPaymentData['pix_automatico']> }> {
  if (!offersPixAutomatico(gateway)) {
    throw ApplicationFailure.nonRetryable('The gateway offers no Pix Automático', GATEWAY_REFUSAL);
  }
  const label = sale.items?.[0]?.title ?? sale.merchantName ?? 'Assinatura';
  const mandate = await callGateway(() =>
    gateway.createMandate(
      {
        reference: input.checkoutId,
        objectLabel: label.slice(0, 35),
        debtor: { name: input.buyer.name ?? '', taxId: input.buyer.taxId ?? '', email: input.buyer.email },
        startDate: terms.startDate,
        endDate: null,
        periodicity: terms.periodicity,
        fixedAmount: null,
        minimumAmount: null,
        retryPolicy: 'three_in_seven_days',
        journey: 'journey_3',
        firstCharge: {
          amount: input.amount,
          expiresInSeconds: pixValiditySeconds(new Date(input.expiresAt), new Date(now)),
        },
      },
      checkoutKeys.mandate(input.checkoutId, input.slot),
    ),
  );
  const first = mandate.firstPaymentId
    ? await callGateway(() => gateway.getTransaction(mandate.firstPaymentId!))
    : null;
  if (!first?.pix) throw new Error(`The gateway's mandate ${mandate.id} has no first payment`);
  const qrCode = mandate.qrCode ?? first.pix.qrCode;
  return {
    issued: { ...first, pix: { ...first.pix, qrCode, qrCodeImage: pngDataUrl(qrCode) } },
    mandate: {
      mandate_id: mandate.id,
      periodicity: terms.periodicity,
      start_date: terms.startDate,
      amount: input.amount,
    },
  };
}

/**
 * A renewal checkout's pix when its subscription's payer is offered a mandate with it (journey 4,
 * decision 0100): the due-date charge the mandate's QR code pays, shown with that QR code, so that
 * paying the renewal and accepting the recurrence is one step. Null for any other checkout, or when the
 * offer cannot ride on this pix (renewalPixRidesOnMandate): then the renewal has a pix of its own.
 */
export async function mandateRenewalPix(
  orm: Orm,
  gateway: PaymentGateway,
  input: PendingPaymentIssue,
): Promise<GatewayTransaction | null> {
  const em = orm.em.fork();
  const c = await findCheckoutRow(em, input.checkoutId);
  if (!c || c.renewalPeriod === null || c.subscriptionId === null) return null;
  const mandate = await liveMandateOfSubscription(em, c.subscriptionId);
  if (!mandate?.firstPaymentId || !offersPixAutomatico(gateway)) return null;
  const charge = await callGateway(() => gateway.getTransaction(mandate.firstPaymentId!));
  if (!renewalPixRidesOnMandate(mandate, charge, input.amount) || !charge?.pix) return null;
  // The composite QR code, the gateway's: our row does not keep it (it pays the renewal).
  const qrCode = (await callGateway(() => gateway.getMandate(mandate.gatewayMandateId)))?.qrCode;
  if (!qrCode) return null;
  return { ...charge, pix: { ...charge.pix, qrCode, qrCodeImage: pngDataUrl(qrCode) } };
}
