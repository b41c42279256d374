import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { portalActivationOf } from '../../api/portal-mandates.ts';
import type { RouteDeps } from '../../api/route-deps.ts';
import { requestSubscriptionMandate } from '../../api/subscription-mandate-requests.ts';
import { mandateWorkflowId } from '../../domain/mandate-requests.ts';
import type { PaymentGateway } from '../../gateway/port.ts';
import { messagesFor } from '../../pages/portal/messages.ts';
import { refusalText } from '../../pages/portal/refusals.ts';
import { ApiError } from '../../use-cases/errors.ts';
import { csrfTokenOf, SESSION_COOKIE } from '../../pages/portal/session.ts';
import type { SimulatedGateway } from '../../packages/simulated-gateway/src/simulator.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { waitForCheckoutStatus } from '../helpers/checkouts.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The portal's "Ativar Pix Automático" (decision 0101) over HTTP: a manual subscription's customer asks
 * for a journey 2 mandate through the merchant API's own path (the domain rule, the mandate's workflow),
 * sees its QR code while it waits, withdraws it (cancelled at the gateway, SLCR, by the mandate's
 * workflow) and asks again; the payer's authorization shows the mandate active. Refusals are the domain
 * rule's, in the customer's words.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started), { callbacksHere: true });

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

/** A monthly R$ 39,90 subscription billed manually, its first period paid by pix; its customer's portal token. */
async function manualSubscription(tenant: Tenant, taxId: string | null = '529.982.247-25') {
  const product = await api.call('POST', '/api/v1/products/', {
    token: tenant.oat,
    body: {
      organization_id: tenant.org.id,
      name: 'Clube do livro',
      prices: [{ currency: 'brl', type: 'recurring', interval: 'month', unit_amount: 3_990 }],
    },
  });
  const created = await api.call('POST', '/api/v1/checkouts/', {
    token: tenant.oat,
    body: { customer_email: 'ana@example.com', recurrence_billing: 'manual', product_id: product.body.id },
  });
  expect(created.status).toBe(201);
  const buyer = taxId ? { customer_name: 'Ana Souza', customer_tax_id: taxId } : { customer_name: 'Ana Souza' };
  const confirmed = await api.call('POST', `/api/v1/checkouts/client/${created.body.client_secret}/confirm-sdk`, {
    body: { payment_method: 'pix', ...buyer },
  });
  expect(confirmed.status).toBe(200);
  await api.call('POST', `/api/v1/sandbox/transactions/${confirmed.body.gateway_payment_data.transaction_id}/pay`);
  const checkout = await waitForCheckoutStatus(api.orm, created.body.id, 'succeeded');
  const [s] = await sql('select id, customer_id from subscriptions where checkout_id = ?', [checkout.id]);
  const session = await api.call('POST', '/api/v1/customer-portal/sessions/', {
    token: tenant.oat,
    body: { customer_id: s.customer_id },
  });
  expect(session.status).toBe(201);
  return { id: s.id as string, token: session.body.token as string };
}

/** The portal's pages as the customer's browser asks them: the session cookie, the form's anti-CSRF token. */
function portal(token: string, language = 'pt-BR') {
  const headers = { cookie: `${SESSION_COOKIE}=${token}`, 'accept-language': language };
  return {
    get: (path: string) => api.call('GET', path, { headers }),
    post: (path: string, csrf: string | null = csrfTokenOf(token)) =>
      api.call('POST', path, {
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        raw: csrf === null ? '' : `csrf=${encodeURIComponent(csrf)}`,
      }),
  };
}

const mandatesOf = (subscriptionId: string) =>
  sql(
    `select id, status, journey, qr_code, gateway_mandate_id, cancelled_by, cancellation_code from mandates
     where subscription_id = ? order by created_at`,
    [subscriptionId],
  );

