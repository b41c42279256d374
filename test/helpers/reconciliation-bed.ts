import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { uuidv7 } from 'uuidv7';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { createActivities } from '../../activities/index.ts';
import { reconciliationWorkflowId, type ReconciliationInput } from '../../contracts/reconciliation.ts';
import type { Orm } from '../../db/orm.ts';
import type { GatewayTransaction, PaymentGateway } from '../../gateway/port.ts';
import { reconciliationWorkflow } from '../../workflows/reconciliation.ts';
import type { testWorkers } from './test-workers.ts';

/**
 * Our books and the simulator's ledger for the reconciliation tests (decision 0073): sales paid at the
 * simulator and recorded as a checkout records them, a direct pix, a run of the workflow with its real
 * activities (and the repairs it starts, awaited), and the report it wrote, read back from the tables.
 */
export interface ReconciliationBed {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundleWithSourceMap;
  orm: Orm;
  sim: SimulatedGateway;
  workers: ReturnType<typeof testWorkers>;
}

const TASK_QUEUE = 'reconciliation-workflow-test';

export const today = () => new Date().toISOString().slice(0, 10);

export function reconciliationBed(bed: () => ReconciliationBed) {
  const sql = (query: string, params: unknown[] = []): Promise<any[]> =>
    bed().orm.em.getConnection().execute(query, params);

  /** The simulator's card charge of a sale (its reference the sale's id). */
  const simulatorCharge = (amount: number, installments: number) => (saleId: string) =>
    bed().sim.chargeCard(
      {
        reference: saleId,
        amount,
        currency: 'BRL',
        installments,
        noFeesInstallments: true,
        card: {
          number: '4111111111111111',
          holderName: 'ANA',
          expirationMonth: '12',
          expirationYear: '2035',
          cvv: '123',
        },
        capture: true,
      },
      `test:${saleId}`,
    );

  /**
   * A sale paid by card at the simulator (or by `charge`, at another gateway) and recorded in our books
   * as the checkout records one.
   */
  async function paidSale(
    organizationId: string,
    amount: number,
    installments = 1,
    charge: (saleId: string) => Promise<GatewayTransaction> = simulatorCharge(amount, installments),
  ) {
    const [productId, priceId, customerId, transactionId, saleId] = [uuidv7(), uuidv7(), uuidv7(), uuidv7(), uuidv7()];
    await sql(`insert into products (id, organization_id, name, created_at) values (?, ?, 'Course', now())`, [
      productId,
      organizationId,
    ]);
    await sql(
      `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
       values (?, ?, ?, 'one_time', 'brl', ?, 'unspecified', now())`,
      [priceId, productId, organizationId, amount],
    );
    await sql(
      `insert into customers (id, organization_id, email, name, created_at, updated_at) values (?, ?, ?, 'Ana', now(), now())`,
      [customerId, organizationId, `${uuidv7()}@example.com`],
    );
    const paid = await charge(saleId);
    await sql(
      `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
         installments, captured_amount, confirmed_at, created_at, updated_at)
       values (?, ?, ?, 'succeeded', 'credit', ?, 'BRL', ?, ?, now(), now(), now())`,
      [transactionId, organizationId, paid.id, paid.amount, installments, paid.capturedAmount],
    );
    await sql(
      `insert into sales (id, organization_id, transaction_id, customer_id, product_id, price_id, currency, subtotal_amount,
         amount, installments, payment_method, status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, 'BRL', ?, ?, ?, 'credit_card', 'paid', now(), now())`,
      [saleId, organizationId, transactionId, customerId, productId, priceId, amount, amount, installments],
    );
    return { saleId, transactionId, gatewayId: paid.id };
  }

  /**
   * A direct transaction's pix, recorded `pending` as its workflow records the gateway's answer, then
   * paid at the bank; the simulator here has no callback URL, so its notice never reaches us.
   */
  async function directPixPaidUnnoticed(organizationId: string, amount: number) {
    const transactionId = uuidv7();
    const pix = await bed().sim.createPixCharge(
      {
        reference: `direct:${transactionId}`,
        amount,
        currency: 'BRL',
        expiresInSeconds: 3_600,
        buyer: { email: 'pagador@example.com', name: 'Ana Souza', taxId: '52998224725' },
      },
      `direct:${transactionId}`,
    );
    await sql(
      `insert into transactions (id, organization_id, gateway_transaction_id, status, payment_type, amount, currency,
         installments, captured_amount, created_at, updated_at)
       values (?, ?, ?, 'pending', 'pix', ?, 'BRL', 1, 0, now(), now())`,
      [transactionId, organizationId, pix.id, amount],
    );
    await bed().sim.pay(pix.id);
    return { transactionId, gatewayId: pix.id };
  }

  /**
   * Runs the workflow to its end with the real activities (on the simulator, or `gateway`); `repairs`
   * are the child runs it starts, awaited too.
   */
  async function reconcile(input: ReconciliationInput, repairs: string[] = [], gateway: PaymentGateway = bed().sim) {
    const { env, bundle, orm, workers } = bed();
    const workflowId = reconciliationWorkflowId(input.organizationId ?? 'all', input.day ?? 'yesterday', uuidv7());
    const worker = await workers.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: bundle,
      activities: createActivities({ orm, gateway }),
    });
    const outcome = await worker.runUntil(async () => {
      const result = await env.client.workflow.execute(reconciliationWorkflow, {
        workflowId,
        taskQueue: TASK_QUEUE,
        args: [input],
      });
      for (const id of repairs) await env.client.workflow.getHandle(id).result();
      return result;
    });
    return { outcome, workflowId };
  }

  /** The report as its tables hold it, its lines in order. */
  async function report(id: string) {
    const [row] = await sql(
      `select status, ours_total::int as ours, theirs_total::int as theirs, unmatched_total::int as unmatched,
              matched_count as matched, unmatched_count as "unmatchedCount" from reconciliations where id = ?`,
      [id],
    );
    const lines = await sql(
      `select kind, gateway_id as "gatewayId", ours::int, theirs::int, difference::int, reason, repair
         from reconciliation_lines where reconciliation_id = ? order by position`,
      [id],
    );
    return { ...row, lines };
  }

  return { sql, paidSale, directPixPaidUnnoticed, reconcile, report };
}
