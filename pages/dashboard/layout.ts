import type { ComponentChildren } from 'preact';
import type { Locale } from '../locale.ts';
import { html, renderDocument } from '../render.ts';
import { dashboardMessages } from './messages.ts';
import { SECTIONS, type Section } from './sections.ts';
import { dashboardPaths } from './paths.ts';

/** The frame of every dashboard page: who is signed in, in which organization, the sections, the page. */

const STYLES = ['dashboard.css'];
const SCRIPTS = ['dashboard.js'];

export type { Section } from './sections.ts';

export interface Notice {
  kind: 'status' | 'alert';
  title: string;
  detail?: string | null;
}

export interface DashboardFrame {
  locale: Locale;
  title: string;
  /** The signed-in user; null on the sign-in page. */
  user: { email: string } | null;
  /** The organization shown, its section marked aria-current in the menu. */
  organization?: { id: string; name: string } | null;
  section?: Section;
  /** The session's anti-CSRF token, for the sign-out form. */
  csrf?: string;
  notice?: Notice | null;
  /** Extra scripts of this page (the metrics chart's). */
  scripts?: string[];
  /** Extra stylesheets of this page (the chart library's). */
  styles?: string[];
  children: ComponentChildren;
}

export function renderDashboardPage(frame: DashboardFrame): string {
  const t = dashboardMessages(frame.locale).frame;
  return renderDocument({
    locale: frame.locale,
    title: `${frame.title} · ${t.dashboard}`,
    styles: [...STYLES, ...(frame.styles ?? [])],
    scripts: [...SCRIPTS, ...(frame.scripts ?? [])],
    children: html`<div class="dashboard">
      <header class="dash-header">
        <a class="dash-brand" href=${dashboardPaths.home}>${t.brand}</a>
        ${
          frame.organization
            ? html`<p class="dash-org">
                <strong>${frame.organization.name}</strong>
                <a href=${dashboardPaths.home}>${t.switchOrganization}</a>
              </p>`
            : null
        }
        ${
          frame.user
            ? html`<form class="dash-user" method="post" action=${dashboardPaths.signOut}>
                <span class="muted">${frame.user.email}</span>
                <${CsrfField} token=${frame.csrf ?? ''} />
                <button type="submit" class="link-button">${t.signOut}</button>
              </form>`
            : null
        }
      </header>
      <div class=${frame.organization ? 'dash-body with-nav' : 'dash-body'}>
        ${frame.organization ? html`<${Nav} locale=${frame.locale} organizationId=${frame.organization.id} section=${frame.section} />` : null}
        <main class="dash-main" id="main">
          <h1>${frame.title}</h1>
          ${frame.notice ? html`<${NoticeBox} ...${frame.notice} />` : null} ${frame.children}
        </main>
      </div>
    </div>`,
  });
}

function Nav({ locale, organizationId, section }: { locale: Locale; organizationId: string; section?: Section }) {
  const t = dashboardMessages(locale);
  return html`<nav class="dash-nav" aria-label=${t.frame.sections}>
    <ul>
      ${SECTIONS.map(
        (path) =>
          html`<li>
            <a
              href=${dashboardPaths.section(organizationId, path)}
              aria-current=${path === section ? 'page' : undefined}
              >${t.sections[path]}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

export function NoticeBox({ kind, title, detail }: Notice) {
  return html`<div class=${kind === 'alert' ? 'alert' : 'notice'} role=${kind}>
    <strong>${title}</strong>${detail ? html` <span>${detail}</span>` : null}
  </div>`;
}

/** The hidden field every form posts: the session's anti-CSRF token (session.ts). */
export const CsrfField = ({ token }: { token: string }) => html`<input type="hidden" name="csrf" value=${token} />`;
