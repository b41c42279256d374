import type { PortalActivation } from '../../api/portal-mandates.ts';
import type { SubscriptionView } from '../../use-cases/portal-reads.ts';
import { calendarDate, money, type Locale } from '../locale.ts';
import { html, trustedSvg } from '../render.ts';
import { CsrfField } from './layout.ts';
import { portalPaths } from './paths.ts';

/**
 * "Ativar Pix Automático" on a manual subscription's page (decision 0101): the button that asks for a
 * journey 2 mandate (a QR code that only authorizes), then, while the payer has not answered, its QR
 * code, the copy-and-paste code, what it will charge and when, and how to cancel. The page's script
 * (portal-mandate.js) copies the code and reloads the page once the mandate is no longer waiting.
 */

/** The page's script: the copy button, and the status poll while the QR code waits. */
export const ACTIVATION_SCRIPTS = ['portal-mandate.js'];

const ptBR = {
  title: 'Pix Automático',
  offer:
    'Pague os próximos períodos automaticamente pelo Pix Automático: você autoriza uma vez no app do seu banco e as cobranças são feitas sozinhas, sem precisar pagar um pix a cada período.',
  activate: 'Ativar Pix Automático',
  waitingTitle: 'Autorize o Pix Automático no app do seu banco',
  waitingHelp: 'Leia o QR code com o app do seu banco, ou copie o código, e confirme a autorização.',
  qr: 'QR code da autorização do Pix Automático',
  code: 'Pix copia e cola',
  copy: 'Copiar',
  copied: 'Copiado',
  amount: (amount: string, per: string) => `${amount} cobrados ${per}.`,
  per: { day: 'todo dia', week: 'toda semana', month: 'todo mês', year: 'todo ano' } as Record<string, string>,
  next: (date: string) => `Primeira cobrança pelo Pix Automático em ${date}. Até lá, nada muda.`,
  howToCancel:
    'Você pode cancelar quando quiser: aqui, em “Cancelar o pedido” (ou “Cancelar autorização” depois de autorizado), ou no app do seu banco.',
  waiting: 'Aguardando a sua autorização…',
  withdraw: 'Cancelar o pedido',
  reload: 'Já autorizei: atualizar a página',
  withdrawExplain:
    'O pedido deixa de valer e nada muda na assinatura: ela continua sendo paga a cada período, como hoje. Você pode ativar o Pix Automático de novo depois.',
  withdrawConfirm: 'Confirmar o cancelamento do pedido',
};

const en: typeof ptBR = {
  title: 'Pix Automático',
  offer:
    "Pay the next periods automatically with Pix Automático: you authorize once in your bank's app and the charges are made on their own, with no pix to pay each period.",
  activate: 'Turn on Pix Automático',
  waitingTitle: "Authorize Pix Automático in your bank's app",
  waitingHelp: "Scan the QR code with your bank's app, or copy the code, and confirm the authorization.",
  qr: 'QR code of the Pix Automático authorization',
  code: 'Pix copy and paste code',
  copy: 'Copy',
  copied: 'Copied',
  amount: (amount, per) => `${amount} charged ${per}.`,
  per: { day: 'every day', week: 'every week', month: 'every month', year: 'every year' },
  next: (date) => `First charge through Pix Automático on ${date}. Until then, nothing changes.`,
  howToCancel:
    "You can cancel whenever you like: here, with “Cancel the request” (or “Cancel authorization” once authorized), or in your bank's app.",
  waiting: 'Waiting for your authorization…',
  withdraw: 'Cancel the request',
  reload: 'I have authorized it: refresh the page',
  withdrawExplain:
    'The request stops working and nothing changes in the subscription: it goes on being paid each period, as now. You can turn Pix Automático on again later.',
  withdrawConfirm: 'Confirm cancelling the request',
};

export const activationWordsFor = (locale: Locale) => (locale === 'en' ? en : ptBR);

export function MandateActivation({
  activation,
  qrSvg,
  view,
  csrf,
  locale,
}: {
  activation: NonNullable<PortalActivation>;
  /** The waiting mandate's QR code, drawn from its copy-and-paste code. */
  qrSvg: string | null;
  view: SubscriptionView;
  csrf: string;
  locale: Locale;
}) {
  const w = activationWordsFor(locale);
  const s = view.subscription;
  if (activation.kind === 'offer') {
    return html`<section aria-labelledby="pix-automatico" class="portal-actions" data-testid="mandate-offer">
      <h2 id="pix-automatico">${w.title}</h2>
      <p>${w.offer}</p>
      <form method="post" action=${portalPaths.activateMandate(s.id)}>
        <${CsrfField} token=${csrf} />
        <button type="submit">${w.activate}</button>
      </form>
    </section>`;
  }
  const per = view.interval ? (w.per[view.interval] ?? view.interval) : '';
  return html`<section
    aria-labelledby="pix-automatico"
    class="portal-actions"
    data-testid="mandate-activation"
    data-poll=${portalPaths.mandateStatus(s.id)}
  >
    <h2 id="pix-automatico">${w.waitingTitle}</h2>
    <p>${w.waitingHelp}</p>
    <p class="portal-amount" data-testid="mandate-amount">${w.amount(money(locale, s.amount, s.currency), per)}</p>
    <p data-testid="mandate-first-charge">${w.next(calendarDate(locale, activation.startDate))}</p>
    ${qrSvg ? trustedSvg(qrSvg, 'qr', w.qr) : null}
    <div class="field copy">
      <label for="mandate-code">${w.code}</label>
      <div class="row">
        <input id="mandate-code" type="text" readonly value=${activation.qrCode} spellcheck="false" />
        <button type="button" data-copy="mandate-code" data-copied-label=${w.copied}>${w.copy}</button>
      </div>
    </div>
    <p role="status" class="muted">${w.waiting}</p>
    <noscript
      ><p><a href=${portalPaths.subscription(s.id)}>${w.reload}</a></p></noscript
    >
    <p class="muted">${w.howToCancel}</p>
    <p><a class="button secondary" href=${portalPaths.revokeMandate(s.id)}>${w.withdraw}</a></p>
  </section>`;
}
