import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { checkoutPageRoutes } from './checkout-pages.ts';
import { pageAssetRoutes } from './page-assets.ts';
import { portalPageRoutes } from './portal-pages.ts';
import { checkoutsRoutes } from './checkouts.ts';
import { checkoutLinksRoutes } from './checkout-links.ts';
import { checkoutConfirmRoutes } from './checkout-confirm.ts';
import { gatewayCallbackRoutes } from './gateway-callbacks.ts';
import { mercadoPagoNotificationRoutes } from './mercadopago-notifications.ts';
import { customerPortalRoutes } from './customer-portal.ts';
import { customersRoutes } from './customers.ts';
import { dashboardRoutes } from './dashboard.ts';
import { dashboardPageRoutes } from './dashboard-pages/index.ts';
import { discountsRoutes } from './discounts.ts';
import { eventsRoutes } from './events.ts';
import { filesRoutes } from './files.ts';
import { webhookDeliveriesRoutes, webhookRedeliveryRoutes } from './webhook-deliveries.ts';
import { webhooksRoutes } from './webhooks.ts';
import { functionsRoutes } from './functions.ts';
import { metricsRoutes } from './metrics.ts';
import { healthRoutes } from './health.ts';
import { organizationsRoutes } from './organizations.ts';
import { productsRoutes } from './products.ts';
import { sandboxRoutes } from './sandbox.ts';
import { sandboxGatewayRoutes } from './sandbox-gateway.ts';
import { refundsRoutes } from './refunds.ts';
import { salesRoutes } from './sales.ts';
import { subscriptionInvoicesRoutes } from './subscription-invoices.ts';
import { subscriptionsRoutes } from './subscriptions.ts';
import { transactionsRoutes } from './transactions.ts';
import { sellerConfigRoutes } from './seller-config.ts';
import type { RouteDeps } from '../route-deps.ts';

/** One module per resource group of the spec; each is mounted under its base path. */
export async function registerRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  await app.register(healthRoutes, deps);
  await app.register(organizationsRoutes, { ...deps, prefix: '/api/v1/organizations' });
  await app.register(dashboardRoutes, { ...deps, prefix: '/api/v1/dashboard' });
  await app.register(productsRoutes, { ...deps, prefix: '/api/v1/products' });
  await app.register(customersRoutes, { ...deps, prefix: '/api/v1/customers' });
  await app.register(discountsRoutes, { ...deps, prefix: '/api/v1/discounts' });
  await app.register(checkoutLinksRoutes, { ...deps, prefix: '/api/v1/checkout-links' });
  await app.register(eventsRoutes, { ...deps, prefix: '/api/v1/events' });
  await app.register(metricsRoutes, { ...deps, prefix: '/api/v1/metrics' });
  await app.register(filesRoutes, { ...deps, prefix: '/api/v1/files' });
  await app.register(webhooksRoutes, { ...deps, prefix: '/api/v1/webhooks' });
  await app.register(webhookRedeliveryRoutes, { ...deps, prefix: '/api/v1/webhooks' });
  await app.register(webhookDeliveriesRoutes, { ...deps, prefix: '/api/v1/webhook-deliveries' });
  await app.register(customerPortalRoutes, { ...deps, prefix: '/api/v1/customer-portal' });
  await app.register(checkoutsRoutes, { ...deps, prefix: '/api/v1/checkouts' });
  await app.register(sellerConfigRoutes, { ...deps, prefix: '/api/v1/checkouts' });
  await app.register(checkoutConfirmRoutes, { ...deps, prefix: '/api/v1/checkouts' });
  await app.register(gatewayCallbackRoutes, { ...deps, prefix: '/api/v1/gateway' });
  await app.register(mercadoPagoNotificationRoutes, { ...deps, prefix: '/api/v1/gateway' });
  await app.register(pageRoutes, deps);
  await app.register(pageAssetRoutes);
  await app.register(salesRoutes, { ...deps, prefix: '/api/v1/sales' });
  await app.register(subscriptionsRoutes, { ...deps, prefix: '/api/v1/subscriptions' });
  await app.register(subscriptionInvoicesRoutes, { ...deps, prefix: '/api/v1/subscriptions' });
  await app.register(refundsRoutes, { ...deps, prefix: '/api/v1/refunds' });
  await app.register(sandboxRoutes, { ...deps, prefix: '/api/v1/sandbox' });
  // The simulated gateway's own browser-facing API (Mercado Pago's shape), beside ours.
  await app.register(sandboxGatewayRoutes, { ...deps, prefix: '/sandbox-gateway/v1' });
  await app.register(transactionsRoutes, { ...deps, prefix: '/api/v1/transactions' });
  await app.register(functionsRoutes, { ...deps, prefix: '/functions/v1' });
}

/**
 * The pages (hosted checkout, portal, dashboard), the only routes whose sessions live in cookies: the
 * cookie parser is theirs, so that an API call does not run it.
 */
async function pageRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  await app.register(cookie);
  await app.register(dashboardPageRoutes, deps);
  await app.register(checkoutPageRoutes, deps);
  await app.register(portalPageRoutes, deps);
}
