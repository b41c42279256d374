import type { Storefront } from '../../api/organization-brand.ts';
import { BrandMark, brandStylesheet } from '../brand.ts';
import { METHOD_CHANGED, successUrlFor } from '../../domain/checkout.ts';
import { PIX_EXPIRED } from '../../domain/pending-payments.ts';
import type { VNode } from 'preact';
import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { gatewayPaymentData } from '../../api/schemas/checkout-confirm.ts';
import { failureWords, type PageFailure } from '../error-page.ts';
import type { Locale } from '../locale.ts';
import { html, renderDocument } from '../render.ts';
import { messagesFor, type Messages } from './messages.ts';
import { boletoBarcodeSvg, pixQrSvg } from './payment-documents.ts';
import { CARD_SCRIPTS, type CardSetup } from './card-fields.ts';
import { CardInsteadForm, PaymentForm, type FormAlert, type PaymentFormValues } from './payment-form.ts';
import {
  BoletoPanel,
  ChallengePanel,
  Closed,
  PixPanel,
  PixRenewal,
  Processing,
  Receipt,
  UnderReview,
  type Watch,
} from './payment-status.ts';
import { OrderSummary, priceLabel } from './summary.ts';
import { chosenPlan, paidPlan, type BuyerPlan } from './amounts.ts';
import { isPixAutomaticoCheckout, MandateTerms, termsOf } from './pix-automatico.ts';

/** The hosted checkout's pages: a checkout link's landing and a checkout's own page, by client secret. */

const SCRIPTS = CARD_SCRIPTS;

/** Where a paid checkout sends the buyer: the merchant's success_url, or this page's receipt. */
export function paidDestination(checkout: PublicCheckout, pagePath: string): string {
  return checkout.success_url ? successUrlFor(checkout.success_url, checkout.id) : pagePath;
}

export interface CheckoutPageModel {
  locale: Locale;
  checkout: PublicCheckout;
  /** This page's own path (/checkout/c/<client_secret>): the form posts to it. */
  pagePath: string;
  /** The public JSON read the page's script polls while a payment is pending. */
  pollUrl: string;
  now: Date;
  values?: PaymentFormValues;
  alert?: FormAlert | null;
  card: CardSetup;
  /** The checkout link the checkout came from: a closed checkout's way to start again. */
  restartUrl?: string | null;
  /** What the sale of a paid checkout recorded: the receipt shows it (the card's interest included). */
  paid?: { amount: number; installments: number; paymentMethod: string } | null;
  /** Where the form's "apply the code" and "update amounts" post: the page again, priced with them (routes.ts). */
  previewPath?: string;
  /** A discount code the page is priced with, not yet paid: said beside the code's field. */
  discountNote?: string | null;
  /** The seller's brand and the product's images (decision 0091). */
  storefront?: Storefront | null;
}

/**
 * Whether the page in this state takes a card: open, or waiting on a pix or boleto (a card instead).
 * Only then does it load the gateway's script, and its CSP name the gateway's origins.
 */
export function takesCard(checkout: PublicCheckout): boolean {
  // A Pix Automático checkout is paid with pix only (its mandate's QR code).
  if (isPixAutomaticoCheckout(checkout)) return false;
  if (checkout.status === 'open') return true;
  if (checkout.status !== 'confirmed') return false;
  const data = gatewayPaymentData.safeParse(checkout.gateway_payment_data).data;
  return (checkout.payment_method === 'pix' && !!data?.pix) || (checkout.payment_method === 'boleto' && !!data?.boleto);
}

/**
 * The 3-D Secure challenge a confirmed card payment waits on, where its page is on https (the only
 * origin, beside the page's own, that the page's CSP then lets it frame); null otherwise.
 */
export function challengeOf(checkout: PublicCheckout): { url: string; creq: string; origin: string } | null {
  if (checkout.status !== 'confirmed' || checkout.payment_method !== 'credit_card') return null;
  const challenge = gatewayPaymentData.safeParse(checkout.gateway_payment_data).data?.three_ds;
  if (!challenge || !URL.canParse(challenge.url)) return null;
  const url = new URL(challenge.url);
  return url.protocol === 'https:' ? { ...challenge, origin: url.origin } : null;
}

