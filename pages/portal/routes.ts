import formBody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { actorOf } from '../../api/auth/credentials.ts';
import { updateCustomer } from '../../api/customer-writes.ts';
import { browserTokenizer } from '../../api/browser-card-tokenizer.ts';
import { planOptions, previewPlanChange } from '../../api/plan-change-preview.ts';
import {
  changePortalSubscription,
  customerUpdatesAllowed,
  replacePortalCard,
  type PortalSubscriptionChange,
} from '../../api/portal-subscription-changes.ts';
import { portalActivationOf, portalMandateOf } from '../../api/portal-mandates.ts';
import { pixQrSvg } from '../checkout/payment-documents.ts';
import { portalMandateRoutes } from './mandate-routes.ts';
import { ApiError } from '../../use-cases/errors.ts';
import { pickLocale, type Locale } from '../locale.ts';
import { pageErrorHandler } from '../error-page.ts';
import { sendPage } from '../page-headers.ts';
import { brandHeaders } from '../brand.ts';
import { organizationBrand, type BrandView } from '../../api/organization-brand.ts';
import type { RequestEm } from '../request-em.ts';
import { billingForm, billingUpdateOf, renderBillingPage } from './billing.ts';
import { renderCardPage } from './card.ts';
import { renderErrorPage, renderExpiredPage, renderPortalNotFound, renderRefusedPage } from './layout.ts';
import { messagesFor } from './messages.ts';
import { refusalText } from './refusals.ts';
import { renderOverviewPage } from './overview.ts';
import { PORTAL, portalPaths } from './paths.ts';
import {
  overviewData,
  portalCustomer,
  subscriptionData,
  type CustomerEntity,
  type SubscriptionEntity,
  type PortalCustomerScope,
} from '../../use-cases/portal-reads.ts';
import { clearSessionCookie, csrfTokenMatches, csrfTokenOf, SESSION_COOKIE, setSessionCookie } from './session.ts';
import { renderCancelPage, renderPlanPreviewPage, renderSubscriptionPage } from './subscription.ts';
import { renderRevokeMandatePage } from './mandate.ts';
import type { RouteApp, RouteDeps } from '../../api/route-deps.ts';

const entryQuery = z.object({ token: z.string().max(200).optional(), done: z.string().max(20).optional() });
const doneQuery = z.object({ done: z.string().max(20).optional() });
const subscriptionParams = z.object({ id: z.string().max(64) });
const planQuery = z.object({ price_id: z.string().max(64).optional() });
const csrfForm = z.object({ csrf: z.string().max(200).optional() });
const planForm = csrfForm.extend({ price_id: z.string().max(64).optional() });
// The card's token and what the fields' script adds beside it (its BIN's method and issuer), unread here.
const cardForm = csrfForm.extend({ card_token: z.string().max(500).optional() });

/** A signed-in request: who, in which words, with the forms' anti-CSRF token. */
export interface Visit {
  locale: Locale;
  scope: PortalCustomerScope;
  customer: CustomerEntity;
  csrf: string;
  em: RequestEm;
  /** The merchant's logo and colour on every page of the session (decision 0091). */
  brand: BrandView;
}

/**
 * The customer portal's pages (README.md, Pages). The merchant's link (`/portal?token=svc_cst_…`)
 * trades the customer session token for an HttpOnly cookie; every page then reads the customer's
 * own records as the portal API does, and every form post makes its change through the code the
 * portal API's routes call (api/portal-subscription-changes.ts, api/customer-writes.ts).
 */
export const portalPageRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  await app.register(formBody);
  // A 429 (or any failure) of a page is a page in the customer's language, never the API's JSON body.
  app.setErrorHandler(pageErrorHandler(renderErrorPage));
  entryRoutes(app, deps);
  subscriptionRoutes(app, deps);
  changeRoutes(app, deps);
  portalMandateRoutes(app, deps, { visitOf, postVisit, sendSubscriptionPage });
  cardRoutes(app, deps);
  billingRoutes(app, deps);
};

