import { OAT_SCOPES } from '../../domain/api-key-scopes.ts';
import type { AccessTokenRecord } from '../../api/schemas/credentials.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Copyable, Field, moment, Pager, PostButton, PostForm, Table, type Column } from './components.ts';
import { settingsMessages } from './messages-settings.ts';
import { accessMessages } from './messages-settings-access.ts';
import { dashboardPaths } from './paths.ts';

/** Organization Access Tokens: create (the token once), the list, revoke behind a confirmation. */

export interface AccessTokensView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  page: number;
  /** The API's page of tokens that are not revoked; null when it refused (a plain member). */
  tokens: { items: AccessTokenRecord[]; pagination: { max_page: number } } | null;
  /** The token just created, with its secret: shown on this page only, never again. */
  created?: AccessTokenRecord & { token: string };
  /** The form's values after a refusal. */
  values?: { comment?: string; scopes?: string[]; expires_in_days?: string };
}

export function accessTokensContent(v: AccessTokensView) {
  const path = dashboardPaths.section(v.organizationId, 'access-tokens');
  const { common } = settingsMessages(v.locale);
  const { credentials: c, tokens: m } = accessMessages(v.locale);
  const columns: Column<AccessTokenRecord>[] = [
    { label: m.comment, cell: (t) => t.comment },
    { label: m.token, cell: (t) => html`<code>${t.masked_token}</code>` },
    { label: c.scopes, cell: (t) => t.scopes.join(', ') },
    { label: m.created, cell: (t) => moment(v.locale, t.created_at) },
    { label: c.lastUsed, cell: (t) => (t.last_used_at ? moment(v.locale, t.last_used_at) : c.never) },
    { label: c.expires, cell: (t) => (t.expires_at ? moment(v.locale, t.expires_at) : c.never) },
    {
      label: common.actions,
      cell: (t) => html`<a href=${`${path}/${t.id}/revoke`} aria-label=${c.revokeOf(t.comment)}>${c.revoke}</a>`,
    },
  ];
  return html`
    ${
      v.created
        ? html`<section class="secret" aria-labelledby="created-title">
            <h2 id="created-title">${m.newToken(v.created.comment)}</h2>
            <p><strong>${common.copyNow}</strong> ${m.shownOnce}</p>
            <p><${Copyable} locale=${v.locale} id="new-token" value=${v.created.token} label=${m.copy} /></p>
          </section>`
        : null
    }
    <${CreateForm} locale=${v.locale} path=${path} csrf=${v.csrf} values=${v.values} />
    ${
      v.tokens
        ? html`<section aria-labelledby="tokens-title">
            <h2 id="tokens-title">${m.tokens}</h2>
            <${Table} caption=${m.caption} columns=${columns} rows=${v.tokens.items} empty=${m.none} />
            <${Pager} locale=${v.locale} path=${path} page=${v.page} maxPage=${v.tokens.pagination.max_page} />
          </section>`
        : null
    }
  `;
}

/** The creation form: a comment, the scopes, and an expiry in days (none: it never expires). */
function CreateForm({
  locale,
  path,
  csrf,
  values,
}: {
  locale: Locale;
  path: string;
  csrf: string;
  values: AccessTokensView['values'];
}) {
  const { credentials: c, tokens: m } = accessMessages(locale);
  const hint = m.scopesHint;
  const scopes = values?.scopes ?? [];
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">${m.create}</h2>
    <${PostForm} action=${path} csrf=${csrf} label=${m.create} className="dash-form wide-form">
      <${Field} label=${m.comment} name="comment" value=${values?.comment} required maxlength="200" />
      <fieldset>
        <legend>${c.scopes}</legend>
        <p class="hint">
          ${hint.a}<code>:write</code>${hint.includes}<code>:read</code>;
          <code>web:read</code>${hint.reads}<code>web:write</code>${hint.does}
        </p>
        <div class="scope-grid">
          ${OAT_SCOPES.map(
            (scope) =>
              html`<label class="check"
                ><input type="checkbox" name="scopes" value=${scope} checked=${scopes.includes(scope)} />
                ${scope}</label
              >`,
          )}
        </div>
      </fieldset>
      <${Field}
        label=${m.expiresIn}
        name="expires_in_days"
        type="number"
        min="1"
        max="3650"
        step="1"
        value=${values?.expires_in_days}
        hint=${m.expiresHint}
      />
      <button type="submit" class="button">${m.createSubmit}</button>
    <//>
  </section>`;
}

/** The confirmation before a token is revoked: what stops working, and the button that does it. */
export function revokeTokenConfirmation(v: {
  locale: Locale;
  organizationId: string;
  csrf: string;
  token: AccessTokenRecord;
}) {
  const path = dashboardPaths.section(v.organizationId, 'access-tokens');
  const { credentials: c, tokens: m } = accessMessages(v.locale);
  return html`<p>
      ${c.revokeBefore}<strong>${v.token.comment}</strong> (<code>${v.token.masked_token}</code>)${m.revokeAfter}
    </p>
    <div class="actions">
      <${PostButton} action=${`${path}/${v.token.id}/revoke`} csrf=${v.csrf} label=${m.revokeSubmit} danger />
      <a href=${path}>${settingsMessages(v.locale).common.keepIt}</a>
    </div>`;
}
