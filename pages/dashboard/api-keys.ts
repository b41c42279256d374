import type { ApiKeyRecord } from '../../api/schemas/credentials.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Copyable, Field, moment, PostButton, PostForm, Select, Table, type Column } from './components.ts';
import { dashboardPaths } from './paths.ts';

/** API keys as the spec's dashboard has them: create, the secret once, the list, revoke, the revoked. */

export interface ApiKeysView {
  locale: Locale;
  organizationId: string;
  csrf: string;
  keys: { active: ApiKeyRecord[]; revoked: ApiKeyRecord[] } | null;
  /** The key just created, with its secret: shown on this page only, never again. */
  created?: ApiKeyRecord & { key: string };
  /** The form's values after a refusal. */
  values?: { name?: string; environment?: string; scopes?: string[]; expires_on?: string };
}

export function apiKeysContent(v: ApiKeysView) {
  const path = dashboardPaths.section(v.organizationId, 'api-keys');
  const columns: Column<ApiKeyRecord>[] = [
    { label: 'Name', cell: (k) => k.name },
    { label: 'Key', cell: (k) => html`<code>${k.masked_key}</code>` },
    { label: 'Environment', cell: (k) => k.environment },
    { label: 'Scopes', cell: (k) => k.scopes.join(', ') },
    { label: 'Created', cell: (k) => moment(v.locale, k.created_at) },
    { label: 'Last used', cell: (k) => (k.last_used_at ? moment(v.locale, k.last_used_at) : 'Never') },
    { label: 'Expires', cell: (k) => (k.expires_at ? moment(v.locale, k.expires_at) : 'Never') },
  ];
  const active: Column<ApiKeyRecord>[] = [
    ...columns,
    { label: 'Status', cell: (k) => k.status },
    {
      label: 'Actions',
      cell: (k) => html`<a href=${`${path}/${k.id}/revoke`} aria-label=${`Revoke ${k.name}`}>Revoke</a>`,
    },
  ];
  const revoked: Column<ApiKeyRecord>[] = [
    ...columns,
    { label: 'Revoked', cell: (k) => moment(v.locale, k.revoked_at) },
  ];
  return html`
    ${
      v.created
        ? html`<section class="secret" aria-labelledby="created-title">
            <h2 id="created-title">Your new key: ${v.created.name}</h2>
            <p><strong>Copy it now.</strong> This is the only time the key is shown; only its masked form is kept.</p>
            <p><${Copyable} id="new-key" value=${v.created.key} label="Copy the new key" /></p>
          </section>`
        : null
    }
    <${CreateForm} path=${path} csrf=${v.csrf} values=${v.values} />
    ${
      v.keys
        ? html`<section aria-labelledby="active-title">
              <h2 id="active-title">Keys</h2>
              <${Table}
                caption="Active and expired keys"
                columns=${active}
                rows=${v.keys.active}
                empty="No keys yet."
              />
            </section>
            <section aria-labelledby="revoked-title">
              <h2 id="revoked-title">Revoked keys</h2>
              <${Table} caption="Revoked keys" columns=${revoked} rows=${v.keys.revoked} empty="No revoked keys." />
            </section>`
        : null
    }
  `;
}

/** The creation form: name, environment, read and/or write, an optional expiry date. */
function CreateForm({ path, csrf, values }: { path: string; csrf: string; values: ApiKeysView['values'] }) {
  const scopes = values?.scopes ?? ['read'];
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">Create a key</h2>
    <${PostForm} action=${path} csrf=${csrf} label="Create a key">
      <${Field} label="Name" name="name" value=${values?.name} required maxlength="100" />
      <${Select}
        label="Environment"
        name="environment"
        value=${values?.environment ?? 'test'}
        options=${[
          ['test', 'Test (svc_test_…)'],
          ['live', 'Live (svc_live_…)'],
        ]}
      />
      <fieldset>
        <legend>Scopes</legend>
        <label class="check"
          ><input type="checkbox" name="scopes" value="read" checked=${scopes.includes('read')} /> Read</label
        >
        <label class="check"
          ><input type="checkbox" name="scopes" value="write" checked=${scopes.includes('write')} /> Write</label
        >
      </fieldset>
      <${Field}
        label="Expires on (optional)"
        name="expires_on"
        type="date"
        value=${values?.expires_on}
        hint="The key stops working at the end of this day (Brasília time)."
      />
      <button type="submit" class="button">Create key</button>
    <//>
  </section>`;
}

/** The confirmation before a key is revoked: what stops working, and the button that does it. */
export function revokeConfirmation(v: { organizationId: string; csrf: string; key: ApiKeyRecord }) {
  const path = dashboardPaths.section(v.organizationId, 'api-keys');
  return html`<p>
      Revoke <strong>${v.key.name}</strong> (<code>${v.key.masked_key}</code>)? Every request with it is refused from
      then on, on every API process. This cannot be undone.
    </p>
    <div class="actions">
      <${PostButton} action=${`${path}/${v.key.id}/revoke`} csrf=${v.csrf} label="Revoke key" danger />
      <a href=${path}>Keep it</a>
    </div>`;
}
