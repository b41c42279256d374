import { afterAll, beforeAll } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { startApi, type TestApi } from './api.ts';
import { launchBrowser } from './browser.ts';
import { makeTenant } from './fixtures.ts';
import { startShopSite, type ShopSite } from './shop-site.ts';

export interface HostedCheckoutBed {
  api: TestApi;
  browser: Browser;
  /** The merchant's site: success_url and embedding pages. */
  shop: ShopSite;
  tenant: Awaited<ReturnType<typeof makeTenant>>;
}

/**
 * What a hosted checkout browser test file starts with, on the simulated gateway: the API, Chromium,
 * the merchant's site and an organization with its owner's token; filled before the file's tests and
 * closed after them. `setUp` runs once the API is up (e.g. to aim the sandbox's callbacks at it),
 * `tearDown` before anything closes (e.g. to let the sandbox's callbacks settle).
 */
export function hostedCheckoutBed(
  hooks: { setUp?: (bed: HostedCheckoutBed) => void; tearDown?: (bed: HostedCheckoutBed) => Promise<unknown> } = {},
): HostedCheckoutBed {
  const bed = {} as HostedCheckoutBed;
  beforeAll(async () => {
    [bed.api, bed.browser, bed.shop] = await Promise.all([startApi(), launchBrowser(), startShopSite()]);
    hooks.setUp?.(bed);
    bed.tenant = await makeTenant(bed.api.orm);
  });
  afterAll(async () => {
    if (bed.api) await hooks.tearDown?.(bed);
    await bed.browser?.close();
    await bed.shop?.close();
    await bed.api?.close();
  });
  return bed;
}
