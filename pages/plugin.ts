import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../api/route-deps.ts';
import { pageAssetRoutes } from './asset-routes.ts';
import { brandRoutes } from './brand.ts';
import { checkoutPageRoutes } from './checkout/routes.ts';
import { dashboardPageRoutes } from './dashboard/routes/index.ts';
import { portalPageRoutes } from './portal/routes.ts';

/**
 * The pages (hosted checkout, customer portal, merchant dashboard) and their assets: served by the API's
 * process from the same origin, beside the REST routes, and reaching data through the same use cases.
 * The only routes whose sessions live in cookies: the cookie parser is registered in this plugin's
 * scope, so that an API call does not run it.
 */
export async function pagesPlugin(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  await app.register(cookie);
  await app.register(dashboardPageRoutes, deps);
  await app.register(checkoutPageRoutes, deps);
  await app.register(portalPageRoutes, deps);
  await app.register(pageAssetRoutes);
  await app.register(brandRoutes, deps);
}
