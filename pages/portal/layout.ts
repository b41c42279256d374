import type { BrandView } from '../../api/organization-brand.ts';
import { BrandMark, brandStylesheet } from '../brand.ts';
import type { ComponentChildren } from 'preact';
import { failureWords, type PageFailure } from '../error-page.ts';
import type { Locale } from '../locale.ts';
import { html, renderDocument } from '../render.ts';
import { messagesFor, type Messages } from './messages.ts';
import { portalPaths } from './paths.ts';

/** The frame of every portal page: who is signed in, the two sections, and the page's own part. */

const STYLES = ['portal.css'];

export interface PortalFrame {
  locale: Locale;
  /** The signed-in customer, as the header names them; null on the pages shown without a session. */
  customer: { name?: string | null; email: string } | null;
  /** The merchant's logo, name and colour (decision 0091); the portal's own look without it. */
  brand?: BrandView | null;
  /** The section the page belongs to, marked aria-current in the menu. */
  section?: 'overview' | 'billing';
  title: string;
  /** A message after a change (role=status) or a refusal (role=alert). */
  notice?: { kind: 'status' | 'alert'; title: string; detail?: string | null } | null;
  children: ComponentChildren;
  /** The page's scripts (the card page's tokenizer and its driver); none by default. */
  scripts?: string[];
}

export function renderPortalPage(frame: PortalFrame): string {
  const t = messagesFor(frame.locale);
  return renderDocument({
    locale: frame.locale,
    title: `${frame.title} · ${t.title}`,
    styles: STYLES,
    scripts: frame.scripts,
    brandStyle: brandStylesheet(frame.brand),
    children: html`<div class="portal">
      <header class="portal-header">
        ${frame.brand ? html`<${BrandMark} brand=${frame.brand} className="portal-merchant" />` : null}
        <p class="portal-brand">${t.title}</p>
        ${
          frame.customer
            ? html`<p class="portal-who">
                ${frame.customer.name ? html`<strong>${frame.customer.name}</strong> ` : null}
                <span class="muted">${frame.customer.email}</span>
              </p>`
            : null
        }
        ${frame.customer ? html`<${Nav} section=${frame.section} t=${t} />` : null}
      </header>
      <main class="portal-main">
        <h1>${frame.title}</h1>
        ${frame.notice ? html`<${Notice} ...${frame.notice} />` : null} ${frame.children}
      </main>
    </div>`,
  });
}

function Nav({ section, t }: { section?: PortalFrame['section']; t: Messages }) {
  const link = (href: string, label: string, here: boolean) =>
    html`<li><a href=${href} aria-current=${here ? 'page' : undefined}>${label}</a></li>`;
  return html`<nav aria-label=${t.nav}>
    <ul class="portal-nav">
      ${link(portalPaths.overview, t.overview, section === 'overview')}
      ${link(portalPaths.billing, t.billing, section === 'billing')}
    </ul>
  </nav>`;
}

function Notice({ kind, title, detail }: NonNullable<PortalFrame['notice']>) {
  return html`<div class=${kind === 'alert' ? 'alert' : 'notice'} role=${kind}>
    <strong>${title}</strong>${detail ? html` <span>${detail}</span>` : null}
  </div>`;
}

/** The hidden field every form posts: the session's anti-CSRF token (pages/portal/session.ts). */
export const CsrfField = ({ token }: { token: string }) => html`<input type="hidden" name="csrf" value=${token} />`;

/** Without a session (no cookie, an expired or unknown token): what to do, in the customer's words. */
export function renderExpiredPage(locale: Locale): string {
  const t = messagesFor(locale);
  return renderPortalPage({
    locale,
    customer: null,
    title: t.expiredTitle,
    children: html`<p>${t.expiredBody}</p>`,
  });
}

/** A refused form post (its anti-CSRF token missing or wrong): nothing was changed. */
export function renderRefusedPage(locale: Locale): string {
  const t = messagesFor(locale);
  return renderPortalPage({
    locale,
    customer: null,
    title: t.forbiddenTitle,
    children: html`<p>${t.csrfBody}</p>
      <p><a href=${portalPaths.overview}>${t.back}</a></p>`,
  });
}

export function renderPortalNotFound(locale: Locale, customer: PortalFrame['customer']): string {
  const t = messagesFor(locale);
  return renderPortalPage({
    locale,
    customer,
    title: t.notFound,
    children: html`<p><a href=${portalPaths.overview}>${t.back}</a></p>`,
  });
}

/** A page that failed: too many requests (with the wait, in seconds), a request refused as sent, or anything else. */
export function renderErrorPage(locale: Locale, failure: PageFailure): string {
  const [title, body] = failureWords(messagesFor(locale), failure);
  return renderPortalPage({ locale, customer: null, title, children: html`<p>${body}</p>` });
}
