import type { BrandView } from '../../api/organization-brand.ts';
import type { PlanChangePreview, PlanOption } from '../../api/plan-change-preview.ts';
import { calendarDate, money, type Locale } from '../locale.ts';
import { html } from '../render.ts';
import { ScrollRegion } from '../scroll-region.ts';
import { CsrfField, renderPortalPage, type PortalFrame } from './layout.ts';
import { messagesFor, type Messages } from './messages.ts';
import { nextChargeText } from './overview.ts';
import { portalPaths } from './paths.ts';
import type { ChargeEntity, CustomerEntity, RenewalToPay, SubscriptionView } from '../../use-cases/portal-reads.ts';
import { checkoutPagePath } from '../../use-cases/checkout-pages.ts';
import type { PortalActivation, PortalMandate } from '../../api/portal-mandates.ts';
import { MandateSection } from './mandate.ts';
import { ACTIVATION_SCRIPTS, MandateActivation } from './mandate-activation.ts';

/** A subscription's pages: its timeline and actions, the cancellation's confirmation, a plan change's preview. */

const CHANGEABLE = new Set(['trialing', 'active', 'past_due']);

interface PageBase {
  locale: Locale;
  customer: CustomerEntity;
  brand?: BrandView | null;
  view: SubscriptionView;
  csrf: string;
}

export interface SubscriptionPageModel extends PageBase {
  charges: ChargeEntity[];
  /** The next period's open checkout, to pay now (a manual renewal). */
  renewal: RenewalToPay | null;
  /** The organization lets its customers change their subscriptions (allow_customer_updates). */
  canChange: boolean;
  options: PlanOption[];
  notice?: PortalFrame['notice'];
  /** A Pix Automático subscription's mandate (decision 0096), or a manual one's approved before it switches. */
  mandate?: PortalMandate | null;
  /** A manual subscription's "Ativar Pix Automático", or its waiting QR code (decision 0101). */
  activation?: PortalActivation;
  /** The waiting QR code's picture. */
  qrSvg?: string | null;
}

export function renderSubscriptionPage(model: SubscriptionPageModel): string {
  const { locale, view } = model;
  const t = messagesFor(locale);
  const s = view.subscription;
  return renderPortalPage({
    locale,
    customer: model.customer,
    brand: model.brand,
    section: 'overview',
    title: view.productName,
    notice: model.notice,
    scripts: model.activation?.kind === 'waiting' ? ACTIVATION_SCRIPTS : [],
    children: html`<${Summary} view=${view} t=${t} locale=${locale} />
      <${RenewalLink} renewal=${model.renewal} t=${t} locale=${locale} />
      ${model.mandate ? html`<${MandateSection} mandate=${model.mandate} subscriptionId=${s.id} locale=${locale} />` : null}
      ${
        model.activation
          ? html`<${MandateActivation}
              activation=${model.activation}
              qrSvg=${model.qrSvg ?? null}
              view=${view}
              csrf=${model.csrf}
              locale=${locale}
            />`
          : null
      }
      ${CHANGEABLE.has(s.status) ? html`<${Actions} model=${model} t=${t} />` : null}
      ${CHANGEABLE.has(s.status) && s.recurrenceBilling === 'manual' ? html`<${CardLink} id=${s.id} t=${t} />` : null}
      <${Timeline} charges=${model.charges} t=${t} locale=${locale} />
      <p><a href=${portalPaths.overview}>${t.back}</a></p>`,
  });
}

function Summary({ view, t, locale }: { view: SubscriptionView; t: Messages; locale: Locale }) {
  const s = view.subscription;
  return html`<dl class="portal-facts">
    <dt>${t.amount}</dt>
    <dd data-testid="amount">
      ${money(locale, s.amount, s.currency)}${view.interval ? t.perInterval[view.interval] : ''}
    </dd>
    <dt>${t.status}</dt>
    <dd data-testid="status">${t.statuses[s.status] ?? s.status}</dd>
    <dt>${t.nextCharge}</dt>
    <dd data-testid="next-charge">${nextChargeText(s, t, locale)}</dd>
  </dl>`;
}

/** The next period's open checkout, paid on the hosted checkout's page (with the kept card where offered). */
function RenewalLink({ renewal, t, locale }: { renewal: RenewalToPay | null; t: Messages; locale: Locale }) {
  if (!renewal) return null;
  return html`<section aria-labelledby="renewal" class="portal-actions">
    <h2 id="renewal">${t.renewalTitle}</h2>
    <p>${t.renewalDue(money(locale, renewal.amount, renewal.currency))}</p>
    <p><a class="button" href=${checkoutPagePath(renewal.clientSecret)}>${t.renewalPay}</a></p>
  </section>`;
}

/** Cancel (behind its confirmation page) or undo it, and a plan change when the organization allows them. */
function Actions({ model, t }: { model: SubscriptionPageModel; t: Messages }) {
  const s = model.view.subscription;
  if (!model.canChange) return html`<p class="muted">${t.planNotAllowed}</p>`;
  const endDate = calendarDate(model.locale, s.currentPeriodEnd);
  return html`<section aria-labelledby="actions" class="portal-actions">
    <h2 id="actions" class="visually-hidden">${t.cancelTitle}</h2>
    ${
      s.cancelAtPeriodEnd
        ? html`<p>${t.canceledNotice(endDate)}</p>
            <form method="post" action=${portalPaths.uncancel(s.id)}>
              <${CsrfField} token=${model.csrf} />
              <button type="submit">${t.uncancel}</button>
            </form>`
        : html`<p><a class="button secondary" href=${portalPaths.cancel(s.id)}>${t.cancelAction}</a></p>`
    }
    ${s.cancelAtPeriodEnd ? null : html`<${PlanForm} model=${model} t=${t} />`}
  </section>`;
}

