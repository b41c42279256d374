import { imageOrigins, storefrontOf } from '../../api/organization-brand.ts';
import formBody from '@fastify/formbody';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError, notFound } from '../../use-cases/errors.ts';
import {
  checkoutLinkOffer,
  chosenLinkProduct,
  requestedLinkProduct,
  linkCheckoutPayable,
  openCheckoutLink,
  openLinkCheckout,
  type CheckoutLinkEntity,
} from '../../use-cases/hosted-checkout.ts';
import { CHECKOUT_PAGE, checkoutPagePath } from '../../use-cases/checkout-pages.ts';
import { errorResponses } from '../../use-cases/schemas/common.ts';
import { publicCheckoutSchema, type CheckoutEntity } from '../../use-cases/schemas/checkouts.ts';
import { browserTokenizer } from '../../api/browser-card-tokenizer.ts';
import { confirmableByClientSecret, confirmCheckout } from '../../api/checkout-confirmation.ts';
import { keptCardOffer } from '../../api/kept-card-offers.ts';
import {
  checkoutByClientSecret,
  isClientSecret,
  organizationView,
  priceView,
  productView,
  publicCheckoutView,
} from '../../api/checkout-public.ts';
import {
  paidDestination,
  renderCheckoutPage,
  renderErrorPage,
  renderLinkPage,
  renderNotFoundPage,
  renderUnavailablePage,
  takesCard,
  challengeOf,
} from './checkout-page.ts';
import { discountPreview, paidCheckoutSale } from '../../use-cases/checkout-preview.ts';
import { discountRefusalCode } from '../../api/checkout-confirmation.ts';
import { repricedView } from '../../api/checkout-public.ts';
import { messagesFor } from './messages.ts';
import { linkRefusalText, refusalText } from './refusals.ts';
import type { FormAlert } from './payment-form.ts';
import {
  confirmationOf,
  formValues,
  lacksCardToken,
  paymentFormBody,
  type PaymentFormBody,
} from './payment-form-input.ts';
import { pickLocale, type Locale } from '../locale.ts';
import { pageErrorHandler } from '../error-page.ts';
import { sendPage, type PageHeaderOptions } from '../page-headers.ts';
import { checkoutPageVisitor, linkCookie, linkPageVisitor } from '../visitor-count.ts';
import { CHECKOUT_NOT_OPEN, CONFIRMATION_IN_PROGRESS } from '../../domain/checkout.ts';
import { offerRefusal } from '../../domain/checkout-eligibility.ts';
import type { RequestEm } from '../request-em.ts';
import type { RouteApp, RouteDeps } from '../../api/route-deps.ts';

const linkParams = z.object({ checkout_link_id: z.string().max(64) });
const pageParams = z.object({ client_secret: z.string().max(200) });

/**
 * The hosted checkout. A checkout link's URL (`{checkout_link_base}/<id>`, by default
 * `{base_url}/checkout/<id>`) shows what is sold and creates the checkout only when the buyer goes on
 * (a link preview or a crawler creates nothing); a checkout's own page (`/checkout/c/<client_secret>`)
 * takes the payment as a form post, the card as the token the gateway's script made in the browser
 * (api/browser-card-tokenizer.ts). Registered without a prefix.
 */
export const checkoutPageRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  await app.register(formBody);
  // A 429 (or any failure) of a page is a page in the buyer's language, never the API's JSON body.
  app.setErrorHandler(pageErrorHandler(renderErrorPage));
  linkRoutes(app, deps);
  checkoutRoutes(app, deps);
  previewRoute(app, deps);
};

