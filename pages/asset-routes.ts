import type { FastifyPluginAsync } from 'fastify';
import { readAssetFiles } from './asset-version.ts';
import { ASSET_VERSION } from './render.ts';

const TYPES = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
} as const;

/**
 * The pages' scripts, stylesheets and icon, read once at start. Their path carries their digest (render.ts),
 * so a browser keeps them for a year; a change ships under a new path.
 */
export const pageAssetRoutes: FastifyPluginAsync = async (app) => {
  const files = readAssetFiles();
  app.get<{ Params: { version: string; name: string } }>(
    '/assets/:version/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const file = request.params.version === ASSET_VERSION ? files.get(request.params.name) : undefined;
      if (!file) return reply.status(404).type('text/plain').send('Not found');
      const extension = request.params.name.split('.').pop() as keyof typeof TYPES;
      return reply
        .type(TYPES[extension])
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .send(file);
    },
  );
};
