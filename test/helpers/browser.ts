import { expect } from '@jest/globals';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ensureChromium } from '../../scripts/chromium.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';

/**
 * Headless Debian Chromium driven by playwright-core. The flags keep it off the network it cannot
 * reach (background services, updates) and let it run as root.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh browser profile (its own cookies) that trusts the test run's self-signed certificate. */
export function newContext(
  browser: Browser,
  options: { locale?: string; phone?: boolean } = {},
): Promise<BrowserContext> {
  return browser.newContext({
    ignoreHTTPSErrors: true,
    locale: options.locale ?? 'pt-BR',
    ...(options.phone
      ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 900 } }),
  });
}

/** Screenshots are kept as the run's artifacts, one per page and state. */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-artifacts', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** The page's serious and critical accessibility violations (axe-core), as readable lines. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
}

/**
 * First contentful paint of `url` on a throttled phone: 4× slower CPU and a "fast 3G" network
 * (150 ms round trip, 1.6 Mbit/s down), as Lighthouse's mobile profile. Milliseconds.
 */
export async function firstPaintOnPhone(browser: Browser, url: string): Promise<number> {
  const context = await newContext(browser, { phone: true });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
    await page.goto(url, { waitUntil: 'load' });
    return await page.evaluate(
      `new Promise((resolve) => new PerformanceObserver((list) => {
        const paint = list.getEntries().find((e) => e.name === 'first-contentful-paint');
        if (paint) resolve(paint.startTime);
      }).observe({ type: 'paint', buffered: true }))`,
    );
  } finally {
    await context.close();
  }
}

/**
 * The two sizes every page is checked at (issue 32, §4): a buyer's phone, where a wide table runs off the
 * screen, and a laptop.
 */
export const CHECKED_SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 800 },
] as const;

/**
 * axe's serious and critical violations of the page as laid out at each of CHECKED_SIZES, each line
 * prefixed by its size; the page's own viewport is given back afterwards, so the test goes on as it was.
 * With `screenshotName`, the page at the phone's size is saved too (`<name>.phone.png`), unless that is its own.
 */
export async function violationsAtBothSizes(page: Page, screenshotName?: string): Promise<string[]> {
  const own = page.viewportSize();
  const found: string[] = [];
  try {
    for (const size of CHECKED_SIZES) {
      await page.setViewportSize({ width: size.width, height: size.height });
      // The test's own screenshot is at its own size; a phone's view of the page is saved beside it.
      const ownSize = own?.width === size.width && own.height === size.height;
      if (screenshotName && size.name === 'phone' && !ownSize) await screenshot(page, `${screenshotName}.phone`);
      const violations = await accessibilityViolations(page);
      found.push(...violations.map((v) => `${size.name} ${size.width}x${size.height}: ${v}`));
    }
  } finally {
    if (own) await page.setViewportSize(own);
  }
  return found;
}

/** No serious or critical axe violation at either of CHECKED_SIZES. */
export async function expectAccessibleAtBothSizes(page: Page, screenshotName?: string): Promise<void> {
  expect(await violationsAtBothSizes(page, screenshotName)).toEqual([]);
}

/**
 * A page's screenshots (test-artifacts/screenshots/<name>.png at the test's own size, and
 * <name>.phone.png at 390×844), then axe at both sizes: no serious or critical violation.
 */
export async function pageChecked(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  await expectAccessibleAtBothSizes(page, name);
}

/** A fresh English browser profile signed in to the dashboard by the one-click link, on the organization picker. */
export async function dashboardSignedIn(
  browser: Browser,
  baseUrl: string,
  jwt: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, { locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(`${baseUrl}/dashboard/sign-in?token=${jwt}`);
  expect(page.url()).toBe(`${baseUrl}/dashboard`);
  return { context, page };
}
