import type { VNode } from 'preact';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { recordMessages } from './messages-records.ts';

/**
 * The "Exportar CSV" link of the sales and customers lists (decision 0092); routes/record-exports.ts
 * reads the rows and sends the file.
 */

/** The most rows an export holds (the newest): 100 calls of the API's largest page. */
export const EXPORT_CAP = 10_000;
/** The link to the export, with the list's filters, and what it holds when the list is longer than the cap. */
export function ExportLink({
  path,
  query,
  size,
  locale,
}: {
  path: string;
  query: Record<string, string | undefined>;
  /** How many rows the list's filters match: the link says when the export holds fewer. */
  size: number;
  locale: Locale;
}): VNode {
  const t = recordMessages(locale).export;
  const kept = new URLSearchParams(Object.entries(query).filter(([, v]) => v) as string[][]);
  const href = kept.size ? `${path}?${kept}` : path;
  const count = (n: number) => new Intl.NumberFormat(locale).format(n);
  return html`<p class="export">
    <a href=${href} data-testid="export-csv">${t.link}</a>${' '}
    <span class="muted"
      >${size > EXPORT_CAP ? t.capped(count(EXPORT_CAP), count(size)) : t.upTo(count(EXPORT_CAP))}</span
    >
  </p>`;
}
