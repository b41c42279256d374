import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { CredentialCache } from './auth/credential-cache.ts';
import { fileLinks } from './file-links.ts';
import { userJwtVerifier } from './auth/user-jwt.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerErrorHandling } from './plugins/errors.ts';
import { requireHttps, tlsServerFactory } from './plugins/https.ts';
import { registerIdempotency } from './plugins/idempotency.ts';
import { MAX_PARAM_LENGTH, recordAuthRules, registerOpenApi } from './plugins/openapi.ts';
import { frameworkErrors, methodNotAllowed, rejectNulCharacters } from './plugins/protocol.ts';
import { registerRateLimit } from './plugins/rate-limit.ts';
import { lazyRequestLogger } from './plugins/request-logger.ts';
import { registerRoutes } from './routes/index.ts';
// The one import of pages/ in api/: the pages plugin is mounted in the same app, from the same origin.
import { pagesPlugin } from '../pages/plugin.ts';
import type { App, AppDeps } from './route-deps.ts';

const REDACTED = ['req.headers.authorization', 'req.headers["x-service-api-key"]', 'req.headers.cookie'];

/**
 * Plugins in layers: transport and conventions (HTTPS, errors, OpenAPI), then application
 * (auth, rate limit, idempotency), then one route module per resource group, then the pages (pages/plugin.ts).
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const { config } = deps;
  const app = Fastify({
    logger: { level: config.LOG_LEVEL, redact: REDACTED },
    bodyLimit: config.BODY_LIMIT_BYTES,
    requestIdHeader: 'x-request-id',
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    genReqId: () => crypto.randomUUID(),
    childLoggerFactory: lazyRequestLogger,
    ...(config.TLS_MODE === 'tls' && deps.tls ? { serverFactory: tlsServerFactory(deps.tls) } : {}),
    trustProxy: config.TLS_MODE === 'proxy',
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Set as the request arrives, so that every answer carries it (an error's too): the handler keeps the headers set.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerErrorHandling(app);
  requireHttps(app, config.TLS_MODE);
  // Before any route: it learns every route's methods, for the 405s.
  methodNotAllowed(app);
  rejectNulCharacters(app);
  await registerOpenApi(app, config);

  const cache = new CredentialCache(
    deps.orm,
    config.DATABASE_URL,
    {
      ttlMs: config.CREDENTIAL_CACHE_TTL_MS,
      usageFlushMs: config.CREDENTIAL_USAGE_FLUSH_MS,
      connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    },
    app.log,
  );
  await cache.start();
  app.addHook('onClose', async () => cache.close());

  registerAuth(app, {
    orm: deps.orm,
    cache,
    verifyUserJwt: userJwtVerifier(config),
    deploymentEnv: config.DEPLOYMENT_ENV,
  });
  // The document reads each route's credentials from the rule it hands to app.authenticate.
  recordAuthRules(app);
  await registerRateLimit(app, { config, orm: deps.orm });
  registerIdempotency(app, deps);
  const files = fileLinks(deps.config);
  await registerRoutes(app, { ...deps, cache, files });
  await app.register(pagesPlugin, { ...deps, cache, files });
  return app;
}
