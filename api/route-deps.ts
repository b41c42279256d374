import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Client } from '@temporalio/client';
import type { Config } from '../config/env.ts';
import type { Orm } from '../db/orm.ts';
import type { PaymentGateway } from '../gateway/port.ts';
import type { CredentialCache } from './auth/credential-cache.ts';
import type { FileLinks } from './file-links.ts';

/**
 * What the app is built from and what every route module receives: a module of its own, so that a
 * route never imports api/app.ts (which imports every route).
 */

export interface AppDeps {
  config: Config;
  orm: Orm;
  temporal: Client;
  gateway: PaymentGateway;
  /** Certificate and key when the app terminates TLS itself (TLS_MODE=tls). */
  tls?: { key: Buffer; cert: Buffer };
}

export type App = FastifyInstance;

/** What every route module receives besides the Fastify instance. */
export interface RouteDeps extends AppDeps {
  cache: CredentialCache;
  /** The file storage and its download URLs, shared by the files routes and the pages that show images. */
  files: FileLinks;
}

/**
 * The Fastify instance a route module's plugin receives, typed by its Zod schemas: what the plugin's
 * registration steps take, so that a resource group registers its routes a few at a time.
 */
export type RouteApp = Parameters<FastifyPluginAsyncZod<RouteDeps>>[0];
