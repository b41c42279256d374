import type { OrganizationBody } from '../../api/schemas/organizations.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { renderDashboardPage } from './layout.ts';
import { dashboardPaths } from './paths.ts';

/** After sign-in: the organizations the user belongs to, each opening its dashboard. */
export function renderOrganizationPicker(p: {
  locale: Locale;
  user: { email: string };
  csrf: string;
  organizations: Pick<OrganizationBody, 'id' | 'name' | 'slug'>[];
  firstSection: string;
}): string {
  return renderDashboardPage({
    locale: p.locale,
    user: p.user,
    csrf: p.csrf,
    title: 'Pick an organization',
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
      : html`<p>
          You are not a member of any organization yet. Ask an owner to add your e-mail, or create one with
          <code>POST /api/v1/organizations/</code>.
        </p>`,
  });
}
