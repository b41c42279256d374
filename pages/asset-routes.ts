import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { FastifyPluginAsync } from 'fastify';
import { ASSET_VERSION } from './render.ts';

const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/**
 * Files of our dependencies served beside our own, under a name of ours: read from the installed package
 * (never copied into the repository), so they ship with the version package-lock.json pins.
 */
const VENDOR_FILES: Record<string, string> = {
  'uplot.js': 'uplot/dist/uPlot.iife.min.js',
  'uplot.css': 'uplot/dist/uPlot.min.css',
};

/** Our assets (every .js and .css of pages/assets) and the vendor files, by the name pages ask for. */
async function assetFiles(): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const folder = new URL('./assets/', import.meta.url);
  for (const name of await readdir(folder)) {
    if (/\.(js|css)$/.test(name)) files.set(name, await readFile(new URL(name, folder)));
  }
  const require = createRequire(import.meta.url);
  for (const [name, file] of Object.entries(VENDOR_FILES)) files.set(name, await readFile(require.resolve(file)));
  return files;
}

/**
 * The pages' scripts and stylesheets, read once at start. Their path carries a version (render.ts), so
 * a browser keeps them for a year; a change ships under a new version.
 */
export const pageAssetRoutes: FastifyPluginAsync = async (app) => {
  const files = await assetFiles();
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
