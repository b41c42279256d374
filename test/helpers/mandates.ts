import { uuidv7 } from 'uuidv7';
import type { GatewayMandate, GatewayMandateAttempt, GatewayMandateCharge } from '../../contracts/pix-automatico.ts';
import type { Orm } from '../../db/orm.ts';
import { unique } from './fixtures.ts';

/** Records of Pix Automático's mandates for the repository's and the API's tests (decision 0096). */

/** A customer, a monthly product and a subscription of organization `organizationId`, written as rows. */
export async function seedSubscription(orm: Orm, organizationId: string) {
  const sql = (query: string, params: unknown[]) => orm.em.getConnection().execute(query, params);
  const ids = { customer: uuidv7(), product: uuidv7(), price: uuidv7(), subscription: uuidv7() };
  await sql(
    `insert into customers (id, organization_id, email, created_at, updated_at) values (?, ?, ?, now(), now())`,
    [ids.customer, organizationId, `${unique('payer')}@example.com`],
  );
  await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, ?, now())`, [
    ids.product,
    organizationId,
    unique('plan'),
  ]);
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, interval, created_at)
     values (?, ?, ?, 'recurring', 'brl', 4990, 'month', now())`,
    [ids.price, ids.product, organizationId],
  );
  await sql(
    `insert into subscriptions (id, organization_id, customer_id, product_id, price_id, status, recurrence_billing,
       amount, subtotal_amount, currency, current_period_start, current_period_end, created_at, workflow_id, billing_anchor)
     values (?, ?, ?, ?, ?, 'active', 'manual', 4990, 4990, 'brl', now(), now() + interval '1 month', now(), ?, now())`,
    [ids.subscription, organizationId, ids.customer, ids.product, ids.price, `subscription:${ids.subscription}`],
  );
  return { subscriptionId: ids.subscription, customerId: ids.customer };
}

/** A 29-character id, as the BCB's idRec and the gateway's ids are. */
const gatewayId = (prefix: string) => `${prefix}${uuidv7().replaceAll('-', '')}`.slice(0, 29).padEnd(29, '0');

export function gatewayMandate(subscriptionId: string, overrides: Partial<GatewayMandate> = {}): GatewayMandate {
  return {
    id: gatewayId('RR'),
    reference: subscriptionId,
    status: 'created',
    journey: 'journey_2',
    objectLabel: 'Plano mensal',
    debtor: { name: 'Ana Souza', taxId: '12345678909' },
    startDate: '2026-12-10',
    endDate: null,
    periodicity: 'monthly',
    fixedAmount: 4990,
    minimumAmount: null,
    payerMaximum: null,
    retryPolicy: 'three_in_seven_days',
    rejection: null,
    cancellation: null,
    history: [{ status: 'created', at: '2026-11-29T10:00:00.000Z' }],
    qrCode: '00020101021226...',
    firstPaymentId: null,
    request: null,
    ...overrides,
  };
}

/** The mandate approved: its history carries the approval. */
export const approved = (m: GatewayMandate, at = '2026-11-29T10:05:00.000Z'): GatewayMandate => ({
  ...m,
  status: 'approved',
  qrCode: null,
  history: [...m.history, { status: 'approved', at }],
});

export function attempt(overrides: Partial<GatewayMandateAttempt> = {}): GatewayMandateAttempt {
  return {
    settlementDate: '2026-12-10',
    kind: 'scheduled',
    status: 'scheduled',
    endToEndId: `E${uuidv7().replaceAll('-', '')}`.slice(0, 32),
    rejection: null,
    history: [{ status: 'scheduled', at: '2026-12-06T09:00:00.000Z' }],
    ...overrides,
  };
}

export function gatewayCharge(
  mandate: GatewayMandate,
  period: number,
  overrides: Partial<GatewayMandateCharge> = {},
): GatewayMandateCharge {
  return {
    id: gatewayId('TX'),
    mandateId: mandate.id,
    reference: `subscription:${mandate.reference}:period:${period}:mandate-charge`,
    dueDate: '2026-12-10',
    amount: 4990,
    status: 'active',
    retryPolicy: mandate.retryPolicy,
    attempts: [],
    rejection: null,
    cancellation: null,
    history: [{ status: 'created', at: '2026-12-06T09:00:00.000Z' }],
    paidAt: null,
    ...overrides,
  };
}
