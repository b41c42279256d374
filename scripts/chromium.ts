import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Chromium: the browser tests drive it with playwright-core (nothing downloads a browser build). */
const CANDIDATES = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'];

export const chromiumPath = (): string | undefined => CANDIDATES.find((p) => existsSync(p));

/** The browser's path, installing Debian's package first when it is missing (as root, through apt-get). */
export function ensureChromium(): string {
  const found = chromiumPath();
  if (found) return found;
  const apt = (...args: string[]) =>
    execFileSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  try {
    apt('install', '-y', '--no-install-recommends', 'chromium');
  } catch {
    // Package lists may be missing on a fresh machine.
    apt('update');
    apt('install', '-y', '--no-install-recommends', 'chromium');
  }
  const installed = chromiumPath();
  if (!installed) throw new Error('Chromium is missing and `apt-get install chromium` did not install it');
  return installed;
}
