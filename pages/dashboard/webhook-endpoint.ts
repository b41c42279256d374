import { SECRET_OVERLAP_MS } from '../../domain/webhooks.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Copyable, moment, PostButton, PostForm } from './components.ts';
import { settingsMessages } from './messages-settings.ts';
import { deliveriesSection, type DeliveriesView } from './webhook-deliveries.ts';
import {
  endpointPath,
  EndpointFields,
  endpointStatus,
  eventsLabel,
  webhooksPath,
  type EndpointValues,
  type WebhookEndpoint,
} from './webhooks.ts';

/** One webhook endpoint: what it is, its signing secret when just made, its deliveries; its edit and delete pages. */

export interface EndpointView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  endpoint: WebhookEndpoint;
  /** The signing secret just made (creation or rotation): shown on this page only. */
  secret?: string;
  /** null when the API refused the list (its refusal is the page's notice). */
  deliveries: DeliveriesView | null;
}

export function endpointContent(v: EndpointView) {
  const e = v.endpoint;
  const path = endpointPath(v.organizationId, e.id);
  const { common, webhooks, endpoint: t } = settingsMessages(v.locale);
  return html`<p><a href=${webhooksPath(v.organizationId)}>${t.allEndpoints}</a></p>
    ${
      v.secret
        ? html`<section class="secret" aria-labelledby="secret-title">
            <h2 id="secret-title">${t.secret}</h2>
            <p><strong>${common.copyNow}</strong> ${t.secretOnce}</p>
            <p><${Copyable} locale=${v.locale} id="signing-secret" value=${v.secret} label=${t.copySecret} /></p>
          </section>`
        : null
    }
    <section aria-labelledby="details-title">
      <h2 id="details-title">${t.details}</h2>
      <dl class="details">
        <dt>${webhooks.url}</dt>
        <dd><code>${e.url}</code></dd>
        <dt>${t.description}</dt>
        <dd>${e.description ?? '—'}</dd>
        <dt>${webhooks.events}</dt>
        <dd>${eventsLabel(v.locale, e.event_types)}</dd>
        <dt>${common.status}</dt>
        <dd>${endpointStatus(v.locale, e)}</dd>
        ${
          e.failing_since
            ? html`<dt>${t.failingSince}</dt>
                <dd>${moment(v.locale, e.failing_since)}</dd>`
            : null
        }
        <dt>${common.created}</dt>
        <dd>${moment(v.locale, e.created_at)}</dd>
        <dt>${t.updated}</dt>
        <dd>${moment(v.locale, e.updated_at)}</dd>
      </dl>
      <div class="actions">
        <a href=${`${path}/edit`}>${t.edit}</a>
        <${PostButton} action=${`${path}/ping`} csrf=${v.csrf} label=${t.ping} />
        <a href=${`${path}/secret`}>${t.rotate}</a>
        <a href=${`${path}/delete`}>${t.delete}</a>
      </div>
    </section>
    ${v.deliveries ? deliveriesSection(v.deliveries) : null}`;
}

/** The edit page: the endpoint's fields as they are (or as the user left them after a refusal). */
export function editEndpointContent(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  endpoint: WebhookEndpoint;
  eventTypes: readonly string[];
  values?: EndpointValues;
}) {
  const e = v.endpoint;
  const path = endpointPath(v.organizationId, e.id);
  const t = settingsMessages(v.locale).endpoint;
  const values: EndpointValues = v.values ?? {
    url: e.url,
    description: e.description ?? '',
    event_types: e.event_types,
    enabled: e.enabled,
  };
  return html`<p><a href=${path}>${t.back}</a></p>
    <${PostForm} action=${`${path}/edit`} csrf=${v.csrf} label=${t.edit}>
      <${EndpointFields} locale=${v.locale} eventTypes=${v.eventTypes} values=${values} />
      <button type="submit" class="button">${t.save}</button>
    <//>`;
}

/** The confirmation before an endpoint is deleted. */
export function deleteConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  endpoint: WebhookEndpoint;
}) {
  const path = endpointPath(v.organizationId, v.endpoint.id);
  const { common, endpoint: t } = settingsMessages(v.locale);
  return html`<p>${t.deleteConfirm.before}<code>${v.endpoint.url}</code>${t.deleteConfirm.after}</p>
    <div class="actions">
      <${PostButton} action=${`${path}/delete`} csrf=${v.csrf} label=${t.delete} danger />
      <a href=${path}>${common.keepIt}</a>
    </div>`;
}

/** The confirmation before the signing secret is replaced. */
export function rotateConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  endpoint: WebhookEndpoint;
}) {
  const path = endpointPath(v.organizationId, v.endpoint.id);
  const t = settingsMessages(v.locale).endpoint;
  return html`<p>
      ${t.rotateConfirm.before}<code>${v.endpoint.url}</code>${t.rotateConfirm.after(SECRET_OVERLAP_MS / 3_600_000)}
    </p>
    <div class="actions">
      <${PostButton} action=${`${path}/secret`} csrf=${v.csrf} label=${t.rotateSubmit} danger />
      <a href=${path}>${t.keepSecret}</a>
    </div>`;
}
