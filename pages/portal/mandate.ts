import type { PortalMandate } from '../../api/portal-mandates.ts';
import { calendarDate, money, type Locale } from '../locale.ts';
import { html } from '../render.ts';
import { CsrfField, renderPortalPage } from './layout.ts';
import type { Messages } from './messages.ts';
import { activationWordsFor } from './mandate-activation.ts';
import { portalPaths } from './paths.ts';
import type { CustomerEntity, SubscriptionView } from '../../use-cases/portal-reads.ts';
import type { BrandView } from '../../api/organization-brand.ts';

/**
 * A Pix Automático subscription's mandate in the portal (decision 0096): its status, the payer's bank
 * journey, periodicity, the next charge, the charges with their attempts and reasons in words, and the
 * revocation behind its confirmation page.
 */

const ptBR = {
  title: 'Pix Automático',
  status: 'Autorização',
  statuses: {
    created: 'Aguardando a sua autorização no app do banco',
    approved: 'Autorizada: as cobranças são feitas automaticamente',
    rejected: 'Recusada',
    expired: 'Expirou sem ser autorizada',
    cancelled: 'Cancelada',
  } as Record<string, string>,
  journey: 'Como foi autorizada',
  journeys: {
    journey_1: 'No app do banco, pela notificação da loja',
    journey_2: 'Lendo um QR code',
    journey_3: 'Lendo o QR code do primeiro pagamento',
    journey_4: 'Lendo o QR code de uma cobrança',
    pending: 'Ainda não autorizada',
  } as Record<string, string>,
  periodicity: 'Frequência',
  periodicities: {
    weekly: 'Toda semana',
    monthly: 'Todo mês',
    quarterly: 'Todo trimestre',
    semiannual: 'Todo semestre',
    yearly: 'Todo ano',
  } as Record<string, string>,
  payerMaximum: 'Valor máximo definido por você',
  nextCharge: 'Próxima cobrança',
  nextChargeText: (amount: string, date: string) => `${amount} em ${date}`,
  none: 'Nenhuma',
  cancelledBy: {
    payer: 'por você',
    payer_psp: 'pelo seu banco',
    receiver: 'a seu pedido ou pela loja',
    receiver_psp: 'pelo banco da loja',
  } as Record<string, string>,
  charges: 'Cobranças do Pix Automático',
  noCharges: 'Nenhuma cobrança pelo Pix Automático ainda: o primeiro período foi pago com o QR code.',
  period: 'Período',
  due: 'Vencimento',
  amount: 'Valor',
  result: 'Situação',
  attempts: 'Tentativas',
  chargeStatuses: {
    created: 'Agendada',
    active: 'Em andamento',
    completed: 'Paga',
    expired: 'Não paga',
    rejected: 'Recusada',
    cancelled: 'Cancelada',
  } as Record<string, string>,
  attemptStatuses: {
    requested: 'pedida',
    scheduled: 'agendada',
    paid: 'paga',
    cancelled: 'cancelada',
    rejected: 'recusada',
    expired: 'sem saldo no dia',
  } as Record<string, string>,
  reasons: {
    insufficient_funds: 'Não havia saldo na conta no dia da cobrança',
    AM02: 'O valor passou do máximo que você definiu',
    AC05: 'A conta está encerrada',
    AC06: 'A conta está bloqueada',
    AB10: 'O seu banco não conseguiu processar o pagamento',
    SLDB: 'Você pediu o cancelamento',
    SLCR: 'A loja pediu o cancelamento',
    mandate_not_active: 'A autorização não estava mais ativa',
  } as Record<string, string>,
  revoke: 'Cancelar autorização',
  revokeTitle: 'Cancelar a autorização do Pix Automático',
  revokeExplain:
    'Depois de cancelada, nenhuma nova cobrança é feita pelo Pix Automático: o próximo período da assinatura não será cobrado e ela não se renova.',
  revokeConfirm: 'Confirmar o cancelamento da autorização',
  revokeBankToo: 'Você também pode cancelar a qualquer momento no app do seu banco.',
  back: 'Voltar',
};

const en: typeof ptBR = {
  title: 'Pix Automático',
  status: 'Authorization',
  statuses: {
    created: "Waiting for your authorization in your bank's app",
    approved: 'Authorized: the charges are made automatically',
    rejected: 'Refused',
    expired: 'Expired before it was authorized',
    cancelled: 'Cancelled',
  },
  journey: 'How it was authorized',
  journeys: {
    journey_1: "In the bank's app, from the shop's request",
    journey_2: 'By scanning a QR code',
    journey_3: "By scanning the first payment's QR code",
    journey_4: "By scanning a charge's QR code",
    pending: 'Not authorized yet',
  },
  periodicity: 'Frequency',
  periodicities: {
    weekly: 'Every week',
    monthly: 'Every month',
    quarterly: 'Every quarter',
    semiannual: 'Every six months',
    yearly: 'Every year',
  },
  payerMaximum: 'Maximum amount you set',
  nextCharge: 'Next charge',
  nextChargeText: (amount, date) => `${amount} on ${date}`,
  none: 'None',
  cancelledBy: {
    payer: 'by you',
    payer_psp: 'by your bank',
    receiver: 'at your request or by the shop',
    receiver_psp: "by the shop's bank",
  },
  charges: 'Pix Automático charges',
  noCharges: 'No Pix Automático charge yet: the first period was paid with the QR code.',
  period: 'Period',
  due: 'Due',
  amount: 'Amount',
  result: 'Status',
  attempts: 'Attempts',
  chargeStatuses: {
    created: 'Scheduled',
    active: 'In progress',
    completed: 'Paid',
    expired: 'Not paid',
    rejected: 'Refused',
    cancelled: 'Cancelled',
  },
  attemptStatuses: {
    requested: 'requested',
    scheduled: 'scheduled',
    paid: 'paid',
    cancelled: 'cancelled',
    rejected: 'refused',
    expired: 'no funds on the day',
  },
  reasons: {},
  revoke: 'Cancel authorization',
  revokeTitle: 'Cancel the Pix Automático authorization',
  revokeExplain:
    "Once cancelled, no new charge is made through Pix Automático: the subscription's next period will not be charged and it does not renew.",
  revokeConfirm: 'Confirm cancelling the authorization',
  revokeBankToo: "You can also cancel at any time in your bank's app.",
  back: 'Back',
};

