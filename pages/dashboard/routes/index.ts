import formBody from '@fastify/formbody';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pageErrorHandler } from '../../error-page.ts';
import { sendPage } from '../../page-headers.ts';
import { renderDashboardErrorPage } from '../error-page.ts';
import { renderOrganizationPicker } from '../organizations.ts';
import { dashboardPaths } from '../paths.ts';
import type { RouteDeps } from '../../../api/route-deps.ts';
import { accessTokenPageRoutes } from './access-tokens.ts';
import { apiKeyPageRoutes } from './api-keys.ts';
import { customerPageRoutes } from './customers.ts';
import { invoicePageRoutes } from './invoices.ts';
import { mandatePageRoutes } from './mandates.ts';
import { salePageRoutes } from './sales.ts';
import { subscriptionPageRoutes } from './subscriptions.ts';
import { eventPageRoutes } from './events.ts';
import { organizationParams } from './forms.ts';
import { memberPageRoutes } from './members.ts';
import { metricsPageRoutes } from './metrics.ts';
import { oidcRoutes } from './oidc.ts';
import { checkoutLinkPageRoutes } from './checkout-links.ts';
import { discountPageRoutes } from './discounts.ts';
import { productPageRoutes } from './product.ts';
import { productListRoutes } from './products.ts';
import { reconciliationPageRoutes } from './reconciliations.ts';
import { signInRoutes } from './sign-in.ts';
import { webhookPageRoutes } from './webhooks.ts';
import { expectOk, sectionVisit, toSignIn, userVisit } from './visit.ts';

/** The section an organization's dashboard opens on. */
const FIRST_SECTION = 'metrics';

/**
 * The merchant dashboard's pages (README.md, Pages): sign-in, the organization picker, and each
 * organization's sections. Every page reads and changes through the API's own routes, in process
 * (pages/dashboard/api-client.ts).
 */
export const dashboardPageRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  await app.register(formBody);
  // A 429 (or any failure) of a page is a page in the merchant's language, never the API's JSON body.
  app.setErrorHandler(pageErrorHandler(renderDashboardErrorPage));
  signInRoutes(app, { identityProvider: deps.config.oidc !== null });
  if (deps.config.oidc) oidcRoutes(app, deps.config.oidc);

  app.get(dashboardPaths.home, { schema: { hide: true } }, async (request, reply) => {
    const visit = await userVisit(app, request);
    if (!visit) return toSignIn(request, reply);
    const organizations = expectOk(
      await visit.api.user.GET('/api/v1/organizations', { params: { query: { limit: 100 } } }),
    );
    return sendPage(
      reply,
      200,
      renderOrganizationPicker({ ...visit, organizations: organizations.items, firstSection: FIRST_SECTION }),
    );
  });

  app.get(
    '/dashboard/:organization_id',
    { schema: { hide: true, params: organizationParams } },
    async (request, reply) => {
      const visit = await sectionVisit(app, deps, request, reply);
      if (!visit) return reply;
      return reply.redirect(dashboardPaths.section(visit.organization.id, FIRST_SECTION), 303);
    },
  );

  apiKeyPageRoutes(app, deps);
  webhookPageRoutes(app, deps);
  customerPageRoutes(app, deps);
  subscriptionPageRoutes(app, deps);
  mandatePageRoutes(app, deps);
  salePageRoutes(app, deps);
  invoicePageRoutes(app, deps);
  metricsPageRoutes(app, deps);
  eventPageRoutes(app, deps);
  reconciliationPageRoutes(app, deps);
  accessTokenPageRoutes(app, deps);
  memberPageRoutes(app, deps);
  productListRoutes(app, deps);
  productPageRoutes(app, deps);
  checkoutLinkPageRoutes(app, deps);
  discountPageRoutes(app, deps);
};
