import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '../../config/env.ts';
import type { Orm } from '../../db/orm.ts';
import { createGateway } from '../../gateway/index.ts';
import { pixExpiry } from '../../gateway/mercadopago-payments.ts';
import type { PixChargeInput } from '../../gateway/port.ts';
import { fixture, mercadoPagoGateway, mockMercadoPago } from '../helpers/mercadopago-mock.ts';

/**
 * What Mercado Pago's pages require of a pix and of the notification URL (decision 0066), offline
 * (test/helpers/mercadopago-mock.ts).
 */
const { sent, answer } = mockMercadoPago();
const NOW = new Date('2026-01-10T13:00:00.000Z');
const MINUTE = 60_000;

const pix = (overrides: Partial<PixChargeInput> = {}): PixChargeInput => ({
  reference: 'chk_pix',
  amount: 5000,
  currency: 'BRL',
  buyer: { email: 'maria@example.com' },
  expiresInSeconds: 1800,
  ...overrides,
});

describe('a pix expires between 30 minutes and 30 days after Mercado Pago receives it', () => {
  it.each([
    ['exactly 30 minutes (the most a checkout asks)', 1800, 32 * MINUTE],
    ['the last second of a checkout', 1, 32 * MINUTE],
    ['an hour', 3600, 60 * MINUTE],
    ['60 days', 60 * 24 * 3600, 30 * 24 * 60 * MINUTE - 2 * MINUTE],
  ])('asked for %s, it is sent inside the window with a margin', (_, seconds, after) => {
    expect(pixExpiry(NOW, seconds).getTime() - NOW.getTime()).toBe(after);
  });

  it('sends the expiry measured from the moment of the call, never under the floor', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-pix-pending'));
    await mercadoPagoGateway(2000, () => NOW).createPixCharge(pix({ expiresInSeconds: 1800 }), 'pix-key-1');
    const expiry = new Date(sent[0]!.body!.date_of_expiration as string).getTime();
    expect(expiry - NOW.getTime()).toBeGreaterThan(30 * MINUTE);
  });
});

describe("a pix always carries the payer's e-mail", () => {
  it('refuses, before any call, a pix without a buyer or an e-mail (not retried)', async () => {
    for (const buyer of [null, undefined]) {
      await expect(mercadoPagoGateway().createPixCharge(pix({ buyer }), 'k')).rejects.toMatchObject({
        retryable: false,
        message: expect.stringMatching(/e-mail/),
      });
    }
    expect(sent).toEqual([]);
  });

  it('sends the e-mail, and the document when known', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-pix-pending'));
    await mercadoPagoGateway().createPixCharge(
      pix({ buyer: { email: 'maria@example.com', taxId: '191.191.191-00' } }),
      'k2',
    );
    expect(sent[0]!.body!.payer).toEqual({
      email: 'maria@example.com',
      identification: { type: 'CPF', number: '19119119100' },
    });
  });
});

describe('what the buyer is shown of a pix', () => {
  it("reads Mercado Pago's page of the pix (point_of_interaction.transaction_data.ticket_url)", async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-pix-pending'));
    const t = await mercadoPagoGateway().createPixCharge(pix(), 'k3');
    expect(t.pix?.url).toBe(
      'https://www.mercadopago.com.br/payments/5466310457/ticket?caller_id=1284876322&hash=example',
    );
  });
});

describe('the notification URL sent with each payment', () => {
  it('asks for webhooks only (source_news=webhooks): no unsigned IPN notice reaches the route', async () => {
    const config = loadConfig(
      {
        JWT_SECRET: 'x'.repeat(32),
        GATEWAY: 'mercadopago',
        MERCADOPAGO_ACCESS_TOKEN: 'TEST-123',
        MERCADOPAGO_NOTIFICATION_URL: 'https://billing.example/api/v1/gateway/mercadopago/notifications',
      },
      'worker',
    );
    answer('POST', '/v1/payments', 201, fixture('payment-pix-pending'));
    await (await createGateway(config, null as unknown as Orm)).createPixCharge(pix(), 'k4');
    expect(sent[0]!.body!.notification_url).toBe(
      'https://billing.example/api/v1/gateway/mercadopago/notifications?source_news=webhooks',
    );
  });
});
