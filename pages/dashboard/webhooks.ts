import type { z } from 'zod';
import type { webhookSchema } from '../../api/schemas/webhooks.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Field, moment, Pager, PostForm, Table, type Column } from './components.ts';
import { settingsMessages } from './messages-settings.ts';
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
export const eventsLabel = (locale: Locale, types: readonly string[]) =>
  types.length === 0 ? settingsMessages(locale).webhooks.allEvents : types.join(', ');

export function endpointStatus(locale: Locale, e: WebhookEndpoint): string {
  const t = settingsMessages(locale).webhooks;
  if (e.enabled) return e.failing_since ? t.enabledFailing : t.enabled;
  // The reason is the API's own text.
  return e.disabled_reason ? t.disabledBecause(e.disabled_reason) : t.disabled;
}

export function webhooksContent(v: WebhooksView) {
  const { common, webhooks: t } = settingsMessages(v.locale);
  const columns: Column<WebhookEndpoint>[] = [
    {
      label: t.url,
      cell: (e) =>
        html`<a href=${endpointPath(v.organizationId, e.id)}><code>${e.url}</code></a
          >${e.description ? html`<br /><span class="muted">${e.description}</span>` : null}`,
    },
    { label: t.events, cell: (e) => eventsLabel(v.locale, e.event_types) },
    { label: common.status, cell: (e) => endpointStatus(v.locale, e) },
    { label: common.created, cell: (e) => moment(v.locale, e.created_at) },
    {
      label: common.actions,
      cell: (e) =>
        html`<a href=${`${endpointPath(v.organizationId, e.id)}/edit`} aria-label=${common.editOf(e.url)}
            >${common.edit}</a
          >
          ${' · '}
          <a href=${`${endpointPath(v.organizationId, e.id)}/delete`} aria-label=${common.deleteOf(e.url)}
            >${common.delete}</a
          >`,
    },
  ];
  return html`
    ${
      v.endpoints
        ? html`<section aria-labelledby="endpoints-title">
            <h2 id="endpoints-title">${t.endpoints}</h2>
            <${Table}
              caption=${t.endpointsCaption}
              columns=${columns}
              rows=${v.endpoints.items}
              empty=${t.noEndpoints}
            />
            <${Pager}
              locale=${v.locale}
              path=${webhooksPath(v.organizationId)}
              page=${v.endpoints.page}
              maxPage=${v.endpoints.maxPage}
            />
          </section>`
        : null
    }
    <section aria-labelledby="create-title">
      <h2 id="create-title">${t.add}</h2>
      <${PostForm} action=${webhooksPath(v.organizationId)} csrf=${v.csrf} label=${t.add}>
        <${EndpointFields} locale=${v.locale} eventTypes=${v.eventTypes} values=${v.values ?? { enabled: true }} />
        <button type="submit" class="button">${t.addSubmit}</button>
      <//>
    </section>
  `;
}

/** URL, description, the events (none checked: all), enabled: the fields of the add and edit forms. */
export function EndpointFields({
  locale,
  eventTypes,
  values,
}: {
  locale: Locale;
  eventTypes: readonly string[];
  values: EndpointValues;
}) {
  const { common, webhooks: t } = settingsMessages(locale);
  const checked = new Set(values.event_types ?? []);
  return html`
    <${Field} label=${t.url} name="url" type="url" value=${values.url} required maxlength="2048" hint=${t.urlHint} />
    <${Field} label=${t.descriptionOptional} name="description" value=${values.description} maxlength="500" />
    <fieldset aria-describedby="events-hint">
      <legend>${t.events}</legend>
      <p class="hint" id="events-hint">${t.eventsHint}</p>
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
      <legend>${common.status}</legend>
      <label class="check"
        ><input type="checkbox" name="enabled" value="true" checked=${values.enabled ?? true} /> ${t.enabled}</label
      >
      <p class="hint" id="enabled-hint">${t.enabledHint}</p>
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
