import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { RouteDeps } from '../app.ts';

export const customerPortalRoutes: FastifyPluginAsyncZod<RouteDeps> = async (_app, _deps) => {};
