import { expect } from '@jest/globals';
import type { Client } from '@temporalio/client';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { TestApi } from './api.ts';
import { makeCheckout } from './checkouts.ts';
import { chargebackWorkflowId } from '../../contracts/dispute.ts';
import { paymentNoticeWorkflowId } from '../../contracts/payment-notice.ts';

/**
 * Chargebacks at the simulator as the engine records them (decisions 0072, 0079), for the tests that
 * run the engine on the embedded simulator and on the standalone simulated-gateway server (over
 * GATEWAY=http): a card sale paid through the API, and what the engine's books hold of its disputes.
 */
export interface ChargebackBed {
  api: TestApi;
  temporal: Client;
  /** The simulator whose callbacks reach the API (behind the standalone server, for GATEWAY=http). */
  sim: SimulatedGateway;
  /** The task queue of the file's worker. */
  queue: string;
}

export type DisputeOutcome = 'opened' | 'won' | 'lost';

const card = { number: '4111111111111111', holder_name: 'Ana Souza', expiration_month: '12', expiration_year: '2031' };

export function chargebackBooks(bed: () => ChargebackBed) {
  const sql = (q: string, params: unknown[] = []): Promise<any[]> =>
    bed().api.orm.em.getConnection().execute(q, params);

  const confirmCard = (clientSecret: string) =>
    bed().api.call('POST', `/api/v1/checkouts/client/${clientSecret}/confirm-sdk`, {
      body: { payment_method: 'credit_card', card: { ...card, cvv: '123', installments: 1 } },
    });

  /** The callback of the chargeback's state delivered, and the run it started, finished. */
  async function recorded(chargebackId: string, status: DisputeOutcome) {
    await bed().sim.settleCallbacks();
    return bed().temporal.workflow.getHandle(chargebackWorkflowId(chargebackId, status)).result();
  }

  /** A one-time card sale paid through the API: the checkout, the sale and its gateway payment. */
  async function paidSale(amount: number) {
    const { api, temporal, queue } = bed();
    const c = await makeCheckout(api.orm, temporal, { amount, taskQueue: queue });
    const res = await confirmCard(c.clientSecret);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('succeeded');
    const [row] = await sql(
      `select s.id, t.gateway_transaction_id from sales s join transactions t on t.id = s.transaction_id
        where s.checkout_id = ?`,
      [c.id],
    );
    return { c, saleId: row.id as string, paymentId: row.gateway_transaction_id as string };
  }

  const disputesOf = (saleId: string) =>
    sql(
      'select status, amount::int, lost_amount::int, closed_at is not null as closed from disputes where sale_id = ?',
      [saleId],
    );

  /** The sale's charged-back total and its payment's status in our books. */
  const books = async (saleId: string) =>
    (
      await sql(
        `select s.charged_back_amount::int as sale_charged_back, t.status as payment_status
           from sales s join transactions t on t.id = s.transaction_id where s.id = ?`,
        [saleId],
      )
    )[0];

  const saleEvents = async (organizationId: string) =>
    (
      await sql(
        `select type from events where organization_id = ? and type like 'sale.dispute%' order by created_at, id`,
        [organizationId],
      )
    ).map((e) => e.type as string);

  /**
   * The engine's books of a sale whose only dispute (of `amount` cents) is now `status`: the
   * dispute's row, the sale's charged-back total, its payment's status, and the sale's events.
   */
  async function expectDisputeRecorded(
    sale: { saleId: string; c: { organizationId: string } },
    status: DisputeOutcome,
    amount: number,
  ) {
    const lost = status === 'lost' ? amount : 0;
    expect(await disputesOf(sale.saleId)).toEqual([{ status, amount, lost_amount: lost, closed: status !== 'opened' }]);
    const paymentStatus = status === 'opened' ? 'dispute' : status === 'lost' ? 'charged_back' : 'succeeded';
    expect(await books(sale.saleId)).toEqual({ sale_charged_back: lost, payment_status: paymentStatus });
    const events = status === 'opened' ? ['sale.disputed'] : ['sale.disputed', 'sale.dispute_closed'];
    expect(await saleEvents(sale.c.organizationId)).toEqual(events);
  }

  /** The simulator's ledger rows of a payment's disputes, as reconciliation reads them. */
  async function disputeRows(paymentId: string) {
    const window = { from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000) };
    return (await bed().sim.ledger(window))
      .filter((r) => r.gatewayId === paymentId && r.kind === 'dispute')
      .map((r) => r.amount);
  }

  /**
   * A notice of the payment while its sale is disputed (the gateway answers it `dispute` or
   * `charged_back`): the payment-notice workflow finds it sold and changes nothing of it.
   */
  async function noticeChangesNothing(paymentId: string, status: string) {
    const { temporal, queue } = bed();
    const run = await temporal.workflow.start('paymentNoticeWorkflow', {
      workflowId: paymentNoticeWorkflowId(paymentId, status),
      taskQueue: queue,
      args: [paymentId],
    });
    expect(await run.result()).toEqual({ owner: 'checkout', synced: false, refunded: 0 });
  }

  return {
    sql,
    confirmCard,
    recorded,
    paidSale,
    disputesOf,
    books,
    saleEvents,
    expectDisputeRecorded,
    disputeRows,
    noticeChangesNothing,
  };
}
