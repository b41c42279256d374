import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { renderDashboardPage, type Notice } from './layout.ts';
import { dashboardMessages } from './messages.ts';
import { dashboardPaths } from './paths.ts';

/** The form's token was refused by the API. */
export const tokenRefused = (locale: Locale): Notice => {
  const t = dashboardMessages(locale).signIn;
  return { kind: 'alert', title: t.refused, detail: t.refusedDetail };
};

/**
 * The sign-in page: the identity provider's button when one is configured, and the token form. It speaks
 * to a merchant; how a developer makes a token is in the README.
 */
export function renderSignInPage(p: {
  locale: Locale;
  csrf: string;
  next: string;
  /** Why the last attempt failed (an alert), if it did. */
  notice: Notice | null;
  identityProvider: boolean;
}): string {
  const t = dashboardMessages(p.locale).signIn;
  return renderDashboardPage({
    locale: p.locale,
    user: null,
    title: t.title,
    notice: p.notice,
    children: html`
      ${
        p.identityProvider
          ? html`<p>
              <a class="button" href=${`${dashboardPaths.signIn}/oidc?next=${encodeURIComponent(p.next)}`}
                >${t.withProvider}</a
              >
            </p>`
          : null
      }
      <form method="post" action=${dashboardPaths.signIn} class="dash-form" aria-label=${t.formLabel}>
        <input type="hidden" name="csrf" value=${p.csrf} />
        <input type="hidden" name="next" value=${p.next} />
        <div class="field">
          <label for="field-token">${t.token}</label>
          <textarea
            id="field-token"
            name="token"
            rows="4"
            required
            autocomplete="off"
            spellcheck="false"
            aria-describedby="token-hint"
          ></textarea>
          <p class="hint" id="token-hint">${t.tokenHint}</p>
        </div>
        <button type="submit" class="button">${t.submit}</button>
      </form>
    `,
  });
}
