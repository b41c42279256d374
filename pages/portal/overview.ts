import type { BrandView } from '../../api/organization-brand.ts';
import { calendarDate, money, type Locale } from '../locale.ts';
import { html } from '../render.ts';
import { ScrollRegion } from '../scroll-region.ts';
import { renderPortalPage, type PortalFrame } from './layout.ts';
import { messagesFor, type Messages } from './messages.ts';
import { portalPaths } from './paths.ts';
import type { CustomerEntity, OverviewData, SubscriptionEntity } from '../../use-cases/portal-reads.ts';

/** The portal's first page: the customer's subscriptions, purchases and extra charges. */

const LIVE = new Set(['trialing', 'active', 'past_due']);

/** When the subscription is charged next; a subscription set to end shows when it ends instead. */
export function nextChargeText(s: SubscriptionEntity, t: Messages, locale: Locale): string {
  if (!LIVE.has(s.status)) return t.none;
  const date = calendarDate(locale, s.currentPeriodEnd);
  return s.cancelAtPeriodEnd ? t.endsOn(date) : date;
}

export function renderOverviewPage(model: {
  locale: Locale;
  customer: CustomerEntity;
  brand?: BrandView | null;
  data: OverviewData;
  notice?: PortalFrame['notice'];
}): string {
  const { locale, data } = model;
  const t = messagesFor(locale);
  return renderPortalPage({
    locale,
    customer: model.customer,
    brand: model.brand,
    section: 'overview',
    title: t.overview,
    notice: model.notice,
    children: html`<${Subscriptions} data=${data} t=${t} locale=${locale} />
      <${Sales} data=${data} t=${t} locale=${locale} />
      <${Invoices} data=${data} t=${t} locale=${locale} />`,
  });
}

interface PartProps {
  data: OverviewData;
  t: Messages;
  locale: Locale;
}

function Subscriptions({ data, t, locale }: PartProps) {
  return html`<section aria-labelledby="subscriptions">
    <h2 id="subscriptions">${t.subscriptions}</h2>
    ${
      data.subscriptions.length === 0
        ? html`<p>${t.noSubscriptions}</p>`
        : html`<${ScrollRegion} labelledBy="subscriptions"
            ><table class="portal-table" data-testid="subscriptions">
              <thead>
                <tr>
                  <th scope="col">${t.product}</th>
                  <th scope="col">${t.amount}</th>
                  <th scope="col">${t.status}</th>
                  <th scope="col">${t.nextCharge}</th>
                </tr>
              </thead>
              <tbody>
                ${data.subscriptions.map(
                  ({ subscription: s, productName, interval }) =>
                    html`<tr data-subscription=${s.id}>
                      <th scope="row"><a href=${portalPaths.subscription(s.id)}>${productName}</a></th>
                      <td>
                        <span data-testid="amount">${money(locale, s.amount, s.currency)}</span>
                        ${interval ? html`<span class="muted">${t.perInterval[interval]}</span>` : null}
                      </td>
                      <td data-testid="status">${t.statuses[s.status] ?? s.status}</td>
                      <td data-testid="next-charge">${nextChargeText(s, t, locale)}</td>
                    </tr>`,
                )}
              </tbody>
            </table><//
          >`
    }
  </section>`;
}

function Sales({ data, t, locale }: PartProps) {
  return html`<section aria-labelledby="sales">
    <h2 id="sales">${t.sales}</h2>
    ${
      data.sales.length === 0
        ? html`<p>${t.noSales}</p>`
        : html`<${ScrollRegion} labelledBy="sales"
            ><table class="portal-table" data-testid="sales">
              <thead>
                <tr>
                  <th scope="col">${t.date}</th>
                  <th scope="col">${t.product}</th>
                  <th scope="col">${t.amount}</th>
                  <th scope="col">${t.status}</th>
                </tr>
              </thead>
              <tbody>
                ${data.sales.map(
                  ({ sale, productName }) =>
                    html`<tr>
                      <td>${calendarDate(locale, sale.createdAt)}</td>
                      <td>${productName}</td>
                      <td>${money(locale, sale.amount, sale.currency)}</td>
                      <td>${t.saleStatuses[sale.status] ?? sale.status}</td>
                    </tr>`,
                )}
              </tbody>
            </table><//
          >`
    }
  </section>`;
}

function Invoices({ data, t, locale }: PartProps) {
  return html`<section aria-labelledby="invoices">
    <h2 id="invoices">${t.invoices}</h2>
    ${
      data.invoices.length === 0
        ? html`<p>${t.noInvoices}</p>`
        : html`<${ScrollRegion} labelledBy="invoices"
            ><table class="portal-table" data-testid="invoices">
              <thead>
                <tr>
                  <th scope="col">${t.invoiceNumber}</th>
                  <th scope="col">${t.description}</th>
                  <th scope="col">${t.amount}</th>
                  <th scope="col">${t.dueDate}</th>
                  <th scope="col">${t.status}</th>
                </tr>
              </thead>
              <tbody>
                ${data.invoices.map(
                  ({ invoice: i, productName }) =>
                    html`<tr>
                      <td>${i.number}</td>
                      <td>${i.description ?? productName}</td>
                      <td>${money(locale, i.amount, i.currency)}</td>
                      <td>${calendarDate(locale, String(i.dueDate))}</td>
                      <td>
                        ${t.invoiceStatuses[i.status] ?? i.status}
                        ${i.failureReason ? html` <span class="muted">(${t.declineReasons[i.failureReason] ?? i.failureReason})</span>` : null}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table><//
          >`
    }
  </section>`;
}
