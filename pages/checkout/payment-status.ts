import type { VNode } from 'preact';
import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { html, trustedSvg } from '../render.ts';
import { calendarDate, money, type Locale } from '../locale.ts';
import type { Messages } from './messages.ts';
import { paidHow, type BuyerPlan } from './amounts.ts';

/** The parts of the page after the buyer has chosen: a pending pix or boleto, a card under review, processing, paid, closed. */

/** Where the page's script reads the checkout, and where it sends the buyer once paid. */
export interface Watch {
  pollUrl: string;
  successUrl: string;
  /** This page: without JavaScript nothing polls, so the buyer gets a link that shows the payment as it stands. */
  pagePath: string;
  refreshLabel: string;
}

function Watched({ watch, children }: { watch: Watch; children: VNode | VNode[] }) {
  return html`<section class="status" data-poll=${watch.pollUrl} data-success-url=${watch.successUrl}>
    ${children}
    <noscript
      ><p><a class="button" href=${watch.pagePath}>${watch.refreshLabel}</a></p></noscript
    >
  </section>`;
}

/** Remaining time as mm:ss (the script counts it down; this is what a page without script shows). */
function remaining(expiresAt: string, now: Date): string {
  const seconds = Math.max(0, Math.floor((Date.parse(expiresAt) - now.getTime()) / 1000));
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

function CopyField({ id, label, value, t }: { id: string; label: string; value: string; t: Messages }) {
  return html`<div class="field copy">
    <label for=${id}>${label}</label>
    <div class="row">
      <input id=${id} type="text" readonly value=${value} spellcheck="false" />
      <button type="button" data-copy=${id} data-copied-label=${t.copied}>${t.copy}</button>
    </div>
  </div>`;
}

export function PixPanel({
  pix,
  qrSvg,
  watch,
  now,
  canGoBack,
  mandate = null,
  t,
}: {
  pix: { qr_code: string; expires_at: string };
  qrSvg: string;
  watch: Watch;
  now: Date;
  /** Whether the checkout names a shop page to go back to (its cancel_url). */
  canGoBack: boolean;
  /** A Pix Automático checkout's mandate terms, stated beside its QR code. */
  mandate?: VNode | null;
  t: Messages;
}) {
  return html`<${Watched} watch=${watch}>
    <h2>${mandate ? t.pixAutomaticoTitle : t.pixTitle}</h2>
    <p>${mandate ? t.pixAutomaticoHelp : t.pixHelp}</p>
    ${mandate} ${trustedSvg(qrSvg, 'qr', t.pixQr)}
    <${CopyField} id="pix-code" label=${t.pixCode} value=${pix.qr_code} t=${t} />
    <p class="countdown">
      ${`${t.expiresIn} `}
      <time
        datetime=${pix.expires_at}
        data-countdown
        data-expired-text=${canGoBack ? t.pixExpired : t.pixExpiredNoReturn}
        >${remaining(pix.expires_at, now)}</time
      >
    </p>
    <p class="muted">${t.waiting}</p>
  <//>`;
}

/** The checkout's pix expired while it is still open: a new code is a new pix confirmation, posted to the page. */
export function PixRenewal({ action, t }: { action: string; t: Messages }) {
  return html`<section class="status renew" aria-labelledby="pix-renew-title">
    <h2 id="pix-renew-title">${t.pixRenewTitle}</h2>
    <p>${t.pixRenewBody}</p>
    <form method="post" action=${action}>
      <input type="hidden" name="payment_method" value="pix" />
      <button type="submit">${t.pixRenew}</button>
    </form>
  </section>`;
}

export function BoletoPanel({
  boleto,
  barcodeSvg,
  watch,
  t,
  locale,
}: {
  boleto: { digitable_line: string; due_date: string; url: string };
  barcodeSvg: string;
  watch: Watch;
  t: Messages;
  locale: Locale;
}) {
  return html`<${Watched} watch=${watch}>
    <h2>${t.boletoTitle}</h2>
    <${CopyField} id="boleto-line" label=${t.boletoLine} value=${boleto.digitable_line} t=${t} />
    ${trustedSvg(barcodeSvg, 'barcode', t.boletoBarcode)}
    <p>${t.boletoDue}: <strong data-testid="due-date">${calendarDate(locale, boleto.due_date)}</strong></p>
    <p><a href=${boleto.url} target="_blank" rel="noopener">${t.boletoPdf}</a></p>
    <p class="muted">${t.boletoHelp}</p>
  <//>`;
}

/**
 * A card payment waiting on the buyer's 3-D Secure challenge: the issuer's page in a frame, opened by
 * posting `creq` to it (Mercado Pago's 3DS guide); the page's script posts the form at once (a button
 * without JavaScript), and once the frame says the challenge is over it waits for the result, as a
 * pending payment does.
 */
export function ChallengePanel({
  challenge,
  watch,
  t,
}: {
  challenge: { url: string; creq: string };
  watch: Watch;
  t: Messages;
}) {
  return html`<${Watched} watch=${watch}>
    <h2>${t.challengeTitle}</h2>
    <p>${t.challengeHelp}</p>
    <iframe name="three-ds-challenge" class="challenge-frame" title=${t.challengeFrame} data-challenge-frame></iframe>
    <form method="post" action=${challenge.url} target="three-ds-challenge" data-challenge-form>
      <input type="hidden" name="creq" value=${challenge.creq} />
      <noscript><button type="submit">${t.challengeOpen}</button></noscript>
    </form>
    <p hidden data-challenge-done aria-busy="true">${t.processing}</p>
  <//>`;
}

/** A card payment the gateway is still reviewing (decision 0070): the page waits for its outcome, as for a pix. */
export function UnderReview({ watch, t }: { watch: Watch; t: Messages }) {
  return html`<${Watched} watch=${watch}>
    <h2 aria-busy="true">${t.reviewTitle}</h2>
    <p>${t.reviewBody}</p>
  <//>`;
}

export function Processing({ watch, t }: { watch: Watch; t: Messages }) {
  return html`<${Watched} watch=${watch}><h2 aria-busy="true">${t.processing}</h2><//>`;
}

/** The receipt: what the sale recorded (the card's interest included), and how it was paid. */
export function Receipt({
  checkout,
  paid,
  continueUrl,
  t,
  locale,
}: {
  checkout: PublicCheckout;
  paid: { method: string; plan: BuyerPlan } | null;
  continueUrl: string | null;
  t: Messages;
  locale: Locale;
}) {
  // No sale yet (its record follows the payment by moments): the checkout's own amount and method.
  const plan = paid?.plan ?? { installments: 1, each: checkout.amount, total: checkout.amount, base: checkout.amount };
  const method = paid?.method ?? checkout.payment_method ?? 'credit_card';
  return html`<section class="status receipt">
    <h2>${t.paidTitle}</h2>
    <p data-testid="receipt-amount">${t.paidBody(money(locale, plan.total), paidHow(t, locale, method, plan))}</p>
    ${continueUrl ? html`<p><a class="button" href=${continueUrl}>${t.continueToShop}</a></p>` : null}
  </section>`;
}

/**
 * A checkout that can no longer be paid, and what the buyer does now: go back to the shop (cancel_url),
 * else open the checkout link it came from again (a new checkout), else ask the shop for a new link.
 */
export function Closed({
  status,
  cancelUrl,
  restartUrl,
  shop,
  t,
}: {
  status: string;
  cancelUrl: string | null;
  restartUrl: string | null;
  shop: string;
  t: Messages;
}) {
  const next = cancelUrl
    ? html`<p>${t.closedBody}</p>
        <p><a class="button" href=${cancelUrl}>${t.cancel}</a></p>`
    : restartUrl
      ? html`<p>${t.closedRestart}</p>
          <p><a class="button" href=${restartUrl}>${t.restart}</a></p>`
      : html`<p>${t.closedAskShop(shop)}</p>`;
  return html`<section class="status closed">
    <h2>${status === 'expired' ? t.expiredTitle : t.failedTitle}</h2>
    ${next}
  </section>`;
}
