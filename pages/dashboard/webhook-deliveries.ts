import type { z } from 'zod';
import type { attemptSchema, deliveryWithAttemptsSchema } from '../../api/schemas/webhooks.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { moment, Pager, Table, type Column } from './components.ts';
import { CsrfField } from './layout.ts';
import { endpointPath } from './webhooks.ts';

/** An endpoint's deliveries, newest first, each with every attempt and a button that sends the event again. */

export type Delivery = z.infer<typeof deliveryWithAttemptsSchema>;
type Attempt = z.infer<typeof attemptSchema>;

export interface DeliveriesView {
  locale: Locale;
  organizationId: string;
  endpointId: string;
  csrf: string;
  deliveries: Delivery[];
  page: number;
  maxPage: number;
}

/** An attempt's moment to the second, in Brazil's time: retries come seconds apart. */
const attemptTime = (locale: Locale, at: string) =>
  new Intl.DateTimeFormat(locale, { timeZone: 'America/Sao_Paulo', dateStyle: 'short', timeStyle: 'medium' }).format(
    new Date(at),
  );

const STATUS: Record<Delivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceled: 'Canceled',
};

export function deliveriesSection(v: DeliveriesView) {
  const path = endpointPath(v.organizationId, v.endpointId);
  return html`<section aria-labelledby="deliveries-title">
    <h2 id="deliveries-title">Deliveries</h2>
    <p class="hint">Newest first. A delivery that failed is tried again on its own for about three days.</p>
    ${
      v.deliveries.length === 0
        ? html`<p class="muted">No deliveries yet. Events this endpoint subscribed to appear here once sent.</p>`
        : v.deliveries.map((d) => html`<${DeliveryItem} delivery=${d} view=${v} />`)
    }
    <${Pager} path=${path} page=${v.page} maxPage=${v.maxPage} />
  </section>`;
}

function DeliveryItem({ delivery: d, view: v }: { delivery: Delivery; view: DeliveriesView }) {
  const id = `delivery-${d.id}`;
  const columns: Column<Attempt>[] = [
    { label: '#', cell: (a) => a.number, numeric: true },
    { label: 'Time', cell: (a) => attemptTime(v.locale, a.attempted_at) },
    { label: 'Kind', cell: (a) => (a.manual ? 'Redelivery' : 'Automatic') },
    { label: 'Result', cell: (a) => (a.succeeded ? 'Succeeded' : 'Failed') },
    { label: 'HTTP status', cell: (a) => a.status_code ?? '—', numeric: true },
    { label: 'Duration', cell: (a) => `${a.latency_ms} ms`, numeric: true },
    {
      label: 'Response',
      cell: (a) => (a.error ? a.error : a.response_excerpt ? html`<code>${a.response_excerpt}</code>` : '—'),
    },
  ];
  return html`<article class="delivery" aria-labelledby=${id}>
    <h3 id=${id}>${d.event_type} · ${STATUS[d.status]}</h3>
    <p>
      Event <code>${d.event_id}</code> · created ${moment(v.locale, d.created_at)}
      ${d.next_attempt_at ? ` · next attempt ${moment(v.locale, d.next_attempt_at)}` : null}
    </p>
    <${Table}
      caption=${`Attempts to deliver ${d.event_type}`}
      columns=${columns}
      rows=${d.attempt_log}
      empty="No attempt yet."
    />
    <form method="post" action=${`${endpointPath(v.organizationId, v.endpointId)}/redeliver`} class="inline-form">
      <${CsrfField} token=${v.csrf} />
      <input type="hidden" name="event_id" value=${d.event_id} />
      <button type="submit" class="button secondary" aria-describedby=${id}>Redeliver</button>
    </form>
  </article>`;
}
