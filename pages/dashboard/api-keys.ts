import type { ApiKeyRecord } from '../../api/schemas/credentials.ts';
import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { Copyable, Field, moment, PostButton, PostForm, Select, Table, type Column } from './components.ts';
import { settingsMessages } from './messages-settings.ts';
import { accessMessages } from './messages-settings-access.ts';
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
  const { common } = settingsMessages(v.locale);
  const { credentials: c, apiKeys: t } = accessMessages(v.locale);
  const columns: Column<ApiKeyRecord>[] = [
    { label: c.name, cell: (k) => k.name },
    { label: t.key, cell: (k) => html`<code>${k.masked_key}</code>` },
    { label: t.environment, cell: (k) => t.environments[k.environment] ?? k.environment },
    { label: c.scopes, cell: (k) => k.scopes.join(', ') },
    { label: c.created, cell: (k) => moment(v.locale, k.created_at) },
    { label: c.lastUsed, cell: (k) => (k.last_used_at ? moment(v.locale, k.last_used_at) : c.never) },
    { label: c.expires, cell: (k) => (k.expires_at ? moment(v.locale, k.expires_at) : c.never) },
  ];
  const active: Column<ApiKeyRecord>[] = [
    ...columns,
    { label: common.status, cell: (k) => t.statuses[k.status] ?? k.status },
    {
      label: common.actions,
      cell: (k) => html`<a href=${`${path}/${k.id}/revoke`} aria-label=${c.revokeOf(k.name)}>${c.revoke}</a>`,
    },
  ];
  const revoked: Column<ApiKeyRecord>[] = [
    ...columns,
    { label: t.revoked, cell: (k) => moment(v.locale, k.revoked_at) },
  ];
  return html`
    ${
      v.created
        ? html`<section class="secret" aria-labelledby="created-title">
            <h2 id="created-title">${t.newKey(v.created.name)}</h2>
            <p><strong>${common.copyNow}</strong> ${t.shownOnce}</p>
            <p><${Copyable} locale=${v.locale} id="new-key" value=${v.created.key} label=${t.copy} /></p>
          </section>`
        : null
    }
    <${CreateForm} locale=${v.locale} path=${path} csrf=${v.csrf} values=${v.values} />
    ${
      v.keys
        ? html`<section aria-labelledby="active-title">
              <h2 id="active-title">${t.keys}</h2>
              <${Table} caption=${t.activeCaption} columns=${active} rows=${v.keys.active} empty=${t.noKeys} />
            </section>
            <section aria-labelledby="revoked-title">
              <h2 id="revoked-title">${t.revokedKeys}</h2>
              <${Table} caption=${t.revokedKeys} columns=${revoked} rows=${v.keys.revoked} empty=${t.noRevoked} />
            </section>`
        : null
    }
  `;
}

/** The creation form: name, environment, read and/or write, an optional expiry date. */
function CreateForm({
  locale,
  path,
  csrf,
  values,
}: {
  locale: Locale;
  path: string;
  csrf: string;
  values: ApiKeysView['values'];
}) {
  const { credentials: c, apiKeys: t } = accessMessages(locale);
  const scopes = values?.scopes ?? ['read'];
  return html`<section aria-labelledby="create-title">
    <h2 id="create-title">${t.create}</h2>
    <${PostForm} action=${path} csrf=${csrf} label=${t.create}>
      <${Field} label=${c.name} name="name" value=${values?.name} required maxlength="100" />
      <${Select}
        label=${t.environment}
        name="environment"
        value=${values?.environment ?? 'test'}
        options=${[
          ['test', t.test],
          ['live', t.live],
        ]}
      />
      <fieldset>
        <legend>${c.scopes}</legend>
        <label class="check"
          ><input type="checkbox" name="scopes" value="read" checked=${scopes.includes('read')} /> ${t.read}</label
        >
        <label class="check"
          ><input type="checkbox" name="scopes" value="write" checked=${scopes.includes('write')} /> ${t.write}</label
        >
      </fieldset>
      <${Field} label=${t.expiresOn} name="expires_on" type="date" value=${values?.expires_on} hint=${t.expiresHint} />
      <button type="submit" class="button">${t.createSubmit}</button>
    <//>
  </section>`;
}

/** The confirmation before a key is revoked: what stops working, and the button that does it. */
export function revokeConfirmation(v: { locale: Locale; organizationId: string; csrf: string; key: ApiKeyRecord }) {
  const path = dashboardPaths.section(v.organizationId, 'api-keys');
  const { credentials: c, apiKeys: t } = accessMessages(v.locale);
  return html`<p>${c.revokeBefore}<strong>${v.key.name}</strong> (<code>${v.key.masked_key}</code>)${t.revokeAfter}</p>
    <div class="actions">
      <${PostButton} action=${`${path}/${v.key.id}/revoke`} csrf=${v.csrf} label=${t.revokeSubmit} danger />
      <a href=${path}>${settingsMessages(v.locale).common.keepIt}</a>
    </div>`;
}
