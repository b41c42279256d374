import { expect } from '@jest/globals';
import type { Page } from 'playwright-core';
import type { TestApi } from './api.ts';
import { unique } from './fixtures.ts';

/** The hosted checkout's page in a browser: a checkout to open, the card to type, the posts to watch. */

/** An open checkout of a new one-time product, by the API, and its page's path. */
export async function openCheckout(
  api: TestApi,
  oat: string,
  organizationId: string,
  options: { amount?: number; successUrl?: string } = {},
): Promise<{ id: string; clientSecret: string; path: string }> {
  const product = await api.call('POST', '/api/v1/products/', {
    token: oat,
    body: {
      organization_id: organizationId,
      name: unique('Curso de cerâmica'),
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: options.amount ?? 9_990 }],
    },
  });
  expect(product.status).toBe(201);
  const checkout = await api.call('POST', '/api/v1/checkouts/', {
    token: oat,
    body: { product_id: product.body.id, ...(options.successUrl ? { success_url: options.successUrl } : {}) },
  });
  expect(checkout.status).toBe(201);
  const clientSecret: string = checkout.body.client_secret;
  return { id: checkout.body.id, clientSecret, path: `/checkout/c/${clientSecret}` };
}

export async function fillBuyer(page: Page): Promise<void> {
  await page.getByLabel('E-mail').fill('ana@example.com');
  await page.getByLabel('Nome completo').fill('Ana Souza');
  await page.getByLabel('CPF ou CNPJ').fill('529.982.247-25');
}

/** The input inside a Secure Field's frame (the gateway's; the page's own document has none). */
export const secureInput = (page: Page, container: 'card_number_field' | 'card_expiration_field' | 'card_csc_field') =>
  page.frameLocator(`#${container} iframe`).locator('input');

/** The card, typed into the Secure Fields (number, expiry, code) and the page's holder name. */
export async function fillCard(
  page: Page,
  number: string,
  expiry: { month?: string; year?: string } = {},
): Promise<void> {
  await secureInput(page, 'card_number_field').fill(number);
  await page.getByRole('textbox', { name: 'Nome impresso no cartão' }).fill('ANA SOUZA');
  await secureInput(page, 'card_expiration_field').fill(`${expiry.month ?? '11'}/${expiry.year ?? '30'}`);
  await secureInput(page, 'card_csc_field').fill('123');
}

/** The card in the plain inputs a page without JavaScript shows where card data is accepted. */
export async function fillPlainCard(page: Page, number: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Número do cartão' }).fill(number);
  await page.getByLabel('Nome impresso no cartão').fill('ANA SOUZA');
  await page.getByRole('textbox', { name: 'Mês de validade (MM)' }).fill('11');
  await page.getByRole('textbox', { name: 'Ano de validade (AA ou AAAA)' }).fill('30');
  await page.getByRole('textbox', { name: 'Código de segurança (CVV)' }).fill('123');
}

export interface SentPost {
  url: URL;
  body: string;
  /** The body's fields, for a form post. */
  fields: Record<string, string>;
}

/** Every POST the page makes from now on (form posts and the scripts' fetches), in order. */
export function recordPosts(page: Page): SentPost[] {
  const posts: SentPost[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'POST') return;
    const body = request.postData() ?? '';
    const form = (request.headers()['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    posts.push({
      url: new URL(request.url()),
      body,
      fields: form ? Object.fromEntries(new URLSearchParams(body)) : {},
    });
  });
  return posts;
}

/** The directives of a Content-Security-Policy header, by name. */
export function cspDirectives(header: string | undefined): Record<string, string> {
  return Object.fromEntries(
    (header ?? '')
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name, ...values] = d.split(/\s+/);
        return [name!, values.join(' ')];
      }),
  );
}
