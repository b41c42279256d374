import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from '../app.ts';
import { customerPortalRoutes } from './customer-portal.ts';
import { customersRoutes } from './customers.ts';
import { dashboardPageRoutes, dashboardRoutes } from './dashboard.ts';
import { eventsRoutes } from './events.ts';
import { functionsRoutes } from './functions.ts';
import { healthRoutes } from './health.ts';
import { organizationsRoutes } from './organizations.ts';
import { productsRoutes } from './products.ts';

/** One module per resource group of the spec; each is mounted under its base path. */
export async function registerRoutes(app: FastifyInstance, deps: RouteDeps): Promise<void> {
  await app.register(healthRoutes, deps);
  await app.register(organizationsRoutes, { ...deps, prefix: '/api/v1/organizations' });
  await app.register(dashboardRoutes, { ...deps, prefix: '/api/v1/dashboard' });
  await app.register(dashboardPageRoutes, deps);
  await app.register(productsRoutes, { ...deps, prefix: '/api/v1/products' });
  await app.register(customersRoutes, { ...deps, prefix: '/api/v1/customers' });
  await app.register(eventsRoutes, { ...deps, prefix: '/api/v1/events' });
  await app.register(customerPortalRoutes, { ...deps, prefix: '/api/v1/customer-portal' });
  await app.register(functionsRoutes, { ...deps, prefix: '/functions/v1' });
}
