import { EVENT_TYPES, type EventRecord } from '../../api/schemas/events.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Field, moment, Pager, Select, Table, type Column } from './components.ts';
import { settingsMessages } from './messages-settings.ts';
import { dashboardPaths } from './paths.ts';

/** The event log (GET /api/v1/events/): filters, one page of events, and one event's payload. */

export interface EventFilters {
  type?: string;
  object_id?: string;
  /** Local dates (Brasília) the form sends; the route turns them into the API's instants. */
  from?: string;
  to?: string;
}

export interface EventsView {
  locale: Locale;
  organizationId: string;
  userId: string;
  filters: EventFilters;
  page: number;
  /** The API's page of events; null when it refused the filters (the page's alert says why). */
  events: { items: EventRecord[]; pagination: { total_count: number; max_page: number } } | null;
}

const RESOURCES = [...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))];

/** Every type, and under each resource the prefix that takes all of its types (customer.*). */
const typeOptionsIn = (locale: Locale): readonly (readonly [string, string])[] => {
  const t = settingsMessages(locale).events;
  return [
    ['', t.allTypes],
    ...RESOURCES.flatMap((resource) => [
      [`${resource}.*`, t.everyOf(resource)] as const,
      ...EVENT_TYPES.filter((type) => type.startsWith(`${resource}.`)).map((type) => [type, type] as const),
    ]),
  ];
};

/** Who made the change: the kind of credential, and its id (the signed-in user is "you"). */
export function actorText(locale: Locale, actor: EventRecord['actor'], userId: string) {
  const t = settingsMessages(locale).events;
  if (!actor) return html`<span class="muted">${t.notRecorded}</span>`;
  const kind = t.actors[actor.type] ?? actor.type;
  if (actor.type === 'user' && actor.id === userId) return t.you(kind);
  return actor.id ? html`${kind} <code>${actor.id}</code>` : kind;
}

/** The record an event is about (its payload's id), when it names one. */
const objectId = (e: EventRecord) => (typeof e.data.id === 'string' ? e.data.id : null);

export function eventsContent(v: EventsView) {
  const path = dashboardPaths.section(v.organizationId, 'events');
  const { common, events: t } = settingsMessages(v.locale);
  const columns: Column<EventRecord>[] = [
    { label: t.type, cell: (e) => html`<code>${e.type}</code>` },
    { label: t.time, cell: (e) => moment(v.locale, e.created_at) },
    { label: t.actor, cell: (e) => actorText(v.locale, e.actor, v.userId) },
    { label: t.record, cell: (e) => (objectId(e) ? html`<code>${objectId(e)}</code>` : '—') },
    {
      label: t.details,
      cell: (e) => html`<a href=${`${path}/${e.id}`} aria-label=${t.detailsOf(e.type, e.id)}>${t.details}</a>`,
    },
  ];
  const total = v.events?.pagination.total_count ?? 0;
  return html`
    <form method="get" action=${path} class="dash-form events-form" aria-label=${t.filterForm}>
      <${Select}
        label=${t.type}
        name="type"
        value=${v.filters.type ?? ''}
        options=${typeOptions(v.locale, v.filters.type)}
      />
      <${Field} label=${t.recordId} name="object_id" value=${v.filters.object_id} maxlength="64" />
      <${Field} label=${t.from} name="from" type="date" value=${v.filters.from} />
      <${Field} label=${t.to} name="to" type="date" value=${v.filters.to} />
      <div class="actions">
        <button type="submit" class="button">${common.filter}</button>
        <a href=${path}>${common.clear}</a>
      </div>
    </form>
    ${
      v.events
        ? html`<section aria-labelledby="events-title">
            <h2 id="events-title">${t.title}</h2>
            <p class="muted">${t.summary(total)}</p>
            <${Table} caption=${t.title} columns=${columns} rows=${v.events.items} empty=${t.none} />
            <${Pager}
              locale=${v.locale}
              path=${path}
              page=${v.page}
              maxPage=${v.events.pagination.max_page}
              query=${{ ...v.filters }}
            />
          </section>`
        : null
    }
  `;
}

/** The type options, with a filter typed into the address that is not among them. */
function typeOptions(locale: Locale, type: string | undefined) {
  const options = typeOptionsIn(locale);
  return !type || options.some(([t]) => t === type) ? options : [...options, [type, type] as const];
}

/** One event: what, when, who, and the payload as the API and webhook deliveries carry it. */
export function eventDetails(v: { locale: Locale; organizationId: string; userId: string; event: EventRecord }) {
  const e = v.event;
  const t = settingsMessages(v.locale).events;
  return html`<dl class="pairs">
      <dt>${t.type}</dt>
      <dd><code>${e.type}</code></dd>
      <dt>${t.time}</dt>
      <dd>${moment(v.locale, e.created_at)}</dd>
      <dt>${t.actor}</dt>
      <dd>${actorText(v.locale, e.actor, v.userId)}</dd>
      <dt>${t.eventId}</dt>
      <dd><code>${e.id}</code></dd>
    </dl>
    <section aria-labelledby="payload-title">
      <h2 id="payload-title">${t.payload}</h2>
      <pre class="payload" tabindex="0"><code>${JSON.stringify(e, null, 2)}</code></pre>
    </section>
    <p><a href=${dashboardPaths.section(v.organizationId, 'events')}>${t.all}</a></p>`;
}
