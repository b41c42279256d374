import { ADDABLE_ROLES, type DashboardMember } from '../../api/schemas/organizations.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { day, Field, Pager, PostButton, PostForm, Select, Table, type Column } from './components.ts';
import { settingsMessages } from './messages-settings.ts';
import { accessMessages } from './messages-settings-access.ts';
import { dashboardPaths } from './paths.ts';

/** The organization's members: who, with which role, since when; add by e-mail; remove behind a confirmation. */

export interface MembersView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  /** The signed-in user's e-mail: their row says "you". */
  email: string;
  page: number;
  members: { items: DashboardMember[]; pagination: { total_count: number; max_page: number } } | null;
  /** The form's values after a refusal. */
  values?: { email?: string; role?: string };
}

/** Where a member's removal is confirmed. */
export const removalPath = (organizationId: string, email: string) =>
  `${dashboardPaths.section(organizationId, 'members')}/${encodeURIComponent(email)}/remove`;

export function membersContent(v: MembersView) {
  const path = dashboardPaths.section(v.organizationId, 'members');
  const you = (m: DashboardMember) => m.email.toLowerCase() === v.email.toLowerCase();
  const { common } = settingsMessages(v.locale);
  const t = accessMessages(v.locale).members;
  const columns: Column<DashboardMember>[] = [
    { label: t.email, cell: (m) => (you(m) ? html`${m.email} <span class="muted">${t.you}</span>` : m.email) },
    { label: t.role, cell: (m) => t.roles[m.role] ?? m.role },
    { label: t.since, cell: (m) => day(v.locale, m.created_at) },
    {
      label: common.actions,
      cell: (m) =>
        html`<a href=${removalPath(v.organizationId, m.email)} aria-label=${t.removeOf(m.email)}>${t.remove}</a>`,
    },
  ];
  return html`
    <section aria-labelledby="add-title">
      <h2 id="add-title">${t.add}</h2>
      <${PostForm} action=${path} csrf=${v.csrf} label=${t.add}>
        <${Field}
          label=${t.email}
          name="email"
          type="email"
          value=${v.values?.email}
          required
          maxlength="320"
          autocomplete="off"
          hint=${t.emailHint}
        />
        <${Select}
          label=${t.role}
          name="role"
          value=${v.values?.role ?? 'member'}
          options=${ADDABLE_ROLES.map((r) => [r, t.roles[r] ?? r] as const)}
        />
        <p class="hint">${t.rolesHint}</p>
        <button type="submit" class="button">${t.addSubmit}</button>
      <//>
    </section>
    ${
      v.members
        ? html`<section aria-labelledby="members-title">
            <h2 id="members-title">${t.title}</h2>
            <${Table} caption=${t.caption} columns=${columns} rows=${v.members.items} empty=${t.none} />
            <${Pager} locale=${v.locale} path=${path} page=${v.page} maxPage=${v.members.pagination.max_page} />
          </section>`
        : null
    }
  `;
}

/** The confirmation before a member is removed: who loses access, and the button that does it. */
export function removalConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  member: DashboardMember;
  yourself: boolean;
}) {
  const t = accessMessages(v.locale).members;
  const role = (t.roles[v.member.role] ?? v.member.role).toLocaleLowerCase(v.locale);
  const confirm = v.yourself ? t.leaveConfirm : t.removeConfirm;
  return html`<p>${confirm.before}<strong>${v.member.email}</strong>${confirm.after(role)}</p>
    <div class="actions">
      <${PostButton}
        action=${removalPath(v.organizationId, v.member.email)}
        csrf=${v.csrf}
        label=${v.yourself ? t.leaveSubmit : t.removeSubmit}
        danger
      />
      <a href=${dashboardPaths.section(v.organizationId, 'members')}>${settingsMessages(v.locale).common.cancel}</a>
    </div>`;
}
