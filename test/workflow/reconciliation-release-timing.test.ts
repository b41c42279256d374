import { describe, expect, it } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import type { Orm } from '../../db/orm.ts';
import { makeOrganization } from '../helpers/fixtures.ts';
import { fakeMercadoPago } from '../helpers/mercadopago-fake.ts';
import { mercadoPagoGateway } from '../helpers/mercadopago-mock.ts';
import { reconciliationBed, today } from '../helpers/reconciliation-bed.ts';
import { useTimeSkipping } from '../helpers/time-skipping.ts';

/**
 * Mercado Pago's release report is dated by release (its DATE: "when the transaction affects the
 * available balance"), 14 or 30 days after a card's capture by the account's setting, while our books
 * date a payment by its capture (decision 0073). The reconciliation workflow with its real activities
 * against the Mercado Pago fake, its account releasing card money 30 days after approval: the capture's
 * day and the release's day each balance, the payment named `release_timing` on both, never missing at
 * the gateway nor missing in our books (whose repair would start a notice for a payment we hold).
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;
let orm: Orm;
let sim: SimulatedGateway;

const fake = fakeMercadoPago();
const workers = useTimeSkipping('index.ts', (started) => ({ env, bundle, orm, sim } = started));
const { sql, paidSale, reconcile, report } = reconciliationBed(() => ({ env, bundle, orm, sim, workers }));

const DAY_MS = 86_400_000;
const dayAfter = (days: number) => new Date(Date.parse(today()) + days * DAY_MS).toISOString().slice(0, 10);

describe('reconciliation of a payment released 30 days after its capture (Mercado Pago)', () => {
  it('balances the capture’s day and the release’s day, the payment’s timing named on each', async () => {
    fake.releaseReports.releaseDelayMs = 30 * DAY_MS;
    const gateway = mercadoPagoGateway();
    const org = await makeOrganization(orm);
    const sale = await paidSale(org.id, 10_000, 1, (saleId) =>
      gateway.chargeCard(fake.cardCharge(saleId, 10_000), `${saleId}:charge`),
    );
    const releaseDay = new Date(Date.parse(fake.releaseReports.releaseDateOf(fake.payments.get(sale.gatewayId)!)!))
      .toISOString()
      .slice(0, 10);
    expect(releaseDay).toBe(dayAfter(30));

    // The capture's day: the ledger has nothing of it, and the gateway says it releases it later.
    const captured = await reconcile({ organizationId: org.id, day: today() }, [], gateway);
    const first = await report(captured.outcome.reports[0]!.id);
    expect(first.lines).toEqual([
      {
        kind: 'payment',
        gatewayId: sale.gatewayId,
        ours: 10_000,
        theirs: 0,
        difference: 10_000,
        reason: 'release_timing',
        repair: null,
      },
    ]);
    expect(captured.outcome.reports[0]).toMatchObject({ status: 'balanced', repairsStarted: 0 });

    // The release's day: the ledger releases a payment our books captured 30 days before, less its fee.
    const released = await reconcile({ organizationId: org.id, day: releaseDay }, [], gateway);
    const second = await report(released.outcome.reports[0]!.id);
    expect(second.lines).toEqual([
      {
        kind: 'payment',
        gatewayId: sale.gatewayId,
        ours: 0,
        theirs: 10_000,
        difference: -10_000,
        reason: 'release_timing',
        repair: null,
      },
      // The fake account's 4.99 % of R$ 100,00, taken at release.
      { kind: 'fee', gatewayId: sale.gatewayId, ours: 0, theirs: -499, difference: 499, reason: 'fee', repair: null },
    ]);
    expect(released.outcome.reports[0]).toMatchObject({ status: 'balanced', repairsStarted: 0 });
    // Across both days, what was captured was released: the two timing lines cancel to the cent.
    expect(first.lines[0].difference + second.lines[0].difference).toBe(0);
  });

  it('still calls a capture the gateway never released, nor means to, missing at the gateway', async () => {
    fake.releaseReports.releaseDelayMs = 0;
    const gateway = mercadoPagoGateway();
    const org = await makeOrganization(orm);
    // A capture our books hold under an id Mercado Pago does not know (a record gone wrong).
    const sale = await paidSale(org.id, 4_200);
    await sql(`update transactions set gateway_transaction_id = '9999999999' where id = ?`, [sale.transactionId]);
    const { outcome } = await reconcile({ organizationId: org.id, day: today() }, [], gateway);
    const r = await report(outcome.reports[0]!.id);
    expect(r.lines).toEqual([
      expect.objectContaining({ gatewayId: '9999999999', ours: 4_200, theirs: 0, reason: 'missing_at_gateway' }),
    ]);
    expect(outcome.reports[0]).toMatchObject({ status: 'drift' });
  });
});
