import { html } from 'htm/preact';
import type { ComponentChildren, VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Locale } from './locale.ts';
import { assetVersionOf, readAssetFiles } from './asset-version.ts';

/**
 * Server-rendered pages: preact components written with htm's tagged templates (Node runs our
 * TypeScript by stripping types, which leaves JSX out; htm builds the same elements without a build
 * step). Every interpolated value is escaped by the renderer; markup from a library (a QR code's or a
 * barcode's SVG) goes in through `trustedSvg` only.
 */
export { html };

export interface DocumentProps {
  locale: Locale;
  title: string;
  /**
   * Our scripts under /assets, by name, or a gateway's own script by its https URL (which the page's
   * CSP must then name); never an inline script.
   */
  scripts?: string[];
  /** Stylesheets under /assets beside pages.css (a page group's own, e.g. dashboard.css). */
  styles?: string[];
  /** The merchant's brand stylesheet (pages/brand.ts), after ours so that its colours win. */
  brandStyle?: string | null;
  children: ComponentChildren;
}

/** The whole document: one stylesheet and our scripts, nothing inline (the CSP forbids it). */
export function renderDocument({
  locale,
  title,
  scripts = [],
  styles = [],
  brandStyle,
  children,
}: DocumentProps): string {
  const page: VNode = html`<html lang=${locale}>
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="robots" content="noindex" />
      <title>${title}</title>
      <link rel="icon" type="image/svg+xml" href=${asset('favicon.svg')} />
      ${['pages.css', ...styles].map((name) => html`<link rel="stylesheet" href=${asset(name)} />`)}
      ${brandStyle ? html`<link rel="stylesheet" href=${brandStyle} />` : null}
      ${scripts.map((name) => html`<script src=${name.startsWith('https://') ? name : asset(name)} defer></script>`)}
    </head>
    <body>
      ${children}
    </body>
  </html>`;
  return `<!doctype html>${renderToString(page)}`;
}

/** An SVG drawn by a library from our own data (QR code, barcode): inserted as is. */
export function trustedSvg(svg: string, className: string, label: string): VNode {
  return html`<div class=${className} role="img" aria-label=${label} dangerouslySetInnerHTML=${{ __html: svg }}></div>`;
}

/** Assets are served under a path of their digest so that a browser may keep them for a long time. */
export const ASSET_VERSION = assetVersionOf(readAssetFiles());
export const asset = (name: string) => `/assets/${ASSET_VERSION}/${name}`;
