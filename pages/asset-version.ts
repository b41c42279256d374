import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * Files of our dependencies served beside our own, under a name of ours: read from the installed package
 * (never copied into the repository), so they ship with the version package-lock.json pins.
 */
export const VENDOR_FILES: Record<string, string> = {
  'uplot.js': 'uplot/dist/uPlot.iife.min.js',
  'uplot.css': 'uplot/dist/uPlot.min.css',
};

/** Our assets (every .js, .css and .svg of pages/assets) and the vendor files, by the name pages ask for. */
export function readAssetFiles(): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const folder = new URL('./assets/', import.meta.url);
  for (const name of readdirSync(folder).sort()) {
    if (/\.(js|css|svg)$/.test(name)) files.set(name, readFileSync(new URL(name, folder)));
  }
  const require = createRequire(import.meta.url);
  for (const [name, file] of Object.entries(VENDOR_FILES)) files.set(name, readFileSync(require.resolve(file)));
  return files;
}

/**
 * The assets' version: a digest of their names and contents, so that any change ships under a new
 * path (a browser keeps each path for a year) without anyone having to remember to raise a number.
 */
export function assetVersionOf(files: Map<string, Buffer>): string {
  const digest = createHash('sha256');
  for (const [name, content] of files) digest.update(`${name}\0${content.length}\0`).update(content);
  return digest.digest('hex').slice(0, 12);
}