const wordsFor = (locale: Locale) => (locale === 'en' ? en : ptBR);

/** A code in the customer's words: Portuguese ones where written, else the API's description. */
const reasonText = (w: typeof ptBR, code: string | null, described: string | null) =>
  code === null ? '' : (w.reasons[code] ?? described ?? code);

export function MandateSection({
  mandate,
  subscriptionId,
  locale,
}: {
  mandate: PortalMandate;
  subscriptionId: string;
  locale: Locale;
}) {
  const w = wordsFor(locale);
  const m = (cents: number) => money(locale, cents, mandate.currency);
  const ended = mandate.status === 'cancelled' || mandate.status === 'rejected' || mandate.status === 'expired';
  const by = mandate.cancellation?.by ? ` (${w.cancelledBy[mandate.cancellation.by] ?? mandate.cancellation.by})` : '';
  return html`<section aria-labelledby="mandate" class="portal-actions" data-testid="mandate">
    <h2 id="mandate">${w.title}</h2>
    <dl class="portal-facts">
      <dt>${w.status}</dt>
      <dd data-testid="mandate-status">${(w.statuses[mandate.status] ?? mandate.status) + by}</dd>
      <dt>${w.journey}</dt>
      <dd data-testid="mandate-journey">${w.journeys[mandate.journey] ?? mandate.journey}</dd>
      <dt>${w.periodicity}</dt>
      <dd data-testid="mandate-periodicity">${w.periodicities[mandate.periodicity] ?? mandate.periodicity}</dd>
      ${
        mandate.payer_maximum === null
          ? null
          : html`<dt>${w.payerMaximum}</dt>
              <dd>${m(mandate.payer_maximum)}</dd>`
      }
      <dt>${w.nextCharge}</dt>
      <dd data-testid="mandate-next-charge">
        ${
          mandate.next_charge
            ? w.nextChargeText(m(mandate.next_charge.amount), calendarDate(locale, mandate.next_charge.due_date))
            : w.none
        }
      </dd>
    </dl>
    <${MandateCharges} mandate=${mandate} locale=${locale} />
    ${
      ended
        ? null
        : html`<p>
            <a class="button secondary" href=${portalPaths.revokeMandate(subscriptionId)}>${w.revoke}</a>
          </p>`
    }
  </section>`;
}

function MandateCharges({ mandate, locale }: { mandate: PortalMandate; locale: Locale }) {
  const w = wordsFor(locale);
  if (mandate.charges.length === 0) return html`<p class="muted">${w.noCharges}</p>`;
  return html`<table class="portal-table" data-testid="mandate-charges">
    <caption>
      ${w.charges}
    </caption>
    <thead>
      <tr>
        <th scope="col">${w.period}</th>
        <th scope="col">${w.due}</th>
        <th scope="col">${w.amount}</th>
        <th scope="col">${w.result}</th>
        <th scope="col">${w.attempts}</th>
      </tr>
    </thead>
    <tbody>
      ${mandate.charges.map(
        (c) =>
          html`<tr>
            <td>${c.period}</td>
            <td>${calendarDate(locale, c.due_date)}</td>
            <td>${money(locale, c.amount, mandate.currency)}</td>
            <td>
              ${w.chargeStatuses[c.status] ?? c.status}${
                c.failure_reason ? `: ${reasonText(w, c.failure_reason, c.failure_description)}` : ''
              }
            </td>
            <td>
              ${c.attempts
                .map(
                  (a) =>
                    `${calendarDate(locale, a.settlement_date)} ${w.attemptStatuses[a.status] ?? a.status}` +
                    (a.failure_reason ? ` (${reasonText(w, a.failure_reason, a.failure_description)})` : ''),
                )
                .join('; ')}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/** The revocation's confirmation: what it means, and the one button that does it. */
export function renderRevokeMandatePage(model: {
  locale: Locale;
  customer: CustomerEntity;
  brand?: BrandView | null;
  view: SubscriptionView;
  csrf: string;
  t: Messages;
}): string {
  const id = model.view.subscription.id;
  // A manual subscription's mandate still waits for the payer: withdrawing it changes nothing in the billing.
  const waiting = model.view.subscription.recurrenceBilling === 'manual';
  const a = activationWordsFor(model.locale);
  const w = wordsFor(model.locale);
  const words = waiting
    ? { title: a.withdraw, explain: a.withdrawExplain, confirm: a.withdrawConfirm }
    : { title: w.revokeTitle, explain: w.revokeExplain, confirm: w.revokeConfirm };
  return renderPortalPage({
    locale: model.locale,
    customer: model.customer,
    brand: model.brand,
    section: 'overview',
    title: `${words.title}: ${model.view.productName}`,
    children: html`<p>${words.explain}</p>
      <p class="muted">${w.revokeBankToo}</p>
      <form method="post" action=${portalPaths.revokeMandate(id)}>
        <${CsrfField} token=${model.csrf} />
        <button type="submit" class="danger">${words.confirm}</button>
      </form>
      <p><a href=${portalPaths.subscription(id)}>${model.t.back}</a></p>`,
  });
}
