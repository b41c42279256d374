import { OAT_SCOPES } from '../../domain/api-key-scopes.ts';
import type { AccessTokenRecord } from '../../api/schemas/credentials.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Copyable, Field, moment, Pager, PostButton, PostForm, Table, type Column } from './components.ts';
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
  const columns: Column<AccessTokenRecord>[] = [
    { label: 'Comment', cell: (t) => t.comment },
    { label: 'Token', cell: (t) => html`<code>${t.masked_token}</code>` },
    { label: 'Scopes', cell: (t) => t.scopes.join(', ') },
    { label: 'Created', cell: (t) => moment(v.locale, t.created_at) },
    { label: 'Last used', cell: (t) => (t.last_used_at ? moment(v.locale, t.last_used_at) : 'Never') },
    { label: 'Expires', cell: (t) => (t.expires_at ? moment(v.locale, t.expires_at) : 'Never') },
    {
      label: 'Actions',
      cell: (t) => html`<a href=${`${path}/${t.id}/revoke`} aria-label=${`Revoke ${t.comment}`}>Revoke</a>`,
    },
  ];
  return html`
    ${
      v.created
        ? html`<section class="secret" aria-labelledby="created-title">
            <h2 id="created-title">Your new token: ${v.created.comment}</h2>
            <p><strong>Copy it now.</strong> This is the only time the token is shown; only its masked form is kept.</p>
            <p><${Copyable} id="new-token" value=${v.created.token} label="Copy the new token" /></p>
          </section>`
        : null
    }
    <${CreateForm} path=${path} csrf=${v.csrf} values=${v.values} />
    ${
      v.tokens
        ? html`<section aria-labelledby="tokens-title">
            <h2 id="tokens-title">Tokens</h2>
            <${Table}
              caption="Access tokens not revoked"
              columns=${columns}
              rows=${v.tokens.items}
              empty="No tokens."
            />
            <${Pager} path=${path} page=${v.page} maxPage=${v.tokens.pagination.max_page} />
          </section>`
        : null
    }
  `;
}

/** The creation form: a comment, the scopes, and an expiry in days (none: it never expires). */
function CreateForm({ path, csrf, values }: { path: string; csrf: string; values: AccessTokensView['values'] }) {
  const scopes = values?.scopes ?? [];
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">Create a token</h2>
    <${PostForm} action=${path} csrf=${csrf} label="Create a token" className="dash-form wide-form">
      <${Field} label="Comment" name="comment" value=${values?.comment} required maxlength="200" />
      <fieldset>
        <legend>Scopes</legend>
        <p class="hint">
          A <code>:write</code> scope includes its <code>:read</code>; <code>web:read</code> reads everything and
          <code>web:write</code> does everything.
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
        label="Expires in (days, optional)"
        name="expires_in_days"
        type="number"
        min="1"
        max="3650"
        step="1"
        value=${values?.expires_in_days}
        hint="Leave empty for a token that never expires."
      />
      <button type="submit" class="button">Create token</button>
    <//>
  </section>`;
}

/** The confirmation before a token is revoked: what stops working, and the button that does it. */
export function revokeTokenConfirmation(v: { organizationId: string; csrf: string; token: AccessTokenRecord }) {
  const path = dashboardPaths.section(v.organizationId, 'access-tokens');
  return html`<p>
      Revoke <strong>${v.token.comment}</strong> (<code>${v.token.masked_token}</code>)? Every request with it is
      refused from then on, on every API process. This cannot be undone.
    </p>
    <div class="actions">
      <${PostButton} action=${`${path}/${v.token.id}/revoke`} csrf=${v.csrf} label="Revoke token" danger />
      <a href=${path}>Keep it</a>
    </div>`;
}