/** The checkout link's URL: its page, and the buyer's "go on" that creates (or reuses) the checkout. */
function linkRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/checkout/:checkout_link_id',
    {
      config: { rateLimitVisitor: linkPageVisitor },
      schema: {
        tags: ['checkouts (public)'],
        summary: 'Open a checkout link',
        description:
          'With Accept: application/json a new checkout is created and returned (201, the public checkout view), ' +
          "charging the link's product that `product_id` names (the link's first without it; 422 " +
          "`product_not_in_link` for a product the link does not sell); it offers all of the link's products. " +
          'Otherwise the answer is the hosted checkout page (200, text/html), which creates no checkout until the ' +
          'buyer goes on; a browser that already has an open checkout of this link is sent back to it (303).',
        params: linkParams,
        querystring: z.object({ product_id: z.string().max(64).optional() }),
        response: {
          200: z.string().meta({ description: 'The checkout link page (text/html)' }),
          201: publicCheckoutSchema,
          303: z.null().meta({ description: "Location: the browser's open checkout of this link" }),
          ...errorResponses,
          503: errorResponses[400],
        },
      },
    },
    async (request, reply) => {
      const em = deps.orm.em.fork();
      const link = await openCheckoutLink(em, request.params.checkout_link_id);
      if (wantsJson(request.headers.accept)) {
        if (!link) throw notFound('Checkout link');
        const checkout = await openLinkCheckout(deps, link, requestedLinkProduct(link, request.query.product_id));
        reply.header('cache-control', 'no-store');
        return reply.status(201).send(await publicCheckoutView(em, checkout, deps.gateway));
      }
      const locale = pickLocale(request.headers['accept-language']);
      if (!link) return sendPage(reply, 404, renderNotFoundPage(locale));
      const reused = await reusableCheckout(deps, request, link.id);
      // A link of one product goes back to the browser's checkout; one of several lets the buyer choose again.
      if (reused && link.productIds.length === 1) {
        return reply.header('cache-control', 'no-store').redirect(checkoutPagePath(reused.secret), 303);
      }
      // A link whose product can no longer be sold says so at once, with no button to a refusal.
      const { page, headers } = await linkPage(deps, em, link, locale, reused?.productId);
      return sendPage(reply, 200, page, headers);
    },
  );

  const linkPost = { config: { rateLimitVisitor: linkPageVisitor }, schema: { hide: true, params: linkParams } };
  app.post('/checkout/:checkout_link_id', linkPost, async (request, reply) => {
    const link = await openCheckoutLink(deps.orm.em.fork(), request.params.checkout_link_id);
    if (!link) {
      return sendPage(reply, 404, renderNotFoundPage(pickLocale(request.headers['accept-language'])));
    }
    // The product the buyer chose on the link's page (a link of several products offers the choice).
    const chosen = (request.body as { product_id?: unknown } | undefined)?.product_id;
    const productId = chosenLinkProduct(link, typeof chosen === 'string' ? chosen : undefined);
    const reused = await reusableCheckout(deps, request, link.id);
    let secret = reused?.productId === productId ? reused.secret : null;
    try {
      secret ??= (await openLinkCheckout(deps, link, productId)).clientSecret;
    } catch (err) {
      if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
      const locale = pickLocale(request.headers['accept-language']);
      return sendPage(reply, err.statusCode, renderUnavailablePage(locale, linkRefusalText(messagesFor(locale), err)));
    }
    return reply
      .setCookie(linkCookie(link.id), secret, {
        path: `/checkout/${link.id}`,
        httpOnly: true,
        secure: true,
        sameSite: 'lax',
        maxAge: 24 * 60 * 60,
      })
      .redirect(checkoutPagePath(secret), 303);
  });
}

