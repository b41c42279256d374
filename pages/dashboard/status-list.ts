import type { VNode } from 'preact';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import type { ListPage } from './commerce.ts';
import { Pager, Select, Table, type Column } from './components.ts';

/** A list filtered by status and paged (mandates, reconciliation reports): its filter form and its page. */

/** The words a status list needs from its section's catalogue. */
export interface StatusListWords {
  status: string;
  anyStatus: string;
  filterForm: string;
  filter: string;
  clear: string;
  summary: (total: number) => string;
  caption: string;
}

/** The status filter: a GET form, so the filtered list has an address of its own, and a link that clears it. */
export function StatusFilter({
  path,
  t,
  status,
  options,
}: {
  path: string;
  t: StatusListWords;
  status?: string;
  /** Each status with its words; the filter adds "any status" first. */
  options: readonly (readonly [string, string])[];
}): VNode {
  const all = [['', t.anyStatus], ...options];
  return html`<form method="get" action=${path} class="dash-form events-form" aria-label=${t.filterForm}>
    <${Select} label=${t.status} name="status" value=${status ?? ''} options=${all} />
    <div class="actions">
      <button type="submit" class="button secondary">${t.filter}</button>
      <a href=${path}>${t.clear}</a>
    </div>
  </form>`;
}

/** One page of the list: how many in all, the table, and the pager that keeps the status filter. */
export function StatusListPage<Row>({
  locale,
  path,
  t,
  status,
  page,
  list,
  columns,
  empty,
}: {
  locale: Locale;
  path: string;
  t: StatusListWords;
  status?: string;
  page: number;
  list: ListPage<Row>;
  columns: Column<Row>[];
  empty: string;
}): VNode {
  return html`<p class="muted">${t.summary(list.pagination.total_count)}</p>
    <${Table} caption=${t.caption} columns=${columns} rows=${list.items} empty=${empty} />
    <${Pager} locale=${locale} path=${path} page=${page} maxPage=${list.pagination.max_page} query=${{ status }} />`;
}