/** The session of the request's cookie, checked as the API checks a bearer token; null when there is none. */
async function visitOf(app: RouteApp, deps: RouteDeps, request: FastifyRequest): Promise<Visit | null> {
  const locale = pickLocale(request.headers['accept-language']);
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return null;
  try {
    const credential = await app.customerSession(token);
    // The changes' events name the customer as their actor, as the portal API's do.
    request.identifyActor?.(actorOf(credential));
    const scope = { organizationId: credential.organizationId, customerId: credential.customerId };
    const em = deps.orm.em.fork();
    const customer = await portalCustomer(em, scope);
    if (!customer) return null;
    const brand = await organizationBrand(em, deps.files, scope.organizationId);
    return { locale, scope, customer, csrf: csrfTokenOf(token), em, brand };
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 401) return null;
    throw err;
  }
}

const expired = (request: FastifyRequest, reply: FastifyReply) =>
  sendPage(clearSessionCookie(reply), 401, renderExpiredPage(pickLocale(request.headers['accept-language'])));

/** A form post's visit, when its anti-CSRF token is the session's; the reply is sent otherwise. */
async function postVisit(
  app: RouteApp,
  deps: RouteDeps,
  request: FastifyRequest<{ Body: { csrf?: string } | undefined }>,
  reply: FastifyReply,
): Promise<Visit | null> {
  const visit = await visitOf(app, deps, request);
  if (!visit) {
    await expired(request, reply);
    return null;
  }
  if (!csrfTokenMatches(request.cookies[SESSION_COOKIE]!, request.body?.csrf)) {
    await sendPage(reply, 403, renderRefusedPage(visit.locale));
    return null;
  }
  return visit;
}

/** A status message after a change, by the `done` of the address the change redirected to. */
function doneNotice(locale: Locale, done: string | undefined) {
  const title = done ? messagesFor(locale).done[done] : undefined;
  return title ? { kind: 'status' as const, title } : null;
}

/** GET /portal: the merchant's link (then a 303 without the token), else the overview. */
function entryRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(PORTAL, { schema: { hide: true, querystring: entryQuery } }, async (request, reply) => {
    const { token, done } = request.query;
    if (token !== undefined) {
      try {
        const credential = await app.customerSession(token);
        // The token leaves the address bar (and the history) at once; the cookie carries it from now on.
        return setSessionCookie(reply, token, credential.expiresAt)
          .header('cache-control', 'no-store')
          .header('referrer-policy', 'no-referrer')
          .redirect(PORTAL, 303);
      } catch (err) {
        if (err instanceof ApiError && err.statusCode === 401) return expired(request, reply);
        throw err;
      }
    }
    const visit = await visitOf(app, deps, request);
    if (!visit) return expired(request, reply);
    const data = await overviewData(visit.em, visit.scope);
    return sendPage(
      reply,
      200,
      renderOverviewPage({
        locale: visit.locale,
        customer: visit.customer,
        brand: visit.brand,
        data,
        notice: doneNotice(visit.locale, done),
      }),
      brandHeaders(visit.brand),
    );
  });
}

