import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { uuidv7 } from 'uuidv7';
import { commerceCatalogues } from '../../pages/dashboard/messages-commerce.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';

/**
 * The dashboard's catalog, commerce and metrics sections as a pt-BR browser gets them (issue 34, §3):
 * Portuguese words, the API's refusals worded by code, amounts as R$ 1.083,12 and dates as dd/mm/aaaa,
 * each page checked by axe at phone and desktop size. And no text of these sections' English catalogue
 * (where it differs from the Portuguese) on any of them: a string left hard-coded in English fails here.
 */
let api: TestApi;
let temporal: Client;
let browser: Browser;
useApi((started) => ({ api, temporal } = started));

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
let t: Tenant;
let sub: Record<string, any>;

beforeAll(async () => {
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
  ({ row: sub } = await paidSubscription(api, temporal, {
    organizationId: t.org.id,
    recurrenceBilling: 'gateway',
    amount: 108_312,
  }));
  // A refused renewal try, as the subscription's workflow would have written it.
  await api.orm.em.getConnection().execute(
    `insert into subscription_charges (id, organization_id, subscription_id, period_number, try_number, amount,
       currency, outcome, decline_reason, attempted_at)
     values (?, ?, ?, 2, 1, 108312, 'brl', 'failed', 'insufficient_funds', now())`,
    [uuidv7(), t.org.id, sub.id],
  );
});
afterAll(async () => {
  await browser?.close();
});

const section = (name: string) => `${api.baseUrl}/dashboard/${t.org.id}/${name}`;

/** Today as a Brazilian writes it, dd/mm/aaaa, computed apart from the pages' own formatting. */
const today = () =>
  new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric' })
    .format(new Date())
    .replace(/[^\d/]/g, '');

async function signedIn(phone = false): Promise<{ context: BrowserContext; page: Page }> {
  const context = await newContext(browser, { locale: 'pt-BR', phone });
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
  expect(page.url()).toBe(`${api.baseUrl}/dashboard`);
  return { context, page };
}

const HOLE = '\u0000';
const flat = (value: unknown): string =>
  Array.isArray(value) ? value.map(flat).join('') : typeof value === 'string' ? value : '';
const trimmed = (text: string) => text.replace(/^[\s,.:;()?·–-]+|[\s,.:;()?·–-]+$/g, '');

/**
 * Every English text of the sections' catalogues that differs from its Portuguese counterpart: the
 * strings, and the fixed pieces of the sentences (functions called with placeholders) that the
 * Portuguese sentence does not share.
 */
function englishOnlyTexts(): string[] {
  const found = new Set<string>();
  const walk = (en: unknown, pt: unknown) => {
    if (typeof en === 'string') {
      if (en !== pt && trimmed(en)) found.add(trimmed(en));
    } else if (typeof en === 'function') {
      const args = Array.from({ length: en.length }, () => HOLE);
      const ptText = flat((pt as (...a: unknown[]) => unknown)(...args));
      for (const piece of flat(en(...args))
        .split(HOLE)
        .map(trimmed)) {
        if (piece.length >= 3 && /\p{L}/u.test(piece) && !ptText.includes(piece)) found.add(piece);
      }
    } else if (en && typeof en === 'object') {
      for (const key of Object.keys(en)) walk((en as any)[key], (pt as any)?.[key]);
    }
  };
  commerceCatalogues.en.forEach((en, i) => walk(en, commerceCatalogues['pt-BR'][i]));
  return [...found];
}
const ENGLISH = englishOnlyTexts();

/**
 * The English texts of ENGLISH on the page, as words (not inside a longer word): its text, hidden parts
 * and options included, and the attributes a reader hears (aria-label, data-label, title, placeholder).
 */
async function englishOnPage(page: Page): Promise<string[]> {
  const text = await page.evaluate(() => {
    const body = document.body.cloneNode(true) as HTMLElement;
    body.querySelectorAll('script').forEach((e) => e.remove());
    const attributes = [...body.querySelectorAll('[aria-label], [data-label], [title], [placeholder]')].flatMap((e) =>
      ['aria-label', 'data-label', 'title', 'placeholder'].map((a) => e.getAttribute(a) ?? ''),
    );
    // Each text node on a line of its own: a cell's words never run into the next cell's.
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    const texts: string[] = [];
    while (walker.nextNode()) texts.push(walker.currentNode.textContent ?? '');
    return [document.title, ...texts, ...attributes].join('\n');
  });
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return ENGLISH.filter((en) => new RegExp(`(?<!\\p{L})${escape(en)}(?!\\p{L})`, 'u').test(text));
}

/** Screenshots, axe at phone and desktop size, and no English text of these sections. */
async function checkedInPortuguese(page: Page, name: string): Promise<void> {
  await pageChecked(page, `dashboard-pt-${name}`);
  expect(await englishOnPage(page)).toEqual([]);
}

