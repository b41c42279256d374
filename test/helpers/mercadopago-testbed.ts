import { expect } from '@jest/globals';
import { makeCheckout } from './checkouts.ts';
import { fakeMercadoPago, paymentNotice } from './mercadopago-fake.ts';
import { mercadoPagoStack } from './mercadopago-stack.ts';

/**
 * What a Mercado Pago workflow test file starts with: the stateful fake, the API and a worker of the
 * file's own task queue on it (mercadoPagoStack), SQL on the test database, a paid card sale and the
 * signed `payment` notice as Mercado Pago posts it. `env` adds to the API's configuration.
 */
export function mercadoPagoTestbed(queue: string, webhookSecret: string, env: Record<string, string> = {}) {
  const mp = fakeMercadoPago();
  const stack = mercadoPagoStack(queue, { MERCADOPAGO_WEBHOOK_SECRET: webhookSecret, ...env });
  const sql = (q: string, params: unknown[] = []): Promise<any[]> =>
    stack.api.orm.em.getConnection().execute(q, params);

  /** A card sale of `amount` cents paid through Mercado Pago: the sale, and Mercado Pago's payment id. */
  async function paidSale(amount: number) {
    const c = await makeCheckout(stack.api.orm, stack.temporal, { amount, taskQueue: queue });
    const res = await stack.api.call('POST', `/api/v1/checkouts/client/${c.clientSecret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card_token: mp.cardToken() },
    });
    expect(res.status).toBe(200);
    const [sale] = await sql(
      `select s.id, t.gateway_transaction_id from sales s join transactions t on t.id = s.transaction_id
        where s.checkout_id = ?`,
      [c.id],
    );
    return { saleId: sale.id as string, paymentId: sale.gateway_transaction_id as string, c };
  }

  /** Mercado Pago's signed notice of the payment, as it posts it; the route takes it. */
  async function notifyPayment(paymentId: string) {
    const notice = paymentNotice(paymentId, webhookSecret);
    const res = await stack.api.call('POST', notice.path, { body: notice.body, headers: notice.headers });
    expect([res.status, res.body]).toEqual([200, { received: true }]);
  }

  return { mp, stack, sql, paidSale, notifyPayment };
}
