import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeTenant } from '../helpers/fixtures.ts';

/**
 * The sales and customers lists searched by the customer's e-mail or name, at a phone's and a laptop's
 * size, and their "Exportar CSV" downloads holding every matching row of every page (decision 0092).
 */
let api: TestApi;
let browser: Browser;
let t: Awaited<ReturnType<typeof makeTenant>>;

const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

/** A customer with `count` paid sales of `cents` each, a minute apart, the newest `minutesAgo` minutes ago. */
async function customerWithSales(email: string, name: string, cents: number, count = 1, minutesAgo = 0) {
  const customerId = uuidv7();
  await sql(
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, ?, now(), now())`,
    [customerId, t.org.id, email, name],
  );
  const [productId, priceId] = [uuidv7(), uuidv7()];
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Curso', now())`, [
    productId,
    t.org.id,
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, 'unspecified', now())`,
    [priceId, productId, t.org.id, cents],
  );
  await sql(
    `insert into sales (id, organization_id, customer_id, product_id, price_id, currency, subtotal_amount, amount,
       installments, payment_method, status, created_at, updated_at)
     select gen_random_uuid(), ?, ?, ?, ?, 'BRL', ?, ?, 1, 'pix', 'paid',
       now() - make_interval(mins => ? + n), now()
     from generate_series(1, ?) as n`,
    [t.org.id, customerId, productId, priceId, cents, cents, minutesAgo, count],
  );
}

beforeAll(async () => {
  api = await startApi();
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
  await customerWithSales('ana.souza@example.com', 'Souza, Ana', 108_312, 1, 0);
  // 105 sales: more than a page of the list (20) and of the API (100).
  await customerWithSales('bia@example.com', 'Beatriz Lima', 4_990, 105, 10);
  await customerWithSales('lima.x@example.com', '=HYPERLINK("http://x")', 100, 1, 500);
});
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

const section = (name: string) => `${api.baseUrl}/dashboard/${t.org.id}/${name}`;

async function signedIn(locale: string, phone: boolean): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await newContext(browser, { locale, phone });
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
  return { page, close: () => context.close() };
}

/** The file the export link downloads: its name and its text. */
async function downloaded(page: Page, link: string) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link }).click()]);
  const bytes = await readFile((await download.path())!);
  return {
    name: download.suggestedFilename(),
    bytes,
    rows: bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .split('\r\n'),
  };
}

describe('dashboard: sales searched and exported', () => {
  it.each([
    ['phone', true],
    ['desktop', false],
  ])('finds the sales of a customer by name in Portuguese and downloads them as CSV (%s)', async (size, phone) => {
    const { page, close } = await signedIn('pt-BR', phone);
    try {
      await page.goto(section('sales'));
      await page.getByLabel('Buscar por e-mail ou nome do cliente').fill('SOUZA');
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.waitForURL(/query=SOUZA/);
      const table = page.getByRole('table', { name: 'Vendas de clientes com “SOUZA”' });
      await expect(table.getByRole('row').count()).resolves.toBe(2);
      await expect(table.textContent()).resolves.toMatch(/ana\.souza@example\.com.*R\$\s1\.083,12.*Paga/);
      await pageChecked(page, `dashboard-sales-search-${size}`);

      const file = await downloaded(page, 'Exportar CSV');
      expect(file.name).toMatch(/^vendas-\d{4}-\d{2}-\d{2}\.csv$/);
      expect([...file.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(file.rows[0]).toBe(
        'id,data,cliente_email,cliente_nome,produto,moeda,valor,total_pago,forma,parcelas,situacao,reembolsado',
      );
      expect(file.rows.slice(1)).toEqual([
        expect.stringMatching(
          /^[0-9a-f-]{36},\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z,ana\.souza@example\.com,"Souza, Ana",Curso,BRL,1083\.12,1083\.12,pix,1,paid,0\.00$/,
        ),
        '',
      ]);
    } finally {
      await close();
    }
  });

  it('keeps the status filter with the search, pages through 106 sales and exports every one', async () => {
    const { page, close } = await signedIn('pt-BR', false);
    try {
      await page.goto(`${section('sales')}?status=paid`);
      await page.getByLabel('Buscar por e-mail ou nome do cliente').fill('lima');
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.waitForURL(/status=paid/);
      expect(new URL(page.url()).searchParams.get('query')).toBe('lima');
      await expect(page.getByLabel('Situação').inputValue()).resolves.toBe('paid');
      await expect(page.getByRole('navigation', { name: 'Páginas' }).textContent()).resolves.toContain('Página 1 de 6');
      const href = await page.getByRole('link', { name: 'Exportar CSV' }).getAttribute('href');
      expect(new URL(href!, page.url()).searchParams.toString()).toBe('status=paid&query=lima');

      const file = await downloaded(page, 'Exportar CSV');
      const rows = file.rows.slice(1, -1);
      expect(rows).toHaveLength(106);
      expect(new Set(rows.map((r) => r.slice(0, 36))).size).toBe(106);
      // Newest first: Beatriz's 105 sales of R$ 49,90, then the formula-like name, defused into text.
      expect(rows.slice(0, 105).every((r) => r.includes(',bia@example.com,Beatriz Lima,Curso,BRL,49.90,49.90,'))).toBe(
        true,
      );
      expect(rows[105]).toContain(`,lima.x@example.com,"'=HYPERLINK(""http://x"")",Curso,BRL,1.00,1.00,pix,`);
      const cents = rows.reduce((sum, r) => sum + Number(r.split(',').at(-6)!.replace('.', '')), 0);
      expect(cents).toBe(105 * 4_990 + 100);
    } finally {
      await close();
    }
  });

  it('answers a refused search with the API’s words on the page', async () => {
    const { page, close } = await signedIn('en-US', false);
    try {
      const answer = await page.goto(`${section('sales')}?query=${'a'.repeat(300)}`);
      expect(answer!.status()).toBe(400);
      await expect(page.getByRole('alert').textContent()).resolves.toMatch(/query/);
    } finally {
      await close();
    }
  });
});

describe('dashboard: customers searched and exported', () => {
  it.each([
    ['phone', true],
    ['desktop', false],
  ])('finds customers by e-mail or name in English and downloads them as CSV (%s)', async (size, phone) => {
    const { page, close } = await signedIn('en-US', phone);
    try {
      await page.goto(section('customers'));
      await page.getByLabel('Search by e-mail or name').fill('Lima');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/query=Lima/);
      const table = page.getByRole('table', { name: 'Customers matching “Lima”' });
      await expect(table.getByRole('row').count()).resolves.toBe(3);
      await pageChecked(page, `dashboard-customers-search-${size}`);

      const file = await downloaded(page, 'Export CSV');
      expect(file.name).toMatch(/^customers-\d{4}-\d{2}-\d{2}\.csv$/);
      expect(file.rows[0]).toBe('id,email,name,tax_id,external_id,created_at');
      expect(
        file.rows
          .slice(1, -1)
          .map((r) => r.split(',').slice(1, 3).join(','))
          .sort(),
      ).toEqual(['bia@example.com,Beatriz Lima', `lima.x@example.com,"'=HYPERLINK(""http://x"")"`]);
    } finally {
      await close();
    }
  });
});
