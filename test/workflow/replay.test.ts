import { beforeAll, describe, expect, it } from '@jest/globals';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleInChild } from '../../worker/bundle.ts';

/**
 * One recorded history per workflow type, of the code as it stands, replayed against today's workflow
 * code: a change that would break a running workflow's determinism fails here. Nothing has run in
 * production yet, so such a change is made in place and the histories recorded again; after the first
 * deploy it ships as docs/decisions/0056-shipping-workflow-changes.md says (a new build id, or a new type).
 * Recorded with RECORD_HISTORIES=1 by the test named beside each file (test/helpers/histories.ts).
 */
const HISTORIES = path.join(import.meta.dirname, 'histories');
const RECORDED = {
  // test/workflow/checkout.test.ts, "an approved card: …"
  checkoutWorkflow: 'checkout-card.json',
  // test/workflow/subscription-renewal-checkouts.test.ts, "no card: … paid, it moves on"
  subscriptionWorkflow: 'subscription-renewal-checkout.json',
  // test/workflow/invoice.test.ts, "creates the invoice at the gateway, …"
  invoiceWorkflow: 'invoice-paid.json',
  // test/workflow/refund.test.ts, "refunds and settles the refund, …"
  refundWorkflow: 'refund-succeeded.json',
  // test/workflow/direct-transaction.test.ts, "charges the card by its token …"
  directTransactionWorkflow: 'direct-transaction-card.json',
  // test/workflow/webhook-delivery.test.ts, "an endpoint down for more than two days, …"
  webhookDeliveryWorkflow: 'webhook-delivered-after-retries.json',
  // test/workflow/recurrence-plan.test.ts, "creates the price’s gateway plan, …"
  recurrencePlanWorkflow: 'recurrence-plan-created.json',
  // test/workflow/sweep.test.ts, "starts the workflow of a live subscription that has none, …"
  billingSweepWorkflow: 'sweep-restarts-subscription.json',
  // test/workflow/webhook-relay.test.ts, "runs from its schedule, …"
  webhookRelayWorkflow: 'webhook-relay-pass.json',
  // test/workflow/mercadopago-outside-refunds.test.ts, "a full refund is recorded as a refund of the sale, …"
  gatewayRefundsWorkflow: 'gateway-refunds-recorded.json',
  // test/workflow/mercadopago-payment-notices.test.ts, "a payment approved for a checkout that ended without a sale …"
  paymentNoticeWorkflow: 'payment-notice-refunded.json',
  // test/workflow/mercadopago-payment-notices.test.ts, "a kept card replaced by its issuer: …"
  keptCardWorkflow: 'kept-card-replaced.json',
  // test/workflow/mercadopago-chargebacks.test.ts, "a dispute opens, then is lost: …"
  chargebackWorkflow: 'chargeback-lost.json',
  // test/workflow/reconciliation.test.ts, "names every fault of a day with its reason, …" (its first run, with both repairs)
  reconciliationWorkflow: 'reconciliation-repaired.json',
  // test/workflow/mandate.test.ts, "rejected, … its replacement, approved, …" (the approved one)
  mandateWorkflow: 'mandate-approved.json',
};

// The worker's own bundle, built once: bundling per history took most of this file's time.
let workflowBundle: { code: string };
beforeAll(async () => {
  workflowBundle = await bundleInChild();
}, 120_000);

describe('replay of recorded histories', () => {
  it('keeps exactly one history per recorded workflow type', async () => {
    const files = (await readdir(HISTORIES)).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(Object.values(RECORDED).sort());
  });

  it.each(Object.entries(RECORDED))(
    '%s (%s) replays without nondeterminism',
    async (type, file) => {
      const json: unknown = JSON.parse(await readFile(path.join(HISTORIES, file), 'utf8'));
      const history = proto.temporal.api.history.v1.History.fromObject(json as Record<string, unknown>);
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
      expect(started).toBe(type);
      await expect(Worker.runReplayHistory({ workflowBundle }, history, file)).resolves.toBeUndefined();
    },
    60_000,
  );
});
