import { messagesFor } from '../checkout/messages.ts';
import { failureWords, type PageFailure } from '../error-page.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { renderDashboardPage } from './layout.ts';

/**
 * A dashboard page that failed (the rate limit's 429 above all) is a page in the merchant's language,
 * worded as the buyer pages word it (decision 0084), never the API's JSON body.
 */
export function renderDashboardErrorPage(locale: Locale, failure: PageFailure): string {
  const [title, body] = failureWords(messagesFor(locale), failure);
  return renderDashboardPage({ locale, user: null, title, children: html`<p>${body}</p>` });
}