/** A checkout's own page, by client secret: the form, then the pending payment, then the receipt. */
function checkoutRoutes(app: RouteApp, deps: RouteDeps): void {
  const config = { rateLimitVisitor: checkoutPageVisitor };
  app.get(
    `${CHECKOUT_PAGE}/:client_secret`,
    { config, schema: { hide: true, params: pageParams } },
    async (request, reply) => {
      const locale = pickLocale(request.headers['accept-language']);
      const checkout = await pageCheckout(deps, request.params.client_secret);
      if (!checkout) return sendPage(reply, 404, renderNotFoundPage(locale));
      const { page, headers } = await checkoutPage(deps, checkout, { locale });
      return sendPage(reply, 200, page, headers);
    },
  );

  app.post(
    `${CHECKOUT_PAGE}/:client_secret`,
    { config, schema: { hide: true, params: pageParams, body: paymentFormBody } },
    async (request, reply) => {
      const locale = pickLocale(request.headers['accept-language']);
      const t = messagesFor(locale);
      const secret = request.params.client_secret;
      const checkout = await pageCheckout(deps, secret);
      if (!checkout) return sendPage(reply, 404, renderNotFoundPage(locale));
      const form = request.body ?? {};
      const refused = async (alert: FormAlert) => {
        const { page, headers } = await checkoutPage(deps, checkout, { locale, form, alert });
        return sendPage(reply, 422, page, headers);
      };
      // The form sent again once paid (the back button, say): the receipt, as after the first post.
      const alreadyPaid = async () => {
        const view = await publicCheckoutView(
          deps.orm.em.fork(),
          await checkoutByClientSecret(deps.orm.em.fork(), secret),
          deps.gateway,
        );
        const to =
          view.status === 'succeeded' ? paidDestination(view, checkoutPagePath(secret)) : checkoutPagePath(secret);
        return reply.redirect(to, 303);
      };
      if (checkout.status === 'succeeded') return alreadyPaid();

      if (lacksCardToken(form, deps.config.acceptsCardData))
        return refused({ title: t.cardNotSent, detail: t.cardNeedsScript });
      const { body, invalid } = confirmationOf(form, t);
      if (!body) return refused({ title: t.invalid, detail: invalid.join(', ') });
      try {
        const confirmable = await confirmableByClientSecret(deps, secret);
        // The buyer's address; the page loads no device script yet (decision 0069).
        const result = await confirmCheckout(deps, confirmable, body, { ip: request.ip, sessionId: null });
        if (result.outcome === 'declined') {
          const reason = result.checkout.decline_reason ?? 'card_declined';
          return refused({ title: t.declined, detail: `${t.declineReasons[reason] ?? ''} ${t.tryAgain}`.trim() });
        }
        if (result.outcome === 'succeeded') {
          const view = await publicCheckoutView(deps.orm.em.fork(), checkout, deps.gateway);
          return reply.redirect(paidDestination({ ...view, status: 'succeeded' }, checkoutPagePath(secret)), 303);
        }
        return reply.redirect(checkoutPagePath(secret), 303);
      } catch (err) {
        if (!(err instanceof ApiError) || err.statusCode >= 500) throw err;
        // Paid, or being paid, since the page was drawn: the page as it stands (the receipt once paid).
        if (err.code === CHECKOUT_NOT_OPEN || err.code === CONFIRMATION_IN_PROGRESS) return alreadyPaid();
        return refused({ title: t.invalid, detail: refusalText(t, err) });
      }
    },
  );
}

/**
 * The page priced again as the form stands, nothing paid or written: a discount code applied (or why
 * not, in the buyer's words) and the instalments chosen. The form's "apply" and, without JavaScript,
 * "update amounts" post here; the page's script fetches it and takes the amounts from it.
 */
function previewRoute(app: RouteApp, deps: RouteDeps): void {
  app.post(
    `${CHECKOUT_PAGE}/:client_secret/preview`,
    // Counted per checkout like its page (decision 0086): a code tried is a page load.
    {
      config: { rateLimitVisitor: checkoutPageVisitor },
      schema: { hide: true, params: pageParams, body: paymentFormBody },
    },
    async (request, reply) => {
      const locale = pickLocale(request.headers['accept-language']);
      const checkout = await pageCheckout(deps, request.params.client_secret);
      if (!checkout) return sendPage(reply, 404, renderNotFoundPage(locale));
      const form = request.body ?? {};
      const code = form.discount_code?.trim();
      const preview =
        code && checkout.status === 'open'
          ? await discountPreview(deps.orm.em.fork(), checkout, code, new Date())
          : null;
      const t = messagesFor(locale);
      const { page, headers } = await checkoutPage(deps, checkout, {
        locale,
        form,
        alert:
          preview?.ok === false
            ? { title: t.discountRefused, detail: t.refusals[discountRefusalCode(preview.reason)] ?? null }
            : undefined,
        preview: preview?.ok ? { ...preview, note: t.discountApplied(code!) } : undefined,
      });
      return sendPage(reply, preview?.ok === false ? 422 : 200, page, headers);
    },
  );
}

/**
 * The link's page: what it sells, each product at its default price (the buyer chooses among several,
 * `chosen` first checked); or why it sells nothing now.
 */
