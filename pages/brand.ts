import type { FastifyPluginAsync } from 'fastify';
import { organizationLogoUrl, type BrandView } from '../api/organization-brand.ts';
import type { RouteDeps } from '../api/route-deps.ts';
import { BRAND_COLOR_PATTERN, brandLogoPath, inkOn } from '../domain/branding.ts';
import { isUuid } from '../use-cases/schemas/common.ts';
import type { PageHeaderOptions } from './page-headers.ts';
import { html } from './render.ts';

/**
 * The merchant's brand on the buyer's and the customer's pages (decision 0091). The CSP allows no
 * inline style, so the colour comes as a stylesheet of its own, whose path is the colour itself: it
 * never changes, any number of organizations share it, and a browser keeps it for a year.
 */

/** The brand's stylesheet, or null for the pages' own colours. */
export const brandStylesheet = (brand: BrandView | null | undefined): string | null =>
  brand?.color ? `/brand/${brand.color.slice(1).toLowerCase()}.css` : null;

/** The merchant's logo and name, as the header of their pages shows them. */
export function BrandMark({ brand, className = 'merchant' }: { brand: BrandView; className?: string }) {
  return html`<p class=${className}>
    ${brand.logoUrl ? html`<img class="brand-logo" src=${brand.logoUrl} alt="" />` : null}
    <span>${brand.name}</span>
  </p>`;
}

/** A branded page's headers: the logo's origin in its CSP's img-src (ours on local disk, the bucket's on S3). */
export const brandHeaders = (brand: BrandView | null | undefined): PageHeaderOptions => ({
  imageSources: brand?.logoUrl ? [new URL(brand.logoUrl).origin] : [],
});

/** The product's images, shown beside its name (the heading), so their alt text is empty. */
export function ProductImages({ images }: { images: { url: string; name: string }[] }) {
  if (images.length === 0) return null;
  return html`<div class="product-images">
    ${images.map((image) => html`<img src=${image.url} alt="" loading="lazy" />`)}
  </div>`;
}

/**
 * GET /brand/<rrggbb>.css: the brand's colour and the text colour on it, as the pages' variables.
 * GET /brand/logos/<organization id>: the organization's logo now, for its buyers' mails (decision 0094),
 * whose URL must outlive any signed one: a redirect to a fresh signed URL of the file, never cached
 * for longer than that URL lives. No logo (or an unknown organization): a 404, and the mail shows the name.
 */
export const brandRoutes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  app.get<{ Params: { organization_id: string } }>(
    brandLogoPath(':organization_id'),
    { schema: { hide: true } },
    async (request, reply) => {
      const id = request.params.organization_id;
      const seconds = deps.config.FILES_URL_EXPIRY_SECONDS;
      const logo = isUuid(id) ? await organizationLogoUrl(deps.orm.em.fork(), deps.files, id, seconds) : null;
      if (!logo) return reply.status(404).header('cache-control', 'no-cache').type('text/plain').send('Not found');
      return reply.header('cache-control', `public, max-age=${String(Math.floor(seconds / 2))}`).redirect(logo, 302);
    },
  );

  app.get<{ Params: { file: string } }>('/brand/:file', { schema: { hide: true } }, async (request, reply) => {
    const color = `#${request.params.file.replace(/\.css$/, '')}`;
    if (!request.params.file.endsWith('.css') || !BRAND_COLOR_PATTERN.test(color)) {
      return reply.status(404).type('text/plain').send('Not found');
    }
    const hex = color.toLowerCase();
    return reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(`:root{--brand:${hex};--brand-ink:${inkOn(hex)}}\n`);
  });
};
