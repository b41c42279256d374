import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../app.ts';
import { checkoutPageRoutes } from './checkout-pages.ts';
import { checkoutsRoutes } from './checkouts.ts';
import { checkoutLinksRoutes } from './checkout-links.ts';
import { checkoutConfirmRoutes } from './checkout-confirm.ts';
import { gatewayCallbackRoutes } from './gateway-callbacks.ts';
import { customerPortalRoutes } from './customer-portal.ts';
import { customersRoutes } from './customers.ts';
import { dashboardPageRoutes, dashboardRoutes } from './dashboard.ts';
import { discountsRoutes } from './discounts.ts';
import { eventsRoutes } from './events.ts';
import { functionsRoutes } from './functions.ts';
import { healthRoutes } from './health.ts';
import { organizationsRoutes } from './organizations.ts';
import { productsRoutes } from './products.ts';
import { sandboxRoutes } from './sandbox.ts';
import { refundsRoutes } from './refunds.ts';
import { salesRoutes } from './sales.ts';
import { subscriptionInvoicesRoutes } from './subscription-invoices.ts';
import { subscriptionsRoutes } from './subscriptions.ts';
import { transactionsRoutes } from './transactions.ts';
import { sellerConfigRoutes } from './seller-config.ts';

/** One module per resource group of the spec; each is mounted under its base path. */
export async function registerRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  await app.register(healthRoutes, deps);
  await app.register(organizationsRoutes, { ...deps, prefix: '/api/v1/organizations' });
  await app.register(dashboardRoutes, { ...deps, prefix: '/api/v1/dashboard' });
  await app.register(dashboardPageRoutes, deps);
  await app.register(productsRoutes, { ...deps, prefix: '/api/v1/products' });
  await app.register(customersRoutes, { ...deps, prefix: '/api/v1/customers' });
  await app.register(discountsRoutes, { ...deps, prefix: '/api/v1/discounts' });
  await app.register(checkoutLinksRoutes, { ...deps, prefix: '/api/v1/checkout-links' });
  await app.register(eventsRoutes, { ...deps, prefix: '/api/v1/events' });
  await app.register(customerPortalRoutes, { ...deps, prefix: '/api/v1/customer-portal' });
  await app.register(checkoutsRoutes, { ...deps, prefix: '/api/v1/checkouts' });
  await app.register(sellerConfigRoutes, { ...deps, prefix: '/api/v1/checkouts' });
  await app.register(checkoutConfirmRoutes, { ...deps, prefix: '/api/v1/checkouts' });
  await app.register(gatewayCallbackRoutes, { ...deps, prefix: '/api/v1/gateway' });
  await app.register(checkoutPageRoutes, deps);
  await app.register(salesRoutes, { ...deps, prefix: '/api/v1/sales' });
  await app.register(subscriptionsRoutes, { ...deps, prefix: '/api/v1/subscriptions' });
  await app.register(subscriptionInvoicesRoutes, { ...deps, prefix: '/api/v1/subscriptions' });
  await app.register(refundsRoutes, { ...deps, prefix: '/api/v1/refunds' });
  await app.register(sandboxRoutes, { ...deps, prefix: '/api/v1/sandbox' });
  await app.register(transactionsRoutes, { ...deps, prefix: '/api/v1/transactions' });
  await app.register(functionsRoutes, { ...deps, prefix: '/functions/v1' });
}