/** A checkout's page in whatever state it is: the form while open, then the pending payment, then the receipt. */
export async function renderCheckoutPage(model: CheckoutPageModel): Promise<string> {
  const { checkout, locale } = model;
  const t = messagesFor(locale);
  const plan = planOf(model);
  const body = await mainPart(model, t, plan);
  const tokenizer = takesCard(checkout) ? model.card.tokenizer : null;
  return renderDocument({
    locale,
    title: `${checkout.product.name} · ${t.title}`,
    // The gateway's script first: checkout.js finds window.MercadoPago when the buyer pays.
    scripts: tokenizer ? [tokenizer.script, ...SCRIPTS] : SCRIPTS,
    brandStyle: brandStylesheet(model.storefront?.brand),
    children: html`<main class="checkout">
      <${OrderSummary}
        organization=${checkout.organization}
        storefront=${model.storefront ?? null}
        product=${checkout.product}
        price=${checkout.price}
        quantity=${checkout.quantity}
        amounts=${{ subtotal: checkout.subtotal_amount, discount: checkout.discount_amount, total: checkout.amount }}
        plan=${plan}
        trial=${
          checkout.trial_interval
            ? { interval: checkout.trial_interval, count: checkout.trial_interval_count ?? 1 }
            : null
        }
        t=${t}
        locale=${locale}
      />
      <div class="pay">
        ${body}
        ${
          checkout.cancel_url && checkout.status !== 'succeeded'
            ? html`<p class="leave"><a href=${checkout.cancel_url}>${t.cancel}</a></p>`
            : null
        }
        <p class="muted secure">${t.secure}</p>
      </div>
    </main>`,
  });
}

/** How the card is charged, where the page says it: the form's choice while open, the sale's once paid. */
function planOf(model: CheckoutPageModel): BuyerPlan | null {
  const { checkout } = model;
  if (checkout.status === 'open') return chosenPlan(checkout, model.values?.installments);
  if (checkout.status === 'succeeded' && model.paid) return paidPlan(checkout, model.paid);
  return null;
}

async function mainPart(model: CheckoutPageModel, t: Messages, plan: BuyerPlan | null): Promise<VNode> {
  const { checkout, locale } = model;
  // A pix that expired with the checkout still open: a new code, above the form (decision 0089).
  if (checkout.status === 'open' && checkout.decline_reason === PIX_EXPIRED) {
    const form = await mainPart({ ...model, checkout: { ...checkout, decline_reason: null } }, t, plan);
    return html`<${PixRenewal} action=${model.pagePath} t=${t} />${form}`;
  }
  const watch: Watch = {
    pollUrl: model.pollUrl,
    successUrl: paidDestination(checkout, model.pagePath),
    pagePath: model.pagePath,
    refreshLabel: t.refreshStatus,
  };
  // The pending payment's documents, as the confirm-sdk answer describes them.
  const data = gatewayPaymentData.safeParse(checkout.gateway_payment_data).data;
  switch (checkout.status) {
    case 'open':
      return html`<${PaymentForm}
        checkout=${checkout}
        action=${model.pagePath}
        values=${model.values ?? {}}
        alert=${model.alert ?? declineAlert(checkout, t)}
        card=${model.card}
        plan=${plan}
        previewPath=${model.previewPath ?? null}
        discountNote=${model.discountNote ?? null}
        now=${model.now}
        t=${t}
        locale=${locale}
      />`;
    case 'confirmed':
      return pendingPart(model, t, watch, data);
    case 'succeeded':
      return html`<${Receipt}
        checkout=${checkout}
        paid=${model.paid && plan ? { method: model.paid.paymentMethod, plan } : null}
        continueUrl=${checkout.success_url ? watch.successUrl : null}
        t=${t}
        locale=${locale}
      />`;
    default:
      return html`<${Closed}
        status=${checkout.status}
        cancelUrl=${checkout.cancel_url}
        restartUrl=${model.restartUrl ?? null}
        shop=${checkout.organization.name}
        t=${t}
      />`;
  }
}

/** A confirmed checkout waiting on its payment: the pix or boleto to pay, a challenge, or a wait. */
async function pendingPart(
  model: CheckoutPageModel,
  t: Messages,
  watch: Watch,
  data: ReturnType<typeof gatewayPaymentData.safeParse>['data'],
): Promise<VNode> {
  const { checkout, locale } = model;
  const cardInstead = html`<${CardInsteadForm}
    checkout=${checkout}
    action=${model.pagePath}
    alert=${model.alert ?? null}
    card=${model.card}
    t=${t}
    locale=${locale}
  />`;
  if (checkout.payment_method === 'pix' && data?.pix && data.pix_automatico) {
    // The mandate's QR code: it pays the first period and authorizes the next (no card instead: pix only).
    return html`<${PixPanel}
      pix=${data.pix}
      qrSvg=${await pixQrSvg(data.pix.qr_code)}
      watch=${watch}
      now=${model.now}
      canGoBack=${!!checkout.cancel_url}
      mandate=${html`<${MandateTerms} terms=${termsOf(data.pix_automatico)} firstNow=${false} t=${t} locale=${locale} />`}
      t=${t}
    />`;
  }
  if (checkout.payment_method === 'pix' && data?.pix) {
    const qrSvg = await pixQrSvg(data.pix.qr_code);
    return html`<${PixPanel}
        pix=${data.pix}
        qrSvg=${qrSvg}
        watch=${watch}
        now=${model.now}
        canGoBack=${!!checkout.cancel_url}
        t=${t}
      />
      ${cardInstead}`;
  }
  if (checkout.payment_method === 'boleto' && data?.boleto) {
    return html`<${BoletoPanel}
        boleto=${data.boleto}
        barcodeSvg=${boletoBarcodeSvg(data.boleto.barcode)}
        watch=${watch}
        t=${t}
        locale=${locale}
      />
      ${cardInstead}`;
  }
  const challenge = challengeOf(checkout);
  if (challenge) return html`<${ChallengePanel} challenge=${challenge} watch=${watch} t=${t} />`;
  if (checkout.payment_method === 'credit_card' && data?.review) return html`<${UnderReview} watch=${watch} t=${t} />`;
  return html`<${Processing} watch=${watch} t=${t} />`;
}

