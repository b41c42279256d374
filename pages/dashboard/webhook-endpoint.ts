import { SECRET_OVERLAP_MS } from '../../domain/webhooks.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Copyable, moment, PostButton, PostForm } from './components.ts';
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
  return html`<p><a href=${webhooksPath(v.organizationId)}>All endpoints</a></p>
    ${
      v.secret
        ? html`<section class="secret" aria-labelledby="secret-title">
            <h2 id="secret-title">Signing secret</h2>
            <p>
              <strong>Copy it now.</strong> This is the only time it is shown; your server verifies each delivery's
              webhook-signature with it.
            </p>
            <p><${Copyable} id="signing-secret" value=${v.secret} label="Copy the signing secret" /></p>
          </section>`
        : null
    }
    <section aria-labelledby="details-title">
      <h2 id="details-title">Endpoint</h2>
      <dl class="details">
        <dt>URL</dt>
        <dd><code>${e.url}</code></dd>
        <dt>Description</dt>
        <dd>${e.description ?? '—'}</dd>
        <dt>Events</dt>
        <dd>${eventsLabel(e.event_types)}</dd>
        <dt>Status</dt>
        <dd>${endpointStatus(e)}</dd>
        ${
          e.failing_since
            ? html`<dt>Failing since</dt>
                <dd>${moment(v.locale, e.failing_since)}</dd>`
            : null
        }
        <dt>Created</dt>
        <dd>${moment(v.locale, e.created_at)}</dd>
        <dt>Updated</dt>
        <dd>${moment(v.locale, e.updated_at)}</dd>
      </dl>
      <div class="actions">
        <a href=${`${path}/edit`}>Edit endpoint</a>
        <${PostButton} action=${`${path}/ping`} csrf=${v.csrf} label="Send a test event" />
        <a href=${`${path}/secret`}>Rotate the signing secret</a>
        <a href=${`${path}/delete`}>Delete endpoint</a>
      </div>
    </section>
    ${v.deliveries ? deliveriesSection(v.deliveries) : null}`;
}

/** The edit page: the endpoint's fields as they are (or as the user left them after a refusal). */
export function editEndpointContent(v: {
  organizationId: string;
  csrf: string;
  endpoint: WebhookEndpoint;
  eventTypes: readonly string[];
  values?: EndpointValues;
}) {
  const e = v.endpoint;
  const path = endpointPath(v.organizationId, e.id);
  const values: EndpointValues = v.values ?? {
    url: e.url,
    description: e.description ?? '',
    event_types: e.event_types,
    enabled: e.enabled,
  };
  return html`<p><a href=${path}>Back to the endpoint</a></p>
    <${PostForm} action=${`${path}/edit`} csrf=${v.csrf} label="Edit endpoint">
      <${EndpointFields} eventTypes=${v.eventTypes} values=${values} />
      <button type="submit" class="button">Save changes</button>
    <//>`;
}

/** The confirmation before an endpoint is deleted. */
export function deleteConfirmation(v: { organizationId: string; csrf: string; endpoint: WebhookEndpoint }) {
  const path = endpointPath(v.organizationId, v.endpoint.id);
  return html`<p>
      Delete the endpoint <code>${v.endpoint.url}</code>? No event is sent to it from then on, and deliveries waiting to
      try again are canceled. This cannot be undone.
    </p>
    <div class="actions">
      <${PostButton} action=${`${path}/delete`} csrf=${v.csrf} label="Delete endpoint" danger />
      <a href=${path}>Keep it</a>
    </div>`;
}

/** The confirmation before the signing secret is replaced. */
export function rotateConfirmation(v: { organizationId: string; csrf: string; endpoint: WebhookEndpoint }) {
  const path = endpointPath(v.organizationId, v.endpoint.id);
  return html`<p>
      Make a new signing secret for <code>${v.endpoint.url}</code>? For ${SECRET_OVERLAP_MS / 3_600_000} hours every
      delivery is signed with both the old and the new secret, so your server can switch over; after that only the new
      one signs.
    </p>
    <div class="actions">
      <${PostButton} action=${`${path}/secret`} csrf=${v.csrf} label="Rotate secret" danger />
      <a href=${path}>Keep the current secret</a>
    </div>`;
}
