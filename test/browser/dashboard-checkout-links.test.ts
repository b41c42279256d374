import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

/**
 * Checkout links of several products, editable (issue 34 §3): the merchant creates a link of two products
 * in the dashboard (pt-BR), edits its label, success URL and products through the API's PATCH (a refusal
 * worded in the page's language, the form kept), and a buyer opening the link chooses among its products.
 * What the pages do is read back from the API; every page is checked by axe at phone and desktop size.
 */
let api: TestApi;
let browser: Browser;
useApi((started) => ({ api } = started));

let t: Awaited<ReturnType<typeof makeTenant>>;
let products: { id: string; name: string }[];

async function apiProduct(name: string, unitAmount: number) {
  const created = await api.call('POST', '/api/v1/products/', {
    token: t.oat,
    body: { organization_id: t.org.id, name, prices: [{ type: 'one_time', currency: 'brl', unit_amount: unitAmount }] },
  });
  expect(created.status).toBe(201);
  return { id: created.body.id as string, name };
}

beforeAll(async () => {
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
  products = [
    await apiProduct(unique('Aula avulsa'), 4_990),
    await apiProduct(unique('Pacote de aulas'), 19_990),
    await apiProduct(unique('Mentoria'), 35_000),
  ];
});
afterAll(async () => {
  await browser?.close();
});

const links = async () => (await api.call('GET', '/api/v1/checkout-links/', { token: t.oat })).body.items as any[];
const linksPath = () => `${api.baseUrl}/dashboard/${t.org.id}/checkout-links`;

async function signedIn(locale: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await newContext(browser, { locale });
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
  return { page, close: () => context.close() };
}

