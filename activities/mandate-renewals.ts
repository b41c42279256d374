import { ApplicationFailure } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import { findCheckoutRow } from '../db/checkout/records.ts';
import type { Orm } from '../db/orm.ts';
import type { findSubscription } from '../db/subscription/rows.ts';
import { renewalMandateTerms } from '../domain/mandate-requests.ts';
import type { MandatePeriodicity } from '../domain/pix-automatico.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import { openRenewalCheckout } from '../use-cases/renewal-checkouts.ts';

/**
 * Journey 4 (decision 0100): the mandate rides on the subscription's next renewal checkout. The
 * checkout is opened now (or the payable one found), open until the payer's deadline, so that the
 * due-date charge the QR code pays is for the amount that checkout asks; its pix, once its buyer
 * chooses pix, is that charge (activities/checkout-pending-payments.ts).
 */
export async function renewalForMandate(
  deps: { orm: Orm; gateway: PaymentGateway; temporal?: Client; config?: Config },
  s: NonNullable<Awaited<ReturnType<typeof findSubscription>>>,
  periodicity: MandatePeriodicity,
  answerBy: string,
) {
  const refuse = (why: string) => ApplicationFailure.nonRetryable(why, 'MandateNotAllowed');
  if (!deps.temporal || !deps.config) throw refuse('This worker cannot open renewal checkouts');
  const original = s.checkoutId ? await findCheckoutRow(deps.orm.em.fork(), s.checkoutId) : null;
  if (!original) throw refuse('The subscription has no checkout to renew');
  const { checkout } = await openRenewalCheckout(
    { orm: deps.orm, temporal: deps.temporal, config: deps.config, gateway: deps.gateway },
    { organizationId: s.organizationId, original, subscription: s, expiresAt: new Date(answerBy) },
  );
  // A renewal its buyer is paying already has its own pix: the offer cannot ride on it.
  if (checkout.status !== 'open') throw refuse(`The renewal checkout ${checkout.id} is ${checkout.status} already`);
  const terms = renewalMandateTerms(new Date(s.currentPeriodEnd).getTime(), periodicity, Date.parse(answerBy));
  return {
    checkoutId: checkout.id,
    startDate: terms.startDate,
    dueCharge: {
      amount: Number(checkout.amount),
      dueDate: terms.dueDate,
      daysPayableAfterDue: terms.daysPayableAfterDue,
    },
  };
}
