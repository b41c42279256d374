import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import type { GatewayMandate } from '../../contracts/pix-automatico.ts';
import { upsertMandateCharge } from '../../db/mandate/charges.ts';
import { upsertMandate } from '../../db/mandate/mandates.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { dashboardSignedIn, launchBrowser, newContext, pageChecked } from '../helpers/browser.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { approved, attempt, gatewayCharge, gatewayMandate, seedSubscription } from '../helpers/mandates.ts';

/**
 * The dashboard's Pix Automático section in Chromium (decision 0096), over rows the mandate's repository
 * wrote: the mandates at a glance, filtered by status; a mandate with its charges and each attempt's
 * reason in words, in English and in Portuguese.
 */
let api: TestApi;
let browser: Browser;
let t: Awaited<ReturnType<typeof makeTenant>>;
let activeId: string;

async function mandate(gateways: (subscriptionId: string) => GatewayMandate[]) {
  const s = await seedSubscription(api.orm, t.org.id);
  let row;
  const seen = gateways(s.subscriptionId);
  for (const gateway of seen) {
    ({ row } = await api.orm.em
      .fork()
      .transactional((tx) =>
        upsertMandate(tx, { organizationId: t.org.id, currency: 'brl', ...s, gateway }, new Date()),
      ));
  }
  return { ...s, row: row!, gateway: seen.at(-1)! };
}

beforeAll(async () => {
  api = await startApi();
  browser = await launchBrowser();
  t = await makeTenant(api.orm);
  await mandate((id) => [gatewayMandate(id, { objectLabel: 'Plano esperando' })]);
  const active = await mandate((id) => [approved(gatewayMandate(id, { objectLabel: 'Plano ativo' }))]);
  activeId = active.row.id;
  const charges = [
    gatewayCharge(active.gateway, 1, {
      status: 'completed',
      attempts: [
        attempt({ settlementDate: '2026-12-10', status: 'expired' }),
        attempt({ kind: 'retry', settlementDate: '2026-12-11', status: 'paid' }),
      ],
      paidAt: '2026-12-11T09:00:00.000Z',
    }),
    gatewayCharge(active.gateway, 2, {
      dueDate: '2027-01-10',
      attempts: [
        attempt({
          settlementDate: '2027-01-11',
          status: 'rejected',
          rejection: { code: 'AM02', description: 'Valor acima do limite' },
        }),
      ],
    }),
  ];
  for (const [i, gateway] of charges.entries()) {
    await api.orm.em.fork().transactional((tx) =>
      upsertMandateCharge(
        tx,
        {
          organizationId: t.org.id,
          mandateId: active.row.id,
          subscriptionId: active.subscriptionId,
          period: i + 1,
          settlementDate: gateway.dueDate,
          gateway,
        },
        new Date(),
      ),
    );
  }
});
afterAll(async () => {
  await browser?.close();
  await api.close();
});

const h1 = (page: Page) => page.getByRole('heading', { level: 1 }).textContent();

describe('merchant dashboard: Pix Automático', () => {
  it('lists the mandates, filters them, and shows one with its charges and why each attempt failed', async () => {
    const { context, page } = await dashboardSignedIn(browser, api.baseUrl, t.ownerJwt);
    try {
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/mandates`);
      await expect(page.getByRole('link', { name: 'Pix Automático' }).getAttribute('aria-current')).resolves.toBe(
        'page',
      );
      await expect(page.getByText('2 mandates').isVisible()).resolves.toBe(true);
      await expect(page.getByRole('row', { name: /Plano esperando/ }).textContent()).resolves.toMatch(
        /Waiting for the payer.*Ana Souza.*Monthly.*R\$49\.90/,
      );
      await pageChecked(page, 'dashboard-mandates');

      await page.getByLabel('Status').selectOption('approved');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.waitForURL(/status=approved/);
      await expect(page.getByText('1 mandate', { exact: true }).isVisible()).resolves.toBe(true);

      await page.getByRole('link', { name: 'Plano ativo' }).click();
      await page.waitForURL(new RegExp(`/mandates/${activeId}$`));
      await expect(h1(page)).resolves.toBe('Mandate Plano ativo');
      const first = page.getByRole('row').filter({ hasText: 'Paid' });
      await expect(first.textContent()).resolves.toMatch(
        /R\$49\.90.*The payer’s account had no funds on the settlement day.*12\/10\/2026: scheduled, no funds.*12\/11\/2026: retry, paid/,
      );
      const second = page.getByRole('row').filter({ hasText: 'AM02' });
      await expect(second.textContent()).resolves.toMatch(
        /Scheduled.*The amount is above the maximum the payer allows/,
      );
      await pageChecked(page, 'dashboard-mandate');
    } finally {
      await context.close();
    }
  });

  it('speaks Portuguese to a pt-BR browser, the reasons in its words', async () => {
    const context = await newContext(browser, { locale: 'pt-BR' });
    const page = await context.newPage();
    try {
      await page.goto(`${api.baseUrl}/dashboard/sign-in?token=${t.ownerJwt}`);
      await page.goto(`${api.baseUrl}/dashboard/${t.org.id}/mandates/${activeId}`);
      await expect(h1(page)).resolves.toBe('Autorização Plano ativo');
      const rows = page.getByRole('row');
      await expect(rows.filter({ hasText: 'Paga' }).first().textContent()).resolves.toMatch(
        /Sem saldo na conta do pagador no dia.*10\/12\/2026: agendada, sem saldo/,
      );
      await expect(rows.filter({ hasText: 'AM02' }).textContent()).resolves.toMatch(
        /Valor acima do limite definido pelo pagador/,
      );
      await pageChecked(page, 'dashboard-mandate-pt');
    } finally {
      await context.close();
    }
  });
});
