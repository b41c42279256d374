import { checkoutMandateTerms, type MandatePeriodicity } from '../../domain/pix-automatico.ts';
import type { PeriodInterval } from '../../domain/periods.ts';
import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { html } from '../render.ts';
import { calendarDate, money, type Locale } from '../locale.ts';
import type { Messages } from './messages.ts';

/**
 * A Pix Automático checkout's words (decision 0096, journey 3): the buyer pays the first period with a pix
 * whose QR code also authorizes the mandate; the page states the mandate's terms before and after.
 */

/** What the page states of the mandate: what each period costs, how often, and the next charge's day. */
export interface MandateTermsView {
  periodicity: MandatePeriodicity;
  startDate: string;
  amount: number;
}

export const isPixAutomaticoCheckout = (checkout: PublicCheckout) =>
  checkout.recurrence_billing === 'pix_automatico' && checkout.price.type === 'recurring';

/** A checkout whose buyer may choose Pix Automático beside pix (decision 0096's opt-in; the API says whether). */
export const offersPixAutomaticoChoice = (checkout: PublicCheckout) =>
  checkout.pix_automatico_offered && checkout.status === 'open';

/**
 * The terms before payment, as the confirmation will set them (domain/pix-automatico.ts
 * checkoutMandateTerms, the rule activities/checkout-mandates.ts applies), for a Pix Automático checkout or
 * the buyer's choice of it: null for a price Pix Automático cannot bill (the API refuses it).
 */
export function plannedTerms(checkout: PublicCheckout, now: Date): MandateTermsView | null {
  const { interval, interval_count } = checkout.price;
  if (!interval) return null;
  const recurring = {
    interval: interval as PeriodInterval,
    intervalCount: interval_count ?? 1,
    billing: 'pix_automatico',
  };
  const terms = checkoutMandateTerms(recurring, now.getTime());
  return terms ? { ...terms, amount: checkout.amount } : null;
}

/** The terms the confirmation set, as the checkout's gateway_payment_data.pix_automatico states them. */
export const termsOf = (mandate: { periodicity: MandatePeriodicity; start_date: string; amount: number }) => ({
  periodicity: mandate.periodicity,
  startDate: mandate.start_date,
  amount: mandate.amount,
});

/** "Pix Automático: pagar todo mês automaticamente", the method's label. */
export const pixAutomaticoLabel = (t: Messages, periodicity: string) =>
  t.pixAutomatico(t.pixAutomaticoEvery[periodicity] ?? periodicity);

/** The mandate's terms, in the buyer's words: before payment (with the first period paid now) and beside the QR code. */
export function MandateTerms({
  terms,
  firstNow,
  t,
  locale,
}: {
  terms: MandateTermsView;
  /** Before payment: say the first period is paid now, with the QR code. */
  firstNow: boolean;
  t: Messages;
  locale: Locale;
}) {
  const every = t.pixAutomaticoEvery[terms.periodicity] ?? terms.periodicity;
  return html`<section class="mandate-terms" aria-labelledby="mandate-terms-title" data-testid="mandate-terms">
    <h3 id="mandate-terms-title">${t.pixAutomaticoTermsTitle}</h3>
    <ul>
      <li data-testid="mandate-amount">${t.pixAutomaticoAmount(money(locale, terms.amount), every)}</li>
      ${firstNow ? html`<li>${t.pixAutomaticoFirstNow}</li>` : null}
      <li data-testid="mandate-next">${t.pixAutomaticoNext(calendarDate(locale, terms.startDate))}</li>
      <li>${t.pixAutomaticoBank}</li>
      <li>${t.pixAutomaticoCancel}</li>
    </ul>
  </section>`;
}

/** The buyer's choice of Pix Automático, a method beside pix: its payer's needs and terms, and its button. */
export function PixAutomaticoPanel({ terms, t, locale }: { terms: MandateTermsView; t: Messages; locale: Locale }) {
  return html`<fieldset class="method-panel" data-method="pix_automatico">
    <legend class="visually-hidden">${pixAutomaticoLabel(t, terms.periodicity)}</legend>
    <p class="muted">${t.pixAutomaticoNeedsPayer}</p>
    <${MandateTerms} terms=${terms} firstNow=${true} t=${t} locale=${locale} />
    <button type="submit">${t.payPixAutomatico}</button>
  </fieldset>`;
}
