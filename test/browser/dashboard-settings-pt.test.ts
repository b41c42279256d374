import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { settingsCatalogues } from '../../pages/dashboard/messages-settings.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { launchBrowser, newContext, pageChecked as checkedPage } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { until } from '../helpers/processes.ts';
import { paidSale } from '../helpers/reconciliation-books.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';

/**
 * The dashboard's settings sections in Portuguese for a pt-BR browser (issue 34 §3, decision 0090):
 * webhooks, events, API keys, access tokens, members and reconciliation walked in Chromium, each page
 * checked by axe at phone and desktop size; an API refusal worded by its code; dates as dd/mm/aaaa; and
 * no text of the English catalogue left on a page (a string hard-coded in English would show here).
 */
let api: TestApi;
let browser: Browser;
let t: Awaited<ReturnType<typeof makeTenant>>;
const receiver = new WebhookReceiver();
useApi((started) => ({ api } = started));
beforeAll(async () => {
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
});
afterAll(async () => {
  await browser?.close();
  await receiver.stop();
});

const pageChecked = (page: Page, name: string) => checkedPage(page, `dashboard-pt-${name}`);
/** Each walk visits many pages, each checked by axe at two sizes: more than jest's minute on a busy machine. */
const WALK_TIMEOUT = 240_000;
const DATE = /\b\d{2}\/\d{2}\/\d{4}\b/;
const section = (path: string) => `${api.baseUrl}/dashboard/${t.org.id}/${path}`;

/**
 * The English catalogue's words that its Portuguese one does not share: each string, and each fixed piece
 * of a sentence with values (a function, called with markers where its values go). A word equal to its
 * key is the API's own value, which the English page shows as it is (`test`, `active`, `refund`).
 */
function englishOnly(): string[] {
  const MARK = '\u0001';
  const pieces = (value: unknown, key = ''): string[] => {
    if (typeof value === 'string') return value === key ? [] : [value];
    if (typeof value === 'function') {
      try {
        const args = Array.from({ length: value.length }, () => MARK);
        return pieces((value as (...a: unknown[]) => unknown)(...args));
      } catch {
        return []; // A formatter that needs a real value (a date): nothing fixed to find.
      }
    }
    if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => pieces(v, k));
    return [];
  };
  const fragments = (locale: 'en' | 'pt-BR') =>
    new Set(
      pieces(settingsCatalogues(locale))
        .flatMap((s) => s.split(MARK))
        .map((s) => s.trim())
        .filter((s) => s.length > 1 && /\p{L}/u.test(s)),
    );
  const portuguese = fragments('pt-BR');
  return [...fragments('en')].filter((s) => !portuguese.has(s));
}
const ENGLISH = englishOnly();

/**
 * The page's words as a reader or a screen reader meets them (text, aria-labels, the title, options),
 * leaving out code and payloads (the API's own data).
 */
async function wordsOf(page: Page): Promise<string> {
  return page.evaluate(() => {
    const out: string[] = [document.title];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement?.closest('code, pre, script, style')) out.push(node.textContent ?? '');
    }
    for (const el of document.querySelectorAll('[aria-label], [placeholder], [title]')) {
      out.push(
        el.getAttribute('aria-label') ?? '',
        el.getAttribute('placeholder') ?? '',
        el.getAttribute('title') ?? '',
      );
    }
    return out.join('\n');
  });
}

async function expectNoEnglish(page: Page): Promise<void> {
  // Identifiers are the API's, in any language: event types, scopes, addresses (customer.created, products:read).
  const words = (await wordsOf(page)).replace(/[\w@-]+(?:[.:/][\w*@-]+)+/g, ' ');
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = ENGLISH.filter((s) =>
    new RegExp(`(?<![\\p{L}\\p{N}_])${escape(s)}(?![\\p{L}\\p{N}_])`, 'u').test(words),
  );
  expect({ url: page.url(), english: found }).toEqual({ url: page.url(), english: [] });
}

/** A checked page: its screenshots, axe at both sizes, and no English. */
async function checked(page: Page, name: string): Promise<void> {
  await expectNoEnglish(page);
  await pageChecked(page, name);
}

async function signedInPt(): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await newContext(browser, { locale: 'pt-BR' });
  const page = await context.newPage();
  await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
  expect(page.url()).toBe(`${api.baseUrl}/dashboard`);
  return { page, close: () => context.close() };
}

const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();
const status = (page: Page) => page.getByRole('status').first().textContent();