/** The card the renewals charge, replaced on its own page (this engine charges it: manual billing only). */
function CardLink({ id, t }: { id: string; t: Messages }) {
  return html`<section aria-labelledby="card" class="portal-actions">
    <h2 id="card">${t.cardCurrent}</h2>
    <p><a class="button secondary" href=${portalPaths.card(id)}>${t.cardTitle}</a></p>
  </section>`;
}

/** Choosing a plan only asks for its preview (a GET): nothing changes before the preview's confirmation. */
function PlanForm({ model, t }: { model: SubscriptionPageModel; t: Messages }) {
  const s = model.view.subscription;
  return html`<section aria-labelledby="plan">
    <h2 id="plan">${t.planTitle}</h2>
    ${
      model.options.length === 0
        ? html`<p>${t.noPlans}</p>`
        : html`<form method="get" action=${portalPaths.plan(s.id)}>
            <div class="field">
              <label for="price_id">${t.newPlan}</label>
              <select id="price_id" name="price_id">
                ${model.options.map(
                  (o) =>
                    html`<option value=${o.priceId}>
                      ${o.productName} ·
                      ${money(model.locale, o.unitAmount, o.currency)}${o.interval ? t.perInterval[o.interval] : ''}
                    </option>`,
                )}
              </select>
            </div>
            <button type="submit">${t.seePrice}</button>
          </form>`
    }
  </section>`;
}

/** Every charge of the subscription and every refused try, oldest first, with a refusal's reason. */
function Timeline({ charges, t, locale }: { charges: ChargeEntity[]; t: Messages; locale: Locale }) {
  return html`<section aria-labelledby="timeline">
    <h2 id="timeline">${t.timeline}</h2>
    ${
      charges.length === 0
        ? html`<p>${t.noCharges}</p>`
        : html`<${ScrollRegion} labelledBy="timeline"
            ><table class="portal-table" data-testid="timeline">
              <thead>
                <tr>
                  <th scope="col">${t.date}</th>
                  <th scope="col">${t.period}</th>
                  <th scope="col">${t.attempt}</th>
                  <th scope="col">${t.amount}</th>
                  <th scope="col">${t.result}</th>
                  <th scope="col">${t.reason}</th>
                </tr>
              </thead>
              <tbody>
                ${charges.map(
                  (c) =>
                    html`<tr class=${c.outcome === 'failed' ? 'failed' : undefined}>
                      <td>${calendarDate(locale, c.at)}</td>
                      <td>${c.period ?? t.extraCharge}</td>
                      <td>${c.tryNumber ?? ''}</td>
                      <td>${money(locale, c.amount, c.currency)}</td>
                      <td>${t.outcomes[c.outcome] ?? c.outcome}</td>
                      <td>${c.declineReason ? (t.declineReasons[c.declineReason] ?? c.declineReason) : ''}</td>
                    </tr>`,
                )}
              </tbody>
            </table><//
          >`
    }
  </section>`;
}

/** The cancellation's confirmation: what it means, and the one button that does it. */
export function renderCancelPage(model: PageBase): string {
  const t = messagesFor(model.locale);
  const s = model.view.subscription;
  return renderPortalPage({
    locale: model.locale,
    customer: model.customer,
    brand: model.brand,
    section: 'overview',
    title: `${t.cancelTitle}: ${model.view.productName}`,
    children: html`<p>${t.cancelExplain(calendarDate(model.locale, s.currentPeriodEnd))}</p>
      <form method="post" action=${portalPaths.cancel(s.id)}>
        <${CsrfField} token=${model.csrf} />
        <button type="submit" class="danger">${t.cancelConfirm}</button>
      </form>
      <p><a href=${portalPaths.subscription(s.id)}>${t.back}</a></p>`,
  });
}

/** A plan change's preview: the prorated amount as the change would settle it, then the confirmation. */
export function renderPlanPreviewPage(model: PageBase & { preview: PlanChangePreview }): string {
  const { locale, preview } = model;
  const t = messagesFor(locale);
  const s = model.view.subscription;
  const m = (cents: number) => money(locale, cents, s.currency);
  const settles =
    preview.chargeNow > 0
      ? t.chargeNow(m(preview.chargeNow))
      : preview.toBalance > 0
        ? t.toNextRenewal(m(preview.toBalance))
        : preview.toBalance < 0
          ? t.creditNext(m(-preview.toBalance))
          : t.noProration;
  return renderPortalPage({
    locale,
    customer: model.customer,
    brand: model.brand,
    section: 'overview',
    title: t.planTitle,
    children: html`<p>${t.planPreview(m(Number(s.subtotalAmount)), m(preview.option.unitAmount))}</p>
      <p class="portal-amount" data-testid="proration">${settles}</p>
      <p class="muted">${t.previewNote}</p>
      <form method="post" action=${portalPaths.plan(s.id)}>
        <${CsrfField} token=${model.csrf} />
        <input type="hidden" name="price_id" value=${preview.option.priceId} />
        <button type="submit">${t.planConfirm}</button>
      </form>
      <p><a href=${portalPaths.subscription(s.id)}>${t.back}</a></p>`,
  });
}