describe('the portal’s “Ativar Pix Automático”', () => {
  it('asks for a QR code mandate, shows it while it waits, withdraws it (SLCR) and offers it again', async () => {
    const tenant = await makeTenant(api.orm);
    const s = await manualSubscription(tenant);
    const page = portal(s.token);
    const at = `/portal/subscriptions/${s.id}`;

    const offered = await page.get(at);
    expect(offered.status).toBe(200);
    expect(offered.body).toContain('Ativar Pix Automático');
    expect(offered.body).toContain(`action="${at}/mandate"`);

    // Without the form's token nothing is asked.
    expect((await page.post(`${at}/mandate`, null)).status).toBe(403);
    expect(await mandatesOf(s.id)).toEqual([]);

    const asked = await page.post(`${at}/mandate`);
    expect(asked.status).toBe(303);
    expect(asked.headers.location).toBe(`${at}?done=mandate_requested`);
    const [waiting] = await mandatesOf(s.id);
    expect(waiting).toMatchObject({ status: 'created', journey: 'journey_2' });
    expect(waiting.qr_code).toContain(waiting.gateway_mandate_id);
    // Started as the merchant API starts it: the mandate's own workflow, running, waiting for the payer.
    const workflow = temporal.workflow.getHandle(mandateWorkflowId(waiting.id));
    expect((await workflow.describe()).status.name).toBe('RUNNING');

    const shown = await page.get(`${at}?done=mandate_requested`);
    expect(shown.body).toContain('Pedido do Pix Automático criado');
    expect(shown.body).toContain('data-testid="mandate-activation"');
    expect(shown.body).toContain(`value="${waiting.qr_code}"`);
    expect(shown.body).toContain('R$\u00a039,90 cobrados todo mês.');
    expect(shown.body).toContain('Primeira cobrança pelo Pix Automático em');
    expect(shown.body).toMatch(/<svg[^>]*>/);
    expect(shown.body).not.toContain(`action="${at}/mandate"`);
    expect((await page.get(`${at}/mandate/status`)).body).toEqual({ status: 'created' });

    // A second request while it waits: the domain rule's refusal, in the customer's words.
    const again = await page.post(`${at}/mandate`);
    expect(again.status).toBe(409);
    expect(again.body).toContain('Esta assinatura já tem um Pix Automático ativo ou aguardando a sua autorização.');
    const againEn = await portal(s.token, 'en').post(`${at}/mandate`);
    expect(againEn.body).toContain('This subscription already has a Pix Automático active or waiting');
    expect(await mandatesOf(s.id)).toHaveLength(1);

    // Withdrawn by the customer: cancelled at the gateway by the receiver, through the mandate's workflow.
    expect((await page.get(`${at}/mandate/revoke`)).body).toContain('Confirmar o cancelamento do pedido');
    const withdrawn = await page.post(`${at}/mandate/revoke`);
    expect([withdrawn.status, withdrawn.headers.location]).toEqual([303, `${at}?done=mandate_withdrawn`]);
    expect(await mandatesOf(s.id)).toEqual([
      expect.objectContaining({ status: 'cancelled', cancelled_by: 'receiver', cancellation_code: 'SLCR' }),
    ]);
    expect(await workflow.result()).toBe('cancelled');
    const atGateway = await (api.gateway as SimulatedGateway).getMandate(waiting.gateway_mandate_id);
    expect(atGateway).toMatchObject({ status: 'cancelled', cancellation: { code: 'SLCR', by: 'receiver' } });
    const [{ recurrence_billing: billing }] = await sql('select recurrence_billing from subscriptions where id = ?', [
      s.id,
    ]);
    expect(billing).toBe('manual');
    const after = await page.get(`${at}?done=mandate_withdrawn`);
    expect(after.body).toContain('Pedido do Pix Automático cancelado.');
    expect(after.body).toContain(`action="${at}/mandate"`);

    // Asked again and authorized by the payer: the page shows the mandate active.
    expect((await page.post(`${at}/mandate`)).status).toBe(303);
    const second = (await mandatesOf(s.id))[1];
    const authorized = await api.call('POST', `/api/v1/sandbox/mandates/${second.id}/authorize`, {
      token: tenant.oat,
      body: { persona: 'approves' },
    });
    expect(authorized.status).toBe(200);
    await waitFor(async () => (await page.get(`${at}/mandate/status`)).body.status === 'approved', {
      what: 'the mandate approved',
      timeoutMs: 30_000,
    });
    const active = await page.get(at);
    expect(active.body).toContain('Autorizada: as cobranças são feitas automaticamente');
    expect(active.body).not.toContain('data-testid="mandate-activation"');
    expect(active.body).not.toContain(`action="${at}/mandate"`);
    const live = await page.post(`${at}/mandate`);
    expect(live.status).toBe(409);
    expect(live.body).toContain('Esta assinatura já tem um Pix Automático ativo');
  }, 120_000);

  it('refuses a customer without a CPF, and another customer’s subscription, in their words', async () => {
    const tenant = await makeTenant(api.orm);
    const s = await manualSubscription(tenant, null);
    const refused = await portal(s.token).post(`/portal/subscriptions/${s.id}/mandate`);
    expect(refused.status).toBe(422);
    expect(refused.body).toContain('Para ativar o Pix Automático, informe o seu CPF ou CNPJ em Dados de cobrança.');
    const refusedEn = await portal(s.token, 'en').post(`/portal/subscriptions/${s.id}/mandate`);
    expect(refusedEn.body).toContain('To turn on Pix Automático, enter your CPF or CNPJ in Billing details.');
    expect(await mandatesOf(s.id)).toEqual([]);

    const other = await manualSubscription(await makeTenant(api.orm));
    const foreign = await portal(other.token).post(`/portal/subscriptions/${s.id}/mandate`);
    expect(foreign.status).toBe(404);
    expect(await mandatesOf(s.id)).toEqual([]);
  }, 120_000);

  it('a subscription billed otherwise than manually is refused, and offered no button', async () => {
    const tenant = await makeTenant(api.orm);
    const s = await manualSubscription(tenant);
    // As a subscription whose renewals the gateway charges stands (the checkout's card recurrence).
    await sql(`update subscriptions set recurrence_billing = 'gateway' where id = ?`, [s.id]);
    const page = portal(s.token);
    expect((await page.get(`/portal/subscriptions/${s.id}`)).body).not.toContain('Ativar Pix Automático');
    const refused = await page.post(`/portal/subscriptions/${s.id}/mandate`);
    expect(refused.status).toBe(409);
    expect(refused.body).toContain('Esta assinatura não pode passar para o Pix Automático');
    expect(await mandatesOf(s.id)).toEqual([]);
  }, 120_000);

  it('on a gateway without Pix Automático: no button, and the domain rule refuses it in the customer’s words', async () => {
    const tenant = await makeTenant(api.orm);
    const s = await manualSubscription(tenant);
    const [row] = await sql(
      'select id, status, recurrence_billing as "recurrenceBilling", cancel_at_period_end as "cancelAtPeriodEnd" from subscriptions where id = ?',
      [s.id],
    );
    // The same subscription on the simulator (which offers it), and on a gateway with no mandates at all.
    const noMandates = { name: 'no-pix-automatico' } as unknown as PaymentGateway;
    expect(await portalActivationOf(api.orm.em.fork(), api.gateway, row)).toEqual({ kind: 'offer' });
    expect(await portalActivationOf(api.orm.em.fork(), noMandates, row)).toBeNull();
    const customerId = (await sql('select customer_id from subscriptions where id = ?', [s.id]))[0].customer_id;
    const deps = { orm: api.orm, gateway: noMandates, config: api.config } as unknown as RouteDeps;
    const scope = { organizationId: tenant.org.id, customerId };
    const err = await requestSubscriptionMandate(deps, scope, s.id, { journey: 'qr_code', expiresInDays: 7 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).statusCode, (err as ApiError).code]).toEqual([422, 'pix_automatico_unavailable']);
    expect(refusalText(messagesFor('pt-BR'), err as ApiError)).toBe('A loja não oferece Pix Automático no momento.');
    expect(refusalText(messagesFor('en'), err as ApiError)).toBe(
      'The shop does not offer Pix Automático at the moment.',
    );
    expect(await mandatesOf(s.id)).toEqual([]);
  }, 120_000);
});
