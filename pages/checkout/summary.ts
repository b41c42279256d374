import type { Storefront } from '../../api/organization-brand.ts';
import { BrandMark, ProductImages } from '../brand.ts';
import type { PublicCheckout } from '../../use-cases/schemas/checkouts.ts';
import { html } from '../render.ts';
import { renderMarkdown } from '../markdown.ts';
import { money, type Locale } from '../locale.ts';
import type { Messages } from './messages.ts';
import { planText, type BuyerPlan } from './amounts.ts';
import { maxInstallments } from '../../domain/checkout-pricing.ts';

type Interval = keyof Messages['every'];

/** "R$ 99,90 por mês", "R$ 99,90 a cada 3 meses", or the bare price of a one-time product. */
export function priceLabel(
  t: Messages,
  locale: Locale,
  price: { unit_amount: number; interval: string | null; interval_count: number | null },
): string {
  const amount = money(locale, price.unit_amount);
  const interval = price.interval as Interval | null;
  if (!interval || !(interval in t.every)) return amount;
  const count = price.interval_count ?? 1;
  return `${amount} ${count === 1 ? t.every[interval] : t.everyN(count, t.units[interval])}`;
}

/** What is being bought, for how much: the left column of every checkout page. */
export function OrderSummary({
  organization,
  storefront = null,
  product,
  price,
  quantity,
  amounts,
  plan = null,
  trial,
  t,
  locale,
}: {
  organization: PublicCheckout['organization'];
  /** The seller's logo and the product's images (decision 0091), where the page has them. */
  storefront?: Storefront | null;
  product: PublicCheckout['product'];
  price: PublicCheckout['price'];
  quantity: number;
  amounts: { subtotal: number; discount: number; total: number } | null;
  /** How the card is charged (the form's choice, or the sale's): the total then includes the interest. */
  plan?: BuyerPlan | null;
  trial: { interval: string; count: number } | null;
  t: Messages;
  locale: Locale;
}) {
  const trialUnit = trial ? t.units[trial.interval as Interval] : null;
  return html`<section class="summary" aria-labelledby="product-name">
    ${storefront ? html`<${BrandMark} brand=${storefront.brand} />` : html`<p class="merchant">${organization.name}</p>`}
    <h1 id="product-name">${product.name}</h1>
    ${storefront ? html`<${ProductImages} images=${storefront.images} />` : null}
    ${product.description ? html`<div class="description">${renderMarkdown(product.description)}</div>` : null}
    <p class="price" data-testid="price">${priceLabel(t, locale, price)}</p>
    ${trial && trialUnit ? html`<p class="trial">${t.trial(trial.count, trialUnit)}</p>` : null}
    ${
      amounts
        ? html`<dl class="amounts" data-amounts aria-live="polite">
            ${
              quantity !== 1
                ? html`<dt>${t.quantity}</dt>
                    <dd>${quantity}</dd>`
                : null
            }
            ${
              amounts.discount > 0
                ? html`<dt>${t.subtotal}</dt>
                    <dd>${money(locale, amounts.subtotal)}</dd>
                    <dt>${t.discount}</dt>
                    <dd>− ${money(locale, amounts.discount)}</dd>`
                : null
            }
            <dt>${t.total}</dt>
            <dd class="total" data-testid="total" data-total>${money(locale, plan?.total ?? amounts.total)}</dd>
            ${
              // A monthly subscription is charged whole each period: no plan line ("À vista") under its total.
              plan && maxInstallments(price) > 1
                ? html`<dd class="plan" data-testid="plan" data-plan>${planText(t, locale, plan)}</dd>`
                : null
            }
          </dl>`
        : null
    }
  </section>`;
}
