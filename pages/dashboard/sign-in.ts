import type { Locale } from '../locale.ts';
import { html } from '../render.ts';
import { renderDashboardPage, type Notice } from './layout.ts';
import { dashboardPaths } from './paths.ts';

/** The form's token was refused by the API. */
export const TOKEN_REFUSED: Notice = {
  kind: 'alert',
  title: 'That token was not accepted.',
  detail: 'It is expired, or not signed by a trusted issuer.',
};

/** The sign-in page: the identity provider's button when one is configured, and the local JWT form. */
export function renderSignInPage(p: {
  locale: Locale;
  csrf: string;
  next: string;
  /** Why the last attempt failed (an alert), if it did. */
  notice: Notice | null;
  identityProvider: boolean;
}): string {
  return renderDashboardPage({
    locale: p.locale,
    user: null,
    title: 'Sign in',
    notice: p.notice,
    children: html`
      ${
        p.identityProvider
          ? html`<p>
              <a class="button" href=${`${dashboardPaths.signIn}/oidc?next=${encodeURIComponent(p.next)}`}
                >Sign in with your identity provider</a
              >
            </p>`
          : null
      }
      <form method="post" action=${dashboardPaths.signIn} class="dash-form" aria-label="Sign in with a user token">
        <input type="hidden" name="csrf" value=${p.csrf} />
        <input type="hidden" name="next" value=${p.next} />
        <div class="field">
          <label for="field-token">User token (JWT)</label>
          <textarea
            id="field-token"
            name="token"
            rows="4"
            required
            autocomplete="off"
            spellcheck="false"
            aria-describedby="token-hint"
          ></textarea>
          <p class="hint" id="token-hint">
            Locally, <code>npm start</code> prints a sign-in link and a token for the demo admin;
            <code>npm run dev:token -- --email you@example.com</code> makes others.
          </p>
        </div>
        <button type="submit" class="button">Sign in</button>
      </form>
    `,
  });
}
