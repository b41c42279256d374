import type { z } from 'zod';
import type { webhookSchema } from '../../api/schemas/webhooks.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Field, moment, Pager, PostForm, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** Webhook endpoints: the list, and the form that adds one (its fields are the edit page's too). */

export type WebhookEndpoint = z.infer<typeof webhookSchema>;

/** What the endpoint form holds: after a refusal, the values as the user left them. */
export interface EndpointValues {
  url?: string;
  description?: string;
  event_types?: string[];
  enabled?: boolean;
}

export interface WebhooksView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  /** null when the API refused the list (its refusal is the page's notice). */
  endpoints: { items: WebhookEndpoint[]; page: number; maxPage: number } | null;
  /** The types an endpoint may subscribe to: the API's own list. */
  eventTypes: readonly string[];
  values?: EndpointValues;
}

export const webhooksPath = (organizationId: string) => dashboardPaths.section(organizationId, 'webhooks');
export const endpointPath = (organizationId: string, id: string) => `${webhooksPath(organizationId)}/${id}`;

/** "All events" for an endpoint that subscribed to none in particular (it gets every type). */
export const eventsLabel = (types: readonly string[]) => (types.length === 0 ? 'All events' : types.join(', '));

export function endpointStatus(e: WebhookEndpoint): string {
  if (e.enabled) return e.failing_since ? 'Enabled, failing' : 'Enabled';
  return e.disabled_reason ? `Disabled: ${e.disabled_reason}` : 'Disabled';
}

export function webhooksContent(v: WebhooksView) {
  const columns: Column<WebhookEndpoint>[] = [
    {
      label: 'URL',
      cell: (e) =>
        html`<a href=${endpointPath(v.organizationId, e.id)}><code>${e.url}</code></a
          >${e.description ? html`<br /><span class="muted">${e.description}</span>` : null}`,
    },
    { label: 'Events', cell: (e) => eventsLabel(e.event_types) },
    { label: 'Status', cell: endpointStatus },
    { label: 'Created', cell: (e) => moment(v.locale, e.created_at) },
    {
      label: 'Actions',
      cell: (e) =>
        html`<a href=${`${endpointPath(v.organizationId, e.id)}/edit`} aria-label=${`Edit ${e.url}`}>Edit</a>
          ${' · '}
          <a href=${`${endpointPath(v.organizationId, e.id)}/delete`} aria-label=${`Delete ${e.url}`}>Delete</a>`,
    },
  ];
  return html`
    ${
      v.endpoints
        ? html`<section aria-labelledby="endpoints-title">
            <h2 id="endpoints-title">Endpoints</h2>
            <${Table}
              caption="Where this organization's events are sent"
              columns=${columns}
              rows=${v.endpoints.items}
              empty="No endpoints yet."
            />
            <${Pager} path=${webhooksPath(v.organizationId)} page=${v.endpoints.page} maxPage=${v.endpoints.maxPage} />
          </section>`
        : null
    }
    <section aria-labelledby="create-title">
      <h2 id="create-title">Add an endpoint</h2>
      <${PostForm} action=${webhooksPath(v.organizationId)} csrf=${v.csrf} label="Add an endpoint">
        <${EndpointFields} eventTypes=${v.eventTypes} values=${v.values ?? { enabled: true }} />
        <button type="submit" class="button">Add endpoint</button>
      <//>
    </section>
  `;
}

/** URL, description, the events (none checked: all), enabled: the fields of the add and edit forms. */
export function EndpointFields({ eventTypes, values }: { eventTypes: readonly string[]; values: EndpointValues }) {
  const checked = new Set(values.event_types ?? []);
  return html`
    <${Field}
      label="URL"
      name="url"
      type="url"
      value=${values.url}
      required
      maxlength="2048"
      hint="Deliveries are POSTed here, signed (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature)."
    />
    <${Field} label="Description (optional)" name="description" value=${values.description} maxlength="500" />
    <fieldset aria-describedby="events-hint">
      <legend>Events</legend>
      <p class="hint" id="events-hint">None checked: every event, including types added later.</p>
      ${groupsOf(eventTypes).map(
        (types) =>
          html`<div>
            ${types.map(
              (type) =>
                html`<label class="check"
                  ><input type="checkbox" name="event_types" value=${type} checked=${checked.has(type)} />
                  ${type}</label
                >`,
            )}
          </div>`,
      )}
    </fieldset>
    <fieldset aria-describedby="enabled-hint">
      <legend>Status</legend>
      <label class="check"
        ><input type="checkbox" name="enabled" value="true" checked=${values.enabled ?? true} /> Enabled</label
      >
      <p class="hint" id="enabled-hint">A disabled endpoint is sent nothing until it is enabled again.</p>
    </fieldset>
  `;
}

/** The types in lines by resource (`sale.created`, `sale.paid`, … on one line). */
function groupsOf(types: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const type of types) {
    const resource = type.split('.')[0]!;
    groups.set(resource, [...(groups.get(resource) ?? []), type]);
  }
  return [...groups.values()];
}
