import type { OrganizationBody } from '../../api/schemas/organizations.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { renderDashboardPage } from './layout.ts';
import { settingsMessages } from './messages-settings.ts';
import { dashboardPaths } from './paths.ts';

/** After sign-in: the organizations the user belongs to, each opening its dashboard. */
export function renderOrganizationPicker(p: {
  locale: Locale;
  user: { email: string };
  csrf: string;
  organizations: Pick<OrganizationBody, 'id' | 'name' | 'slug'>[];
  firstSection: string;
}): string {
  const t = settingsMessages(p.locale).organizations;
  return renderDashboardPage({
    locale: p.locale,
    user: p.user,
    csrf: p.csrf,
    title: t.title,
    children: p.organizations.length
      ? html`<ul class="org-list">
          ${p.organizations.map(
            (o) =>
              html`<li>
                <a href=${dashboardPaths.section(o.id, p.firstSection)}>${o.name}</a>
                <span class="muted">${o.slug}</span>
              </li>`,
          )}
        </ul>`
      : html`<p>${t.none.before}<code>POST /api/v1/organizations/</code>${t.none.after}</p>`,
  });
}
