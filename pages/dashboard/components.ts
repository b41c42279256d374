import type { ComponentChildren, VNode } from 'preact';
import { calendarDate, money, type Locale } from '../locale.ts';
import { html } from '../render.ts';
import { ScrollRegion } from '../scroll-region.ts';
import { CsrfField } from './layout.ts';
import { commerceMessages } from './messages-commerce.ts';

/** The building blocks of the dashboard's sections: tables, forms, fields, buttons that post. */

export interface Column<Row> {
  label: string;
  cell: (row: Row) => ComponentChildren;
  /** Right-aligned numbers (amounts). */
  numeric?: boolean;
}

/** A table of records with a caption; `empty` when there are none. */
export function Table<Row>({
  caption,
  columns,
  rows,
  empty,
}: {
  caption: string;
  columns: Column<Row>[];
  rows: Row[];
  empty: string;
}): VNode {
  if (rows.length === 0) return html`<p class="muted">${empty}</p>`;
  return html`<${ScrollRegion} label=${caption}>
    <table class="dash-table">
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((c) => html`<th scope="col" class=${c.numeric ? 'num' : undefined}>${c.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            html`<tr>
              ${columns.map((c) => html`<td class=${c.numeric ? 'num' : undefined}>${c.cell(row)}</td>`)}
            </tr>`,
        )}
      </tbody>
    </table>
  <//>`;
}

/** A labelled input; `hint` is tied to it by aria-describedby. */
export function Field({
  label,
  name,
  type = 'text',
  value,
  required,
  hint,
  invalid,
  ...rest
}: {
  label: string;
  name: string;
  type?: string;
  value?: string | number | null;
  required?: boolean;
  hint?: string;
  invalid?: boolean;
  [attribute: string]: unknown;
}): VNode {
  const id = `field-${name}`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input
      id=${id}
      name=${name}
      type=${type}
      value=${value ?? undefined}
      required=${required}
      aria-invalid=${invalid ? 'true' : undefined}
      aria-describedby=${hint ? `${id}-hint` : undefined}
      ...${rest}
    />
    ${hint ? html`<p class="hint" id=${`${id}-hint`}>${hint}</p>` : null}
  </div>`;
}

/** A labelled select of [value, label] options. */
export function Select({
  label,
  name,
  options,
  value,
}: {
  label: string;
  name: string;
  options: readonly (readonly [string, string])[];
  value?: string;
}): VNode {
  const id = `field-${name}`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} name=${name}>
      ${options.map(([v, l]) => html`<option value=${v} selected=${v === value}>${l}</option>`)}
    </select>
  </div>`;
}

/** A form that posts with the session's anti-CSRF token. */
export function PostForm({
  action,
  csrf,
  label,
  children,
  className,
}: {
  action: string;
  csrf: string;
  label?: string;
  className?: string;
  children: ComponentChildren;
}): VNode {
  return html`<form method="post" action=${action} aria-label=${label} class=${className ?? 'dash-form'}>
    <${CsrfField} token=${csrf} />
    ${children}
  </form>`;
}

/** One button that posts (revoke, archive, redeliver): a small form of its own. */
export function PostButton({
  action,
  csrf,
  label,
  danger,
  fields = {},
}: {
  action: string;
  csrf: string;
  label: string;
  danger?: boolean;
  fields?: Record<string, string>;
}): VNode {
  return html`<form method="post" action=${action} class="inline-form">
    <${CsrfField} token=${csrf} />
    ${Object.entries(fields).map(([name, value]) => html`<input type="hidden" name=${name} value=${value} />`)}
    <button type="submit" class=${danger ? 'button danger' : 'button secondary'}>${label}</button>
  </form>`;
}

/** A value with a copy button (dashboard.js copies the text of the element named by data-copy). */
export function Copyable({
  id,
  value,
  label,
  locale,
}: {
  id: string;
  value: string;
  label: string;
  locale: Locale;
}): VNode {
  // The button keeps its name; "Copied" is announced by the status beside it (dashboard.js), in the words
  // the status carries.
  const t = commerceMessages(locale).generic;
  return html`<span class="copyable"
    ><code id=${id}>${value}</code>
    <button type="button" class="button secondary" data-copy=${id} aria-label=${label}>${t.copy}</button>
    <span
      class="copy-status"
      role="status"
      data-copy-status=${id}
      data-copied=${t.copied}
      data-copy-failed=${t.copyFailed}
    ></span
  ></span>`;
}

export const amount = (locale: Locale, cents: number | null | undefined, currency = 'brl') =>
  cents === null || cents === undefined ? '—' : money(locale, cents, currency);

export const day = (locale: Locale, at: string | null | undefined) => (at ? calendarDate(locale, at) : '—');

/** A moment with the time, in Brazil's time, e.g. for a webhook attempt or a key's last use. */
export function moment(locale: Locale, at: string | null | undefined): string {
  if (!at) return '—';
  return new Intl.DateTimeFormat(locale, {
    timeZone: 'America/Sao_Paulo',
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(new Date(at));
}

/** Pages of a list: previous and next links keeping the other query parameters. */
export function Pager({
  path,
  page,
  maxPage,
  query = {},
  locale,
}: {
  path: string;
  page: number;
  maxPage: number;
  query?: Record<string, string | undefined>;
  locale: Locale;
}): VNode | null {
  if (maxPage <= 1) return null;
  const t = commerceMessages(locale).generic;
  const href = (p: number) => {
    const q = new URLSearchParams(Object.entries({ ...query, page: String(p) }).filter(([, v]) => v) as string[][]);
    return `${path}?${q}`;
  };
  return html`<nav class="pager" aria-label=${t.pages}>
    ${page > 1 ? html`<a href=${href(page - 1)} rel="prev">${t.previous}</a>` : null}
    <span>${t.pageOf(page, maxPage)}</span>
    ${page < maxPage ? html`<a href=${href(page + 1)} rel="next">${t.next}</a>` : null}
  </nav>`;
}
