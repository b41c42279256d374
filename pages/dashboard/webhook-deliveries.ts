import type { z } from 'zod';
import type { attemptSchema, deliveryWithAttemptsSchema } from '../../api/schemas/webhooks.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { moment, Pager, Table, type Column } from './components.ts';
import { CsrfField } from './layout.ts';
import { settingsMessages } from './messages-settings.ts';
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

export function deliveriesSection(v: DeliveriesView) {
  const path = endpointPath(v.organizationId, v.endpointId);
  const t = settingsMessages(v.locale).deliveries;
  return html`<section aria-labelledby="deliveries-title">
    <h2 id="deliveries-title">${t.title}</h2>
    <p class="hint">${t.hint}</p>
    ${
      v.deliveries.length === 0
        ? html`<p class="muted">${t.none}</p>`
        : v.deliveries.map((d) => html`<${DeliveryItem} delivery=${d} view=${v} />`)
    }
    <${Pager} locale=${v.locale} path=${path} page=${v.page} maxPage=${v.maxPage} />
  </section>`;
}

function DeliveryItem({ delivery: d, view: v }: { delivery: Delivery; view: DeliveriesView }) {
  const id = `delivery-${d.id}`;
  const t = settingsMessages(v.locale).deliveries;
  const columns: Column<Attempt>[] = [
    { label: '#', cell: (a) => a.number, numeric: true },
    { label: t.time, cell: (a) => attemptTime(v.locale, a.attempted_at) },
    { label: t.kind, cell: (a) => (a.manual ? t.manual : t.automatic) },
    { label: t.result, cell: (a) => (a.succeeded ? t.succeeded : t.failed) },
    { label: t.httpStatus, cell: (a) => a.status_code ?? '—', numeric: true },
    { label: t.duration, cell: (a) => `${a.latency_ms} ms`, numeric: true },
    {
      label: t.response,
      cell: (a) => (a.error ? a.error : a.response_excerpt ? html`<code>${a.response_excerpt}</code>` : '—'),
    },
  ];
  return html`<article class="delivery" aria-labelledby=${id}>
    <h3 id=${id}>${d.event_type} · ${t.status[d.status]}</h3>
    <p>
      ${t.event} <code>${d.event_id}</code> · ${t.createdAt(moment(v.locale, d.created_at))}
      ${d.next_attempt_at ? t.nextAttempt(moment(v.locale, d.next_attempt_at)) : null}
    </p>
    <${Table} caption=${t.attemptsOf(d.event_type)} columns=${columns} rows=${d.attempt_log} empty=${t.noAttempt} />
    <form method="post" action=${`${endpointPath(v.organizationId, v.endpointId)}/redeliver`} class="inline-form">
      <${CsrfField} token=${v.csrf} />
      <input type="hidden" name="event_id" value=${d.event_id} />
      <button type="submit" class="button secondary" aria-describedby=${id}>${t.redeliver}</button>
    </form>
  </article>`;
}