/** The last card refusal, kept on the open checkout, shown until the buyer pays. */
function declineAlert(checkout: PublicCheckout, t: Messages): FormAlert | null {
  // Leaving a pix or boleto for a card reopens the checkout: not a refusal.
  if (!checkout.decline_reason || checkout.decline_reason === METHOD_CHANGED) return null;
  return {
    title: t.declined,
    detail: `${t.declineReasons[checkout.decline_reason] ?? ''} ${t.tryAgain}`.trim(),
  };
}

/** One product a link of several offers, at its default price. */
export interface LinkChoice {
  product: PublicCheckout['product'];
  price: PublicCheckout['price'];
}

/**
 * A checkout link's landing: what is sold and one button; the checkout is created when the buyer presses
 * it. A link of several products lists them to choose one (radio buttons, no script needed), `product`
 * checked.
 */
export function renderLinkPage(model: {
  locale: Locale;
  action: string;
  organization: PublicCheckout['organization'];
  product: PublicCheckout['product'];
  price: PublicCheckout['price'];
  /** The link's products when it has several; empty for one. */
  choices?: LinkChoice[];
  cancelUrl: string | null;
  storefront?: Storefront | null;
}): string {
  const t = messagesFor(model.locale);
  const choices = model.choices ?? [];
  return renderDocument({
    locale: model.locale,
    title: `${choices.length > 1 ? t.chooseProduct : model.product.name} · ${t.title}`,
    brandStyle: brandStylesheet(model.storefront?.brand),
    children: html`<main class="checkout">
      ${
        choices.length > 1
          ? html`<section class="summary" aria-labelledby="product-name">
              ${
                model.storefront
                  ? html`<${BrandMark} brand=${model.storefront.brand} />`
                  : html`<p class="merchant">${model.organization.name}</p>`
              }
              <h1 id="product-name">${t.chooseProduct}</h1>
            </section>`
          : html`<${OrderSummary}
              organization=${model.organization}
              storefront=${model.storefront ?? null}
              product=${model.product}
              price=${model.price}
              quantity=${1}
              amounts=${null}
              trial=${null}
              t=${t}
              locale=${model.locale}
            />`
      }
      <div class="pay">
        <form method="post" action=${model.action}>
          ${
            choices.length > 1
              ? html`<fieldset class="methods">
                  <legend>${t.productChoice}</legend>
                  ${choices.map(
                    (c) =>
                      html`<label class="method">
                        <input
                          type="radio"
                          name="product_id"
                          value=${c.product.id}
                          checked=${c.product.id === model.product.id}
                        />
                        <span>${c.product.name} · ${priceLabel(t, model.locale, c.price)}</span>
                      </label>`,
                  )}
                </fieldset>`
              : null
          }
          <button type="submit">${t.continue}</button>
        </form>
        ${model.cancelUrl ? html`<p class="leave"><a href=${model.cancelUrl}>${t.cancel}</a></p>` : null}
      </div>
    </main>`,
  });
}

/** A page for a link or a checkout that does not exist. */
export const renderNotFoundPage = (locale: Locale) => renderStatusPage(locale, messagesFor(locale).notFound);

/** A link whose product can no longer be sold (archived, say): the reason, in the buyer's words, beside the title. */
export const renderUnavailablePage = (locale: Locale, reason: string) =>
  renderStatusPage(locale, messagesFor(locale).unavailable, reason);

/** A page that failed: too many requests (with the wait, in seconds), a request refused as sent, or anything else. */
export function renderErrorPage(locale: Locale, failure: PageFailure): string {
  const t = messagesFor(locale);
  const [title, body] = failureWords(t, failure);
  return renderStatusPage(locale, title, body);
}

function renderStatusPage(locale: Locale, title: string, detail?: string): string {
  return renderDocument({
    locale,
    title,
    children: html`<main class="checkout">
      <section class="status">
        <h1>${title}</h1>
        ${detail ? html`<p>${detail}</p>` : null}
      </section>
    </main>`,
  });
}