describe('merchant dashboard in Portuguese: the settings sections', () => {
  it(
    'shows webhooks in pt-BR: a refusal by its code, the secret, a delivery, edit, rotation and deletion',
    async () => {
      expect(ENGLISH).toEqual(expect.arrayContaining(['Add endpoint', 'No endpoints yet.']));
      const url = await receiver.start();
      const { page, close } = await signedInPt();
      try {
        await expect(h1(page)).resolves.toBe('Escolha uma organização');
        await checked(page, 'organizations');
        await page.getByRole('link', { name: t.org.slug, exact: true }).click();
        await page.getByRole('navigation', { name: 'Seções' }).getByRole('link', { name: 'Webhooks' }).click();
        await page.waitForURL(section('webhooks'));
        await expect(page.getByText('Nenhum endpoint ainda.').isVisible()).resolves.toBe(true);
        await checked(page, 'webhooks-empty');

        await page.getByLabel('URL', { exact: true }).fill('http://example.com/hooks');
        await page.getByLabel('product.created', { exact: true }).check();
        await page.getByRole('button', { name: 'Adicionar endpoint' }).click();
        const alert = page.getByRole('alert');
        await expect(alert.textContent()).resolves.toContain('O endereço não é válido.');
        await expect(alert.textContent()).resolves.toContain('Código: invalid_url');
        await checked(page, 'webhook-refused');

        await page.getByLabel('URL', { exact: true }).fill(url);
        await page.getByRole('button', { name: 'Adicionar endpoint' }).click();
        await page.waitForURL(/\/webhooks\/[0-9a-f-]{36}\?done=created$/);
        await expect(status(page)).resolves.toContain('Endpoint adicionado.');
        await expect(page.getByRole('heading', { name: 'Segredo de assinatura' }).isVisible()).resolves.toBe(true);
        receiver.secrets = [(await page.locator('#signing-secret').textContent())!.trim()];
        await expect(page.locator('dl').textContent()).resolves.toMatch(/Ativo[\s\S]*Criado em\s*\d{2}\/\d{2}\/\d{4}/);
        await checked(page, 'webhook-created');

        await page.getByRole('button', { name: 'Enviar um evento de teste' }).click();
        await expect(status(page)).resolves.toContain('Evento de teste enviado.');
        const delivery = page.locator('article.delivery').first();
        await until(async () => {
          await page.reload();
          return (await page.locator('article.delivery h3').allTextContents()).some((h) => h.includes('Entregue'));
        }, 30_000);
        await expect(delivery.getByRole('columnheader', { name: 'Resultado' }).isVisible()).resolves.toBe(true);
        await expect(delivery.getByRole('cell').nth(1).textContent()).resolves.toMatch(DATE);
        await checked(page, 'webhook-delivered');

        await page.getByRole('link', { name: 'Editar endpoint' }).click();
        await expect(h1(page)).resolves.toBe('Editar endpoint');
        await checked(page, 'webhook-edit');
        await page.getByRole('button', { name: 'Salvar alterações' }).click();
        await expect(status(page)).resolves.toContain('Alterações salvas.');

        await page.getByRole('link', { name: 'Trocar o segredo de assinatura' }).click();
        await expect(h1(page)).resolves.toBe('Trocar o segredo de assinatura?');
        await checked(page, 'webhook-rotate');
        await page.getByRole('button', { name: 'Trocar segredo' }).click();
        await expect(status(page)).resolves.toContain('Um novo segredo de assinatura foi criado.');

        await page.getByRole('link', { name: 'Todos os endpoints' }).click();
        await expect(page.getByRole('row', { name: new RegExp(url) }).textContent()).resolves.toContain('Ativo');
        await checked(page, 'webhooks-list');
        await page.getByRole('link', { name: `Excluir ${url}` }).click();
        await expect(h1(page)).resolves.toBe('Excluir este endpoint?');
        await checked(page, 'webhook-delete');
        await page.getByRole('button', { name: 'Excluir endpoint' }).click();
        await expect(status(page)).resolves.toContain('O endpoint foi excluído.');

        // Another organization's address: the frame's refusal in Portuguese too.
        await page.goto(`${api.baseUrl}/dashboard/00000000-0000-7000-8000-000000000000/webhooks`);
        await expect(page.getByRole('alert').textContent()).resolves.toContain('Nenhuma das suas organizações');
        await checked(page, 'organization-not-found');
      } finally {
        await close();
      }
    },
    WALK_TIMEOUT,
  );

  it(
    'creates and revokes an API key and an access token, and adds and removes a member, in pt-BR',
    async () => {
      const { page, close } = await signedInPt();
      try {
        await page.goto(section('api-keys'));
        await expect(page.getByText('Nenhuma chave revogada.').isVisible()).resolves.toBe(true);
        await page.getByLabel('Nome', { exact: true }).fill('Loja');
        await page.getByRole('button', { name: 'Criar chave' }).click();
        await expect(status(page)).resolves.toContain('Chave criada.');
        await expect(page.getByRole('heading', { name: 'Sua nova chave: Loja' }).isVisible()).resolves.toBe(true);
        const key = await page.getByRole('row', { name: /Loja/ }).getByRole('cell').allTextContents();
        expect([key[2], key[5], key[7]]).toEqual(['teste', 'Nunca', 'ativa']);
        expect(key[4]).toMatch(DATE);
        await checked(page, 'api-key-created');
        await page.getByRole('link', { name: 'Revogar Loja' }).click();
        await expect(h1(page)).resolves.toBe('Revogar esta chave?');
        await checked(page, 'api-key-revoke');
        await page.getByRole('button', { name: 'Revogar chave' }).click();
        await expect(status(page)).resolves.toContain('A chave foi revogada.');
        await checked(page, 'api-key-revoked');

        await page.goto(section('access-tokens'));
        await page.getByLabel('Comentário').fill('Servidor da loja');
        await page.getByRole('button', { name: 'Criar token' }).click();
        await expect(page.getByRole('alert').textContent()).resolves.toContain('Campos: scopes');
        await checked(page, 'access-token-refused');
        await page.getByLabel('products:read').check();
        await page.getByRole('button', { name: 'Criar token' }).click();
        await expect(status(page)).resolves.toContain('Token criado.');
        await checked(page, 'access-token-created');
        await page.getByRole('link', { name: 'Revogar Servidor da loja' }).click();
        await expect(h1(page)).resolves.toBe('Revogar este token?');
        await page.getByRole('button', { name: 'Revogar token' }).click();
        await expect(status(page)).resolves.toContain('O token foi revogado.');

        const email = `${unique('pessoa')}@example.com`.toLowerCase();
        await page.goto(section('members'));
        await page.getByLabel('E-mail').fill(email);
        await page.getByRole('button', { name: 'Adicionar membro' }).click();
        await expect(status(page)).resolves.toContain('O membro foi adicionado.');
        const member = await page
          .getByRole('row', { name: new RegExp(email) })
          .getByRole('cell')
          .allTextContents();
        expect(member[1]).toBe('Membro');
        expect(member[2]).toMatch(DATE);
        await checked(page, 'members');
        await page.getByLabel('E-mail').fill(email);
        await page.getByRole('button', { name: 'Adicionar membro' }).click();
        await expect(page.getByRole('alert').textContent()).resolves.toContain('Esta pessoa já é membro');
        await page.getByRole('link', { name: `Remover ${email}` }).click();
        await expect(h1(page)).resolves.toBe('Remover este membro?');
        await checked(page, 'member-remove');
        await page.getByRole('button', { name: 'Remover membro' }).click();
        await expect(status(page)).resolves.toContain('O membro foi removido.');
      } finally {
        await close();
      }
    },
    WALK_TIMEOUT,
  );

  it(
    'shows the event log and a reconciliation with its lines in pt-BR, days as dd/mm/aaaa',
    async () => {
      await paidSale(api, t.org.id, 5_000);
      const { page, close } = await signedInPt();
      try {
        await page.goto(section('events'));
        await expect(page.getByText(/\d+ eventos, os mais recentes primeiro/).isVisible()).resolves.toBe(true);
        await expect(page.getByRole('columnheader', { name: 'Autor' }).isVisible()).resolves.toBe(true);
        await checked(page, 'events');
        await page
          .getByRole('link', { name: /^Detalhes de / })
          .first()
          .click();
        await expect(h1(page)).resolves.toMatch(/^Evento /);
        await checked(page, 'event');

        await page.goto(section('reconciliations'));
        await expect(page.getByText('Nenhum relatório ainda.').isVisible()).resolves.toBe(true);
        await checked(page, 'reconciliations-empty');
        const today = new Date().toISOString().slice(0, 10);
        const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
        await page.getByLabel('Dia (UTC)').fill(tomorrow);
        await page.getByRole('button', { name: 'Conciliar agora' }).click();
        await expect(page.getByRole('alert').textContent()).resolves.toContain('Escolha um dia que já terminou.');
        await page.getByLabel('Dia (UTC)').fill(today);
        await page.getByRole('button', { name: 'Conciliar agora' }).click();
        await page.waitForURL(/\/reconciliations\/[0-9a-f-]{36}$/);
        const [y, m, d] = today.split('-');
        await expect(h1(page)).resolves.toBe(`Conciliação de ${d}/${m}/${y}`);
        await expect(page.getByRole('table', { name: 'Linhas do relatório' }).isVisible()).resolves.toBe(true);
        await checked(page, 'reconciliation');
        await page.getByRole('link', { name: 'Todos os relatórios' }).click();
        await expect(page.getByRole('link', { name: `${d}/${m}/${y}` }).isVisible()).resolves.toBe(true);
        await checked(page, 'reconciliations');
      } finally {
        await close();
      }
    },
    WALK_TIMEOUT,
  );
});
