import type { SimulatedGateway } from '@billing/simulated-gateway';
import { uuidv7 } from 'uuidv7';
import type { TestApi } from './api.ts';
import { unique } from './fixtures.ts';

/** Books for reconciliation tests (decision 0076): captures at the simulator, recorded as a checkout records them. */

const sql = (api: TestApi, query: string, params: unknown[] = []): Promise<any[]> =>
  api.orm.em.getConnection().execute(query, params);

/** A sale paid by card at the simulator and recorded in our books as a checkout records one. */
export async function paidSale(api: TestApi, org: string, amount: number) {
  const [productId, priceId, customerId, transactionId, saleId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
  await sql(api, `insert into products (id, organization_id, name, created_at) values (?, ?, 'Course', now())`, [
    productId,
    org,
  ]);
  await sql(
    api,
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
     values (?, ?, ?, 'one_time', 'brl', ?, 'unspecified', now())`,
    [priceId, productId, org, amount],
  );
  await sql(
    api,
    `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
    [customerId, org, `${unique('buyer')}@example.com`],
  );
  const card = {
    number: '4111111111111111',
    holderName: 'ANA',
    expirationMonth: '12',
    expirationYear: '2035',
    cvv: '123',
  };
  const charge = await (api.gateway as SimulatedGateway).chargeCard(
    { reference: saleId, amount, currency: 'BRL', installments: 1, noFeesInstallments: true, card, capture: true },
    `test:${saleId}`,
  );
  await sql(
    api,
    `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
       installments, captured_amount, confirmed_at, created_at, updated_at)
     values (?, ?, ?, 'succeeded', 'credit', ?, 'BRL', 1, ?, now(), now(), now())`,
    [transactionId, org, charge.id, charge.amount, charge.capturedAmount],
  );
  await sql(
    api,
    `insert into sales (id, organization_id, transaction_id, customer_id, product_id, price_id, currency, subtotal_amount,
       amount, installments, payment_method, status, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, 'BRL', ?, ?, 1, 'credit_card', 'paid', now(), now())`,
    [saleId, org, transactionId, customerId, productId, priceId, amount, amount],
  );
  return { gatewayId: charge.id, transactionId };
}
