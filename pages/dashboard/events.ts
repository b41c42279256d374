import { EVENT_TYPES, type EventRecord } from '../../api/schemas/events.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Field, moment, Pager, Select, Table, type Column } from './components.ts';
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

const ACTORS: Record<string, string> = {
  api_key: 'API key',
  access_token: 'Access token',
  user: 'User',
  customer: 'Customer',
  system: 'System',
};

/** Every type, and under each resource the prefix that takes all of its types (customer.*). */
const TYPE_OPTIONS: readonly (readonly [string, string])[] = [
  ['', 'All types'],
  ...[...new Set(EVENT_TYPES.map((t) => t.split('.')[0]!))].flatMap((resource) => [
    [`${resource}.*`, `${resource}.* (every ${resource} event)`] as const,
    ...EVENT_TYPES.filter((t) => t.startsWith(`${resource}.`)).map((t) => [t, t] as const),
  ]),
];

/** Who made the change: the kind of credential, and its id (the signed-in user is "you"). */
export function actorText(actor: EventRecord['actor'], userId: string) {
  if (!actor) return html`<span class="muted">Not recorded</span>`;
  const kind = ACTORS[actor.type] ?? actor.type;
  if (actor.type === 'user' && actor.id === userId) return `${kind} (you)`;
  return actor.id ? html`${kind} <code>${actor.id}</code>` : kind;
}

/** The record an event is about (its payload's id), when it names one. */
const objectId = (e: EventRecord) => (typeof e.data.id === 'string' ? e.data.id : null);

export function eventsContent(v: EventsView) {
  const path = dashboardPaths.section(v.organizationId, 'events');
  const columns: Column<EventRecord>[] = [
    { label: 'Type', cell: (e) => html`<code>${e.type}</code>` },
    { label: 'Time', cell: (e) => moment(v.locale, e.created_at) },
    { label: 'Actor', cell: (e) => actorText(e.actor, v.userId) },
    { label: 'Record', cell: (e) => (objectId(e) ? html`<code>${objectId(e)}</code>` : '—') },
    {
      label: 'Details',
      cell: (e) => html`<a href=${`${path}/${e.id}`} aria-label=${`Details of ${e.type} ${e.id}`}>Details</a>`,
    },
  ];
  const total = v.events?.pagination.total_count ?? 0;
  return html`
    <form method="get" action=${path} class="dash-form events-form" aria-label="Filter events">
      <${Select} label="Type" name="type" value=${v.filters.type ?? ''} options=${typeOptions(v.filters.type)} />
      <${Field} label="Record id" name="object_id" value=${v.filters.object_id} maxlength="64" />
      <${Field} label="From (day)" name="from" type="date" value=${v.filters.from} />
      <${Field} label="To (day)" name="to" type="date" value=${v.filters.to} />
      <div class="actions">
        <button type="submit" class="button">Filter</button>
        <a href=${path}>Clear</a>
      </div>
    </form>
    ${
      v.events
        ? html`<section aria-labelledby="events-title">
            <h2 id="events-title">Events</h2>
            <p class="muted">${total === 1 ? '1 event' : `${total} events`}, newest first; days in Brasília time.</p>
            <${Table} caption="Events" columns=${columns} rows=${v.events.items} empty="No events." />
            <${Pager} path=${path} page=${v.page} maxPage=${v.events.pagination.max_page} query=${{ ...v.filters }} />
          </section>`
        : null
    }
  `;
}

/** The type options, with a filter typed into the address that is not among them. */
const typeOptions = (type: string | undefined) =>
  !type || TYPE_OPTIONS.some(([t]) => t === type) ? TYPE_OPTIONS : [...TYPE_OPTIONS, [type, type] as const];

/** One event: what, when, who, and the payload as the API and webhook deliveries carry it. */
export function eventDetails(v: { locale: Locale; organizationId: string; userId: string; event: EventRecord }) {
  const e = v.event;
  return html`<dl class="pairs">
      <dt>Type</dt>
      <dd><code>${e.type}</code></dd>
      <dt>Time</dt>
      <dd>${moment(v.locale, e.created_at)}</dd>
      <dt>Actor</dt>
      <dd>${actorText(e.actor, v.userId)}</dd>
      <dt>Event id</dt>
      <dd><code>${e.id}</code></dd>
    </dl>
    <section aria-labelledby="payload-title">
      <h2 id="payload-title">Payload</h2>
      <pre class="payload" tabindex="0"><code>${JSON.stringify(e, null, 2)}</code></pre>
    </section>
    <p><a href=${dashboardPaths.section(v.organizationId, 'events')}>All events</a></p>`;
}
