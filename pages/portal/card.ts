import type { BrandView } from '../../api/organization-brand.ts';
import type { BrowserTokenizer } from '../../api/browser-card-tokenizer.ts';
import { CARD_SCRIPTS, CardFields } from '../checkout/card-fields.ts';
import { messagesFor as checkoutMessagesFor } from '../checkout/messages.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { CsrfField, renderPortalPage, type PortalFrame } from './layout.ts';
import { messagesFor } from './messages.ts';
import { portalPaths } from './paths.ts';
import type { CustomerEntity, SubscriptionView } from '../../use-cases/portal-reads.ts';

/**
 * The card a subscription renews on, replaced: the checkout's own card fields (the gateway's Secure
 * Fields, tokenized in the browser by checkout.js, decision 0088), so the card never reaches this
 * server; the form posts only the token. Nothing is charged now: the next renewal charges the new card.
 */

export interface CardPageModel {
  locale: Locale;
  customer: CustomerEntity;
  brand?: BrandView | null;
  view: SubscriptionView;
  csrf: string;
  tokenizer: BrowserTokenizer | null;
  notice?: PortalFrame['notice'];
}

/** The driver of the card fields, shared with the checkout (its `[data-payment-form]`). */
const SCRIPTS = CARD_SCRIPTS;

export function renderCardPage(model: CardPageModel): string {
  const { locale, view, tokenizer } = model;
  const t = messagesFor(locale);
  const s = view.subscription;
  // The checkout's words for the card's fields; without JavaScript, the portal's own.
  const cardWords = { ...checkoutMessagesFor(locale), cardNeedsScript: t.cardNeedsScript };
  const amount = Number(s.amount);
  // One plan: the fields' script asks the instalment plans of an amount; a renewal is paid at once.
  const checkout = { amount, installment_options: [{ installments: 1, installment_amount: amount, total: amount }] };
  return renderPortalPage({
    locale,
    customer: model.customer,
    brand: model.brand,
    section: 'overview',
    title: `${t.cardTitle}: ${view.productName}`,
    notice: model.notice,
    scripts: tokenizer ? [tokenizer.script, ...SCRIPTS] : [],
    children: html`<p>${t.cardExplain}</p>
      ${
        tokenizer
          ? html`<form method="post" action=${portalPaths.card(s.id)} class="portal-card" data-payment-form>
              <${CsrfField} token=${model.csrf} />
              <input type="hidden" name="payment_method" value="credit_card" />
              <${CardFields}
                checkout=${checkout}
                setup=${{ tokenizer, namedFields: false }}
                t=${cardWords}
                locale=${locale}
              />
              <button type="submit">${t.cardSave}</button>
            </form>`
          : html`<p class="alert" role="alert">${t.cardUnavailable}</p>`
      }
      <p><a href=${portalPaths.subscription(s.id)}>${t.back}</a></p>`,
  });
}
