import { ADDABLE_ROLES, type DashboardMember } from '../../api/schemas/organizations.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { day, Field, Pager, PostButton, PostForm, Select, Table, type Column } from './components.ts';
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

const ROLE_LABELS: Record<string, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** Where a member's removal is confirmed. */
export const removalPath = (organizationId: string, email: string) =>
  `${dashboardPaths.section(organizationId, 'members')}/${encodeURIComponent(email)}/remove`;

export function membersContent(v: MembersView) {
  const path = dashboardPaths.section(v.organizationId, 'members');
  const you = (m: DashboardMember) => m.email.toLowerCase() === v.email.toLowerCase();
  const columns: Column<DashboardMember>[] = [
    { label: 'E-mail', cell: (m) => (you(m) ? html`${m.email} <span class="muted">(you)</span>` : m.email) },
    { label: 'Role', cell: (m) => ROLE_LABELS[m.role] ?? m.role },
    { label: 'Since', cell: (m) => day(v.locale, m.created_at) },
    {
      label: 'Actions',
      cell: (m) => html`<a href=${removalPath(v.organizationId, m.email)} aria-label=${`Remove ${m.email}`}>Remove</a>`,
    },
  ];
  return html`
    <section aria-labelledby="add-title">
      <h2 id="add-title">Add a member</h2>
      <${PostForm} action=${path} csrf=${v.csrf} label="Add a member">
        <${Field}
          label="E-mail"
          name="email"
          type="email"
          value=${v.values?.email}
          required
          maxlength="320"
          autocomplete="off"
          hint="Someone who has never signed in gets access at their first sign-in."
        />
        <${Select}
          label="Role"
          name="role"
          value=${v.values?.role ?? 'member'}
          options=${ADDABLE_ROLES.map((r) => [r, ROLE_LABELS[r]!] as const)}
        />
        <p class="hint">Owners add admins and members; admins add members.</p>
        <button type="submit" class="button">Add member</button>
      <//>
    </section>
    ${
      v.members
        ? html`<section aria-labelledby="members-title">
            <h2 id="members-title">Members</h2>
            <${Table}
              caption="Members, by joining time"
              columns=${columns}
              rows=${v.members.items}
              empty="No members."
            />
            <${Pager} path=${path} page=${v.page} maxPage=${v.members.pagination.max_page} />
          </section>`
        : null
    }
  `;
}

/** The confirmation before a member is removed: who loses access, and the button that does it. */
export function removalConfirmation(v: {
  organizationId: string;
  csrf: string;
  member: DashboardMember;
  yourself: boolean;
}) {
  const role = (ROLE_LABELS[v.member.role] ?? v.member.role).toLowerCase();
  return html`<p>
      ${
        v.yourself
          ? html`Leave this organization? You (<strong>${v.member.email}</strong>, ${role}) lose access to its dashboard
            at once.`
          : html`Remove <strong>${v.member.email}</strong> (${role})? They lose access to this organization's dashboard
              at once; they can be added again later.`
      }
    </p>
    <div class="actions">
      <${PostButton}
        action=${removalPath(v.organizationId, v.member.email)}
        csrf=${v.csrf}
        label=${v.yourself ? 'Leave organization' : 'Remove member'}
        danger
      />
      <a href=${dashboardPaths.section(v.organizationId, 'members')}>Cancel</a>
    </div>`;
}