describe('checkout links of several products, editable in the dashboard', () => {
  let linkId: string;
  let linkUrl: string;
  const [label, renamed] = [unique('Aulas'), unique('Aulas de verão')];

  it('creates a link of two products in Portuguese, refusing one without a product in the same words', async () => {
    const [one, two] = products;
    const { page, close } = await signedIn('pt-BR');
    try {
      await page.goto(linksPath());
      await expect(page.getByRole('heading', { level: 2, name: 'Criar um link' }).isVisible()).resolves.toBe(true);
      await page.getByLabel('Nome (opcional)').fill(label);
      await page.getByRole('button', { name: 'Criar link' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'O link não foi salvo. Marque ao menos um produto.',
      );
      await expect(page.getByLabel('Nome (opcional)').inputValue()).resolves.toBe(label);
      expect(await links()).toEqual([]);

      await page.getByRole('checkbox', { name: one!.name }).check();
      await page.getByRole('checkbox', { name: two!.name }).check();
      await page.getByLabel('URL de sucesso (opcional)').fill('https://loja.example/obrigado');
      await page.getByRole('button', { name: 'Criar link' }).click();
      await page.waitForURL(/\/checkout-links\?done=created$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Link criado.');
      const [created] = await links();
      expect(created).toEqual(
        expect.objectContaining({
          label,
          success_url: 'https://loja.example/obrigado',
          product_ids: [one!.id, two!.id],
        }),
      );
      ({ id: linkId, url: linkUrl } = created);
      const row = page.getByRole('table', { name: 'Links em uso' }).getByRole('row', { name: new RegExp(label) });
      await expect(row.textContent()).resolves.toContain(`${one!.name}, ${two!.name}`);
      // The copy button's status speaks the page's language too (dashboard.js reads it off the page).
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.baseUrl });
      await row.getByRole('button', { name: `Copiar a URL de ${label}` }).click();
      await row.locator('[role=status]', { hasText: /^Copiado$/ }).waitFor({ timeout: 5000 });
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created.url);
      await pageChecked(page, 'dashboard-checkout-link-two-products');
    } finally {
      await close();
    }
  });

  it('edits its label, success URL and products through the API, a refusal worded by its code with the form kept', async () => {
    const [one, two, three] = products;
    const { page, close } = await signedIn('pt-BR');
    try {
      await page.goto(linksPath());
      await page.getByRole('link', { name: `Editar ${label}` }).click();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Editar ${label}`);
      await expect(page.getByLabel('Nome (opcional)').inputValue()).resolves.toBe(label);
      await expect(page.getByRole('checkbox', { name: one!.name }).isChecked()).resolves.toBe(true);
      await expect(page.getByRole('checkbox', { name: two!.name }).isChecked()).resolves.toBe(true);
      await expect(page.getByRole('checkbox', { name: three!.name }).isChecked()).resolves.toBe(false);

      // The browser takes ftp:// as a URL; the API takes only http(s): its refusal in the page's words.
      await page.getByLabel('Nome (opcional)').fill(renamed);
      await page.getByLabel('URL de sucesso (opcional)').fill('ftp://loja.example/obrigado');
      await page.getByRole('checkbox', { name: two!.name }).uncheck();
      await page.getByRole('checkbox', { name: three!.name }).check();
      await page.getByRole('button', { name: 'Salvar alterações' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe(
        'O link não foi salvo. A URL de sucesso precisa ser um endereço http ou https completo.',
      );
      await expect(page.getByLabel('Nome (opcional)').inputValue()).resolves.toBe(renamed);
      await expect(page.getByRole('checkbox', { name: two!.name }).isChecked()).resolves.toBe(false);
      await expect(page.getByRole('checkbox', { name: three!.name }).isChecked()).resolves.toBe(true);
      await pageChecked(page, 'dashboard-checkout-link-edit-refused');
      expect((await links())[0]).toEqual(expect.objectContaining({ label, product_ids: [one!.id, two!.id] }));

      await page.getByLabel('URL de sucesso (opcional)').fill('https://loja.example/verao?c={CHECKOUT_ID}');
      await page.getByRole('button', { name: 'Salvar alterações' }).click();
      await page.waitForURL(/\/checkout-links\?done=saved$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Link salvo.');
      expect(await links()).toEqual([
        expect.objectContaining({
          id: linkId,
          label: renamed,
          success_url: 'https://loja.example/verao?c={CHECKOUT_ID}',
          product_ids: [one!.id, three!.id],
        }),
      ]);
    } finally {
      await close();
    }
  });

  it('speaks English on request on the edit page', async () => {
    const { page, close } = await signedIn('en-US');
    try {
      await page.goto(`${linksPath()}/${linkId}/edit`);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(`Edit ${renamed}`);
      await expect(page.getByRole('group', { name: 'Products' }).isVisible()).resolves.toBe(true);
      await expect(page.getByRole('button', { name: 'Save changes' }).isVisible()).resolves.toBe(true);
      await pageChecked(page, 'dashboard-checkout-link-edit-en');
    } finally {
      await close();
    }
  });

  it("lets a buyer on a phone choose among the link's products, and charges the chosen one", async () => {
    const [one, , three] = products;
    const context = await newContext(browser, { phone: true });
    try {
      const page = await context.newPage();
      await page.goto(linkUrl.replace(api.config.publicBaseUrl, api.baseUrl));
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Escolha o produto');
      const choice = page.getByRole('group', { name: 'Produto' });
      const first = choice.getByRole('radio', { name: new RegExp(one!.name) });
      const chosen = choice.getByRole('radio', { name: new RegExp(three!.name) });
      await expect(first.isChecked()).resolves.toBe(true);
      await expect(choice.getByRole('radio').count()).resolves.toBe(2);
      await expect(choice.textContent()).resolves.toMatch(/R\$\s350,00/);
      await pageChecked(page, 'checkout-link-product-choice');

      await chosen.check();
      await page.getByRole('button', { name: 'Continuar' }).click();
      await page.waitForURL(/\/checkout\/c\//);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(three!.name);
      const checkouts = (await api.call('GET', `/api/v1/checkouts/?product_id=${three!.id}`, { token: t.oat })).body;
      expect(checkouts.items).toEqual([expect.objectContaining({ product_id: three!.id })]);

      // Back on the link the buyer may choose again: the open checkout's product comes checked.
      await page.goto(linkUrl.replace(api.config.publicBaseUrl, api.baseUrl));
      await expect(
        page
          .getByRole('group', { name: 'Produto' })
          .getByRole('radio', { name: new RegExp(three!.name) })
          .isChecked(),
      ).resolves.toBe(true);
    } finally {
      await context.close();
    }
  });

  it('offers the choice in English on request', async () => {
    const context = await newContext(browser, { locale: 'en-US' });
    try {
      const page = await context.newPage();
      await page.goto(linkUrl.replace(api.config.publicBaseUrl, api.baseUrl));
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Choose a product');
      await expect(page.getByRole('group', { name: 'Product' }).getByRole('radio').count()).resolves.toBe(2);
      await pageChecked(page, 'checkout-link-product-choice-en');
    } finally {
      await context.close();
    }
  });
});