/** A subscription's page, and its cancellation's confirmation and plan change's preview (GETs: nothing changes). */
function subscriptionRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    `${PORTAL}/subscriptions/:id`,
    { schema: { hide: true, params: subscriptionParams, querystring: doneQuery } },
    async (request, reply) => {
      const visit = await visitOf(app, deps, request);
      if (!visit) return expired(request, reply);
      const notice = doneNotice(visit.locale, request.query.done);
      return sendSubscriptionPage(reply, deps, visit, request.params.id, 200, notice);
    },
  );

  // The confirmation page before a change's post: cancelling the subscription, revoking its mandate.
  const confirmations: [string, (page: Parameters<typeof renderCancelPage>[0]) => string][] = [
    ['cancel', renderCancelPage],
    ['mandate/revoke', (page) => renderRevokeMandatePage({ ...page, t: messagesFor(page.locale) })],
  ];
  for (const [step, render] of confirmations) {
    app.get(
      `${PORTAL}/subscriptions/:id/${step}`,
      { schema: { hide: true, params: subscriptionParams } },
      async (request, reply) => {
        const visit = await visitOf(app, deps, request);
        if (!visit) return expired(request, reply);
        const view = await subscriptionOf(reply, visit, request.params.id);
        if (!view) return reply;
        return sendPage(reply, 200, render({ ...visit, view }), brandHeaders(visit.brand));
      },
    );
  }

  app.get(
    `${PORTAL}/subscriptions/:id/plan`,
    { schema: { hide: true, params: subscriptionParams, querystring: planQuery } },
    async (request, reply) => {
      const visit = await visitOf(app, deps, request);
      if (!visit) return expired(request, reply);
      const { id } = request.params;
      const view = await subscriptionOf(reply, visit, id);
      if (!view) return reply;
      const priceId = request.query.price_id ?? '';
      const preview = await previewPlanChange(visit.em, view.subscription, priceId, new Date());
      if (!preview) return reply.redirect(portalPaths.subscription(id), 303);
      return sendPage(reply, 200, renderPlanPreviewPage({ ...visit, view, preview }), brandHeaders(visit.brand));
    },
  );
}

/** The customer's subscription `id`, or null once the 404 page is sent (another customer's is unknown too). */
async function subscriptionOf(reply: FastifyReply, visit: Visit, id: string) {
  const view = await subscriptionData(visit.em, visit.scope, id);
  if (!view) sendPage(reply, 404, renderPortalNotFound(visit.locale, visit.customer));
  return view;
}

/** The subscription's page, with a notice after a change or a refusal (then with the refusal's status). */
async function sendSubscriptionPage(
  reply: FastifyReply,
  deps: RouteDeps,
  visit: Visit,
  id: string,
  status: number,
  notice: Parameters<typeof renderSubscriptionPage>[0]['notice'],
) {
  const view = await subscriptionOf(reply, visit, id);
  if (!view) return reply;
  const [canChange, options, mandate, activation] = await Promise.all([
    customerUpdatesAllowed(visit.em, visit.scope.organizationId),
    planOptions(visit.em, view.subscription),
    mandateShown(visit, view.subscription),
    portalActivationOf(visit.em, deps.gateway, view.subscription),
  ]);
  const qrSvg = activation?.kind === 'waiting' ? await pixQrSvg(activation.qrCode) : null;
  return sendPage(
    reply,
    status,
    renderSubscriptionPage({
      ...visit,
      view,
      charges: view.charges,
      renewal: view.renewal,
      canChange,
      options,
      notice,
      mandate,
      activation,
      qrSvg,
    }),
    brandHeaders(visit.brand),
  );
}

/**
 * The mandate section: a Pix Automático subscription's mandate; a manual one's approved mandate too (it
 * switches between its periods), while its waiting one is the activation's QR code instead.
 */
async function mandateShown(visit: Visit, subscription: SubscriptionEntity) {
  if (subscription.recurrenceBilling === 'pix_automatico') return portalMandateOf(visit.em, subscription);
  const mandate = await portalMandateOf(visit.em, subscription);
  return mandate?.status === 'approved' ? mandate : null;
}

/** The form posts that change a subscription, each through the portal API's own change. */
function changeRoutes(app: RouteApp, deps: RouteDeps): void {
  const change = (
    path: string,
    done: string,
    body: z.ZodType<{ csrf?: string; price_id?: string }>,
    changeOf: (form: { price_id?: string }) => PortalSubscriptionChange | null,
  ) =>
    app.post(
      `${PORTAL}/subscriptions/:id/${path}`,
      { schema: { hide: true, params: subscriptionParams, body } },
      async (request, reply) => {
        const visit = await postVisit(app, deps, request, reply);
        if (!visit) return reply;
        const { id } = request.params;
        const wanted = changeOf(request.body ?? {});
        if (!wanted) return reply.redirect(portalPaths.subscription(id), 303);
        try {
          await changePortalSubscription(deps, visit.scope, id, wanted);
        } catch (err) {
          if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
          const t = messagesFor(visit.locale);
          const notice = { kind: 'alert' as const, title: t.forbiddenTitle, detail: refusalText(t, err) };
          return sendSubscriptionPage(reply, deps, visit, id, err.statusCode, notice);
        }
        return reply.redirect(`${portalPaths.subscription(id)}?done=${done}`, 303);
      },
    );
  change('cancel', 'canceled', csrfForm, () => ({ cancel_at_period_end: true }));
  change('uncancel', 'uncanceled', csrfForm, () => ({ cancel_at_period_end: false }));
  change('plan', 'plan', planForm, (form) => (form.price_id ? { price_id: form.price_id } : null));
}