async function linkPage(
  deps: RouteDeps,
  em: RequestEm,
  link: CheckoutLinkEntity,
  locale: Locale,
  chosen?: string,
): Promise<{ page: string; headers: PageHeaderOptions }> {
  const { offers, organization } = await checkoutLinkOffer(em, link);
  const refusal = offers.map(({ product, price }) => offerRefusal(product, price, false)).find(Boolean);
  if (refusal) {
    const t = messagesFor(locale);
    return { page: renderUnavailablePage(locale, t.linkRefusals[refusal.code] ?? t.linkFallback), headers: {} };
  }
  const first = offers.find((o) => o.product.id === chosen) ?? offers[0]!;
  const storefront = await storefrontOf(em, deps.files, organization.id, first.product.id);
  const page = renderLinkPage({
    locale,
    action: `/checkout/${link.id}`,
    organization: organizationView(organization),
    product: productView(first.product),
    price: priceView(first.price),
    choices:
      offers.length > 1 ? offers.map((o) => ({ product: productView(o.product), price: priceView(o.price) })) : [],
    cancelUrl: link.cancelUrl ?? null,
    storefront,
  });
  return { page, headers: { imageSources: imageOrigins(storefront) } };
}

/** This browser's checkout of the link (its secret and product), while that checkout can still be paid. */
async function reusableCheckout(
  deps: RouteDeps,
  request: FastifyRequest,
  linkId: string,
): Promise<{ secret: string; productId: string } | null> {
  const secret = request.cookies[linkCookie(linkId)];
  if (!secret || !isClientSecret(secret)) return null;
  const productId = await linkCheckoutPayable(deps.orm.em.fork(), secret, linkId);
  return productId ? { secret, productId } : null;
}

async function pageCheckout(deps: RouteDeps, clientSecret: string): Promise<CheckoutEntity | null> {
  try {
    return await checkoutByClientSecret(deps.orm.em.fork(), clientSecret);
  } catch (err) {
    if (err instanceof ApiError && err.statusCode === 404) return null;
    throw err;
  }
}

/**
 * The checkout's page as it stands now, read afresh (a refused confirmation may have changed it), and
 * the gateway's origins its CSP names when it loads the gateway's card tokenizer.
 */
async function checkoutPage(
  deps: RouteDeps,
  checkout: CheckoutEntity,
  options: {
    locale: Locale;
    form?: PaymentFormBody;
    alert?: FormAlert;
    /** A discount code's preview (previewRoute): the page priced with it. */
    preview?: { discountAmount: number; amount: number; note: string };
  },
): Promise<{ page: string; headers: PageHeaderOptions }> {
  const em = deps.orm.em.fork();
  const current = await checkoutByClientSecret(em, checkout.clientSecret);
  const stored = await publicCheckoutView(em, current, deps.gateway);
  const view = options.preview ? repricedView(stored, options.preview) : stored;
  const tokenizer = browserTokenizer(deps.config);
  // A renewal checkout's kept card, paid with its security code typed again (decision 0078).
  const keptCard = tokenizer && current.status === 'open' ? await keptCardOffer(em, deps.gateway, current) : null;
  const storefront = await storefrontOf(em, deps.files, current.organizationId, current.productId);
  const page = await renderCheckoutPage({
    locale: options.locale,
    checkout: view,
    pagePath: checkoutPagePath(checkout.clientSecret),
    pollUrl: `/api/v1/checkouts/client/${checkout.clientSecret}`,
    now: new Date(),
    values: options.form ? formValues(options.form) : undefined,
    alert: options.alert ?? null,
    card: { tokenizer, namedFields: deps.config.acceptsCardData, keptCard },
    restartUrl: current.checkoutLinkId ? `/checkout/${current.checkoutLinkId}` : null,
    paid: view.status === 'succeeded' ? await paidCheckoutSale(em, current.id) : null,
    previewPath: `${checkoutPagePath(checkout.clientSecret)}/preview`,
    discountNote: options.preview?.note ?? null,
    storefront,
  });
  const challengeOrigin = challengeOf(view)?.origin ?? null;
  return {
    page,
    headers: {
      frameAncestors: current.embedOrigin,
      gateway: tokenizer && takesCard(view) ? tokenizer.sources : null,
      challengeOrigin,
      // Where the page's forms go: itself, the 3DS challenge's issuer, and the merchant's success_url
      // that a paid post is redirected to (a browser holds a form's redirect to form-action too).
      formAction: [challengeOrigin, originOf(view.success_url)],
      imageSources: imageOrigins(storefront),
    },
  };
}

function wantsJson(accept: string | undefined): boolean {
  return accept !== undefined && /\bapplication\/json\b/i.test(accept);
}

function originOf(url: string | null): string | null {
  return url && URL.canParse(url) ? new URL(url).origin : null;
}
