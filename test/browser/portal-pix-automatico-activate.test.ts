import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { useApi, type TestApi } from '../helpers/api.ts';
import { waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { expectAccessibleAtBothSizes, launchBrowser, newContext, screenshot } from '../helpers/browser.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { scanQrPng } from '../helpers/qr.ts';

/**
 * The portal's "Ativar Pix Automático" in Chromium (decision 0101), on a phone and a laptop: a manual
 * subscription's customer presses the button, reads the QR code (its picture decodes to the code shown
 * to copy), the amount per period, the first charge's date and how to cancel; the payer authorizes in
 * their bank (the sandbox) and the page, polling, turns to the active mandate by itself.
 */
let api: TestApi;
let browser: Browser;
useApi((started) => ({ api } = started), { callbacksHere: true });
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);

/** A monthly R$ 39,90 subscription billed manually (its first period paid by pix); the customer's portal link. */
async function manualSubscription() {
  const tenant = await makeTenant(api.orm);
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: unique('Clube do livro'),
      prices: [{ currency: 'brl', type: 'recurring', interval: 'month', unit_amount: 3_990 }],
    },
  });
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { customer_email: 'ana@example.com', recurrence_billing: 'manual', product_id: product.body.id },
  });
  const confirmed = await api.call('POST', `/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
    body: { payment_method: 'pix', customer_name: 'Ana Souza', customer_tax_id: '529.982.247-25' },
  });
  await api.call('POST', `/api/v1/sandbox/transactions/${confirmed.body.gateway_payment_data.transaction_id}/pay`);
  const checkout = await waitForCheckoutStatus(api.orm, created.body.id, 'succeeded');
  const [s] = await sql('select id, customer_id from subscriptions where checkout_id = ?', [checkout.id]);
  const session = await api.call('POST', '/api/v1/customer-portal/sessions/', {
    token: tenant.oat,
    body: { customer_id: s.customer_id },
  });
  expect(session.status).toBe(201);
  const portalUrl = (session.body.customer_portal_url as string).replace(api.config.publicBaseUrl, api.baseUrl);
  return { tenant, id: s.id as string, portalUrl };
}

describe('Ativar Pix Automático in the customer portal', () => {
  for (const phone of [true, false]) {
    it(`shows the QR code and its terms, and turns to the active mandate once authorized (${phone ? 'phone' : 'desktop'})`, async () => {
      const s = await manualSubscription();
      const context = await newContext(browser, { phone });
      const page = await context.newPage();
      await page.goto(s.portalUrl);
      await page.goto(`${api.baseUrl}/portal/subscriptions/${s.id}`);
      await expectAccessibleAtBothSizes(page);

      await page.getByRole('button', { name: 'Ativar Pix Automático' }).click();
      const panel = page.getByTestId('mandate-activation');
      await panel.waitFor();
      expect(await page.getByRole('status').first().textContent()).toContain('Pedido do Pix Automático criado');
      expect(await panel.getByTestId('mandate-amount').textContent()).toBe('R$\u00a039,90 cobrados todo mês.');
      expect(await panel.getByTestId('mandate-first-charge').textContent()).toMatch(
        /^Primeira cobrança pelo Pix Automático em \d{2}\/\d{2}\/\d{4}\. Até lá, nada muda\.$/,
      );
      expect(await panel.textContent()).toContain('Você pode cancelar quando quiser');
      const [mandate] = await sql('select id, qr_code from mandates where subscription_id = ?', [s.id]);
      const code = page.getByLabel('Pix copia e cola');
      expect(await code.inputValue()).toBe(mandate.qr_code);
      // The picture decodes to the code offered to copy.
      const qr = panel.getByRole('img', { name: 'QR code da autorização do Pix Automático' });
      expect(await scanQrPng(await qr.screenshot())).toBe(mandate.qr_code);
      expect(await panel.getByRole('link', { name: 'Cancelar o pedido' }).count()).toBe(1);
      if (!phone) await screenshot(page, 'portal-pix-automatico-activate');
      await expectAccessibleAtBothSizes(page);

      // The payer authorizes in their bank's app: the page, polling its status, shows the mandate active.
      const authorized = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/authorize`, {
        token: s.tenant.oat,
        body: { persona: 'approves' },
      });
      expect(authorized.status).toBe(200);
      await page
        .getByTestId('mandate-status')
        .filter({ hasText: 'Autorizada: as cobranças são feitas automaticamente' })
        .waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('mandate-activation').count()).toBe(0);
      await expectAccessibleAtBothSizes(page);
      await context.close();
    }, 120_000);
  }
});