describe('merchant dashboard in pt-BR: the catalog', () => {
  it('creates a product and a discount in Portuguese, with refusals worded in Portuguese', async () => {
    expect(ENGLISH).toEqual(expect.arrayContaining(['Create a product', 'Every month', 'Charges and retries']));
    const { context, page } = await signedIn();
    try {
      await page.goto(section('products'));
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Produtos');
      await page.getByLabel('Mostrar').selectOption('archived');
      await page.getByRole('button', { name: 'Filtrar' }).click();
      await page.waitForURL(/show=archived/);
      await expect(page.getByText('Nenhum produto aqui.').isVisible()).resolves.toBe(true);
      await checkedInPortuguese(page, 'products-empty');

      // A blank name (spaces pass the browser's `required`): the API's refusal, worded by its code, naming the field.
      await page.getByLabel('Nome', { exact: true }).fill('   ');
      await page.getByLabel('Valor (R$)').fill('1.083,12');
      await page.getByLabel('Cobrança').selectOption('recurring');
      await page.getByRole('button', { name: 'Criar produto' }).click();
      const alert = await page.getByRole('alert').textContent();
      expect(alert).toContain('Os dados não foram aceitos. Confira os campos do formulário.');
      expect(alert).toContain('Campos: name · Código: validation_error');
      await checkedInPortuguese(page, 'products-refused');

      // An amount that is not reais: the page's own check, in Portuguese.
      const name = unique('Curso de fotografia');
      await page.getByLabel('Nome', { exact: true }).fill(name);
      await page.getByLabel('Valor (R$)').fill('abc');
      await page.getByRole('button', { name: 'Criar produto' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain(
        'Valor: “abc” não é um valor em reais, como 99,90.',
      );

      await page.getByLabel('Valor (R$)').fill('1.083,12');
      await page.getByRole('button', { name: 'Criar produto' }).click();
      await page.waitForURL(/\?done=created$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Produto criado.');
      const price = page.getByRole('row', { name: /R\$\s1\.083,12/ });
      await expect(price.textContent()).resolves.toMatch(/Todo mês.*Ativo.*Padrão/);
      await expect(price.textContent()).resolves.toContain(today());
      await checkedInPortuguese(page, 'product');

      await page.getByRole('link', { name: /^Arquivar o preço R\$\s1\.083,12, todo mês$/ }).click();
      await expect(page.getByRole('heading', { name: 'Arquivar este preço?' }).isVisible()).resolves.toBe(true);
      await checkedInPortuguese(page, 'product-archive-price');
      await page.goBack();
      await page.getByRole('link', { name: 'Arquivar produto' }).click();
      await checkedInPortuguese(page, 'product-archive');

      await page.goto(section('products'));
      const listed = page.getByRole('row', { name: new RegExp(name) });
      await expect(listed.textContent()).resolves.toMatch(new RegExp(`R\\$\\s1\\.083,12, todo mês.*Ativo.*${today()}`));
      await checkedInPortuguese(page, 'products');

      await page.goto(section('discounts'));
      await page.getByLabel('Nome', { exact: true }).fill('Semana do cliente');
      await page.getByLabel('Desconto (%)').fill('dez');
      await page.getByRole('button', { name: 'Criar cupom' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('“dez” não é uma porcentagem');
      await page.getByLabel('Desconto (%)').fill('12,5');
      await page.getByRole('button', { name: 'Criar cupom' }).click();
      await page.waitForURL(/done=created$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Cupom criado.');
      const discount = page.getByRole('row', { name: /Semana do cliente/ });
      await expect(discount.textContent()).resolves.toMatch(
        new RegExp(`12,5\\s?%.*Uma vez.*0 de ilimitados.*${today()}`),
      );
      await checkedInPortuguese(page, 'discounts');
      await discount.getByRole('link', { name: 'Excluir Semana do cliente' }).click();
      await expect(page.getByRole('heading', { name: 'Excluir este cupom?' }).isVisible()).resolves.toBe(true);
      await checkedInPortuguese(page, 'discount-delete');
    } finally {
      await context.close();
    }
  }, 300_000);
});

describe('merchant dashboard in pt-BR: subscriptions, extra charges, metrics', () => {
  it('shows them in Portuguese on a phone', async () => {
    const { context, page } = await signedIn(true);
    try {
      await page.goto(section('subscriptions'));
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Assinaturas');
      const row = page.getByRole('row', { name: /R\$\s1\.083,12/ });
      await expect(row.textContent()).resolves.toMatch(new RegExp(`R\\$\\s1\\.083,12.*Ativa.*${today()}`));
      await checkedInPortuguese(page, 'subscriptions');

      await page.goto(section(`subscriptions/${sub.id}`));
      const timeline = page.getByRole('region', { name: 'Cobranças e novas tentativas' });
      await expect(timeline.getByRole('row', { name: /Recusada/ }).textContent()).resolves.toContain(
        'Saldo ou limite insuficiente. (insufficient_funds)',
      );
      await expect(page.getByText('Valor por período').isVisible()).resolves.toBe(true);
      await checkedInPortuguese(page, 'subscription');

      await page.getByLabel('Valor (R$)').fill('abc');
      await page.getByRole('button', { name: 'Criar cobrança avulsa' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toContain('Digite o valor em reais');
      await page.getByLabel('Valor (R$)').fill('25,00');
      await page.getByLabel('Descrição').fill('Instalação');
      await page.getByRole('button', { name: 'Criar cobrança avulsa' }).click();
      await page.waitForURL(/done=invoice$/);
      await expect(page.getByRole('status').first().textContent()).resolves.toContain('Cobrança avulsa criada');

      await page.getByRole('link', { name: 'Cancelar no fim do período' }).click();
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Cancelar no fim do período?');
      await checkedInPortuguese(page, 'subscription-cancel');

      await page.goto(section('invoices'));
      await expect(page.getByRole('row', { name: /Instalação/ }).textContent()).resolves.toMatch(
        /R\$\s25,00.*Pendente/,
      );
      await checkedInPortuguese(page, 'invoices');

      await page.goto(section('metrics'));
      await expect(page.getByRole('heading', { name: 'Gráficos' }).isVisible()).resolves.toBe(true);
      await expect(page.getByText(new RegExp(`\\d{2}/\\d{2}/\\d{4} a ${today()}, por dia`)).isVisible()).resolves.toBe(
        true,
      );
      await checkedInPortuguese(page, 'metrics');

      await page.goto(section(`subscriptions/${uuidv7()}`));
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Não encontrado');
      await checkedInPortuguese(page, 'subscription-not-found');
    } finally {
      await context.close();
    }
  }, 300_000);
});