/**
 * The card the subscription renews on: the page with the gateway's card fields (its CSP names the
 * gateway's origins), and the post of the token they minted, kept by the subscription's workflow.
 */
function cardRoutes(app: RouteApp, deps: RouteDeps): void {
  const path = `${PORTAL}/subscriptions/:id/card`;
  const sendCardPage = async (
    reply: FastifyReply,
    visit: Visit,
    id: string,
    status: number,
    notice?: Parameters<typeof renderCardPage>[0]['notice'],
  ) => {
    const view = await subscriptionOf(reply, visit, id);
    if (!view) return reply;
    const tokenizer = browserTokenizer(deps.config);
    const page = renderCardPage({ ...visit, view, tokenizer, notice });
    return sendPage(reply, status, page, { ...brandHeaders(visit.brand), gateway: tokenizer?.sources ?? null });
  };

  app.get(path, { schema: { hide: true, params: subscriptionParams } }, async (request, reply) => {
    const visit = await visitOf(app, deps, request);
    if (!visit) return expired(request, reply);
    return sendCardPage(reply, visit, request.params.id, 200);
  });

  app.post(path, { schema: { hide: true, params: subscriptionParams, body: cardForm } }, async (request, reply) => {
    const visit = await postVisit(app, deps, request, reply);
    if (!visit) return reply;
    const { id } = request.params;
    const t = messagesFor(visit.locale);
    const token = request.body?.card_token ?? '';
    // No token: the browser did not run the fields' script (no JavaScript); the page says what to do.
    if (token === '') return sendCardPage(reply, visit, id, 422, { kind: 'alert', title: t.cardNeedsScript });
    try {
      await replacePortalCard(deps, visit.scope, id, token);
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
      const notice = { kind: 'alert' as const, title: t.forbiddenTitle, detail: refusalText(t, err) };
      return sendCardPage(reply, visit, id, err.statusCode, notice);
    }
    return reply.redirect(`${portalPaths.subscription(id)}?done=card`, 303);
  });
}

/** The billing details: the form, and its post through the customer update the merchant's API makes. */
function billingRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(portalPaths.billing, { schema: { hide: true, querystring: doneQuery } }, async (request, reply) => {
    const visit = await visitOf(app, deps, request);
    if (!visit) return expired(request, reply);
    const notice = doneNotice(visit.locale, request.query.done);
    return sendPage(reply, 200, renderBillingPage({ ...visit, notice }), brandHeaders(visit.brand));
  });

  app.post(portalPaths.billing, { schema: { hide: true, body: billingForm } }, async (request, reply) => {
    const visit = await postVisit(app, deps, request, reply);
    if (!visit) return reply;
    const form = request.body ?? {};
    const t = messagesFor(visit.locale);
    const refused = (invalid: ('billing_name' | 'billing_address' | 'tax_id')[]) =>
      sendPage(
        reply,
        422,
        renderBillingPage({ ...visit, values: form, invalid, notice: { kind: 'alert', title: t.invalid } }),
        brandHeaders(visit.brand),
      );
    const update = billingUpdateOf(form);
    if ('invalid' in update) return refused(update.invalid);
    try {
      await updateCustomer(deps.orm, visit.scope.organizationId, { id: visit.scope.customerId }, update.body);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'invalid_tax_id') return refused(['tax_id']);
      throw err;
    }
    return reply.redirect(`${portalPaths.billing}?done=billing`, 303);
  });
}
