import { beforeAll, describe, expect, it } from '@jest/globals';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundleInChild } from '../../worker/bundle.ts';

/**
 * Recorded histories of finished workflows, replayed against today's workflow code: a change that
 * would break a running workflow's determinism fails here (put it behind `patched()`).
 * Recorded by test/workflow/checkout.test.ts when run with RECORD_HISTORIES=1 (refund and direct-transaction
 * histories by test/workflow/refund.test.ts and direct-transaction.test.ts, subscription histories by
 * test/workflow/subscription.test.ts, invoice histories by test/workflow/invoice.test.ts and
 * invoice-manual.test.ts).
 */
const HISTORIES = path.join(import.meta.dirname, 'histories');

// The worker's own bundle, built once: bundling per history took most of this file's time.
let workflowBundle: { code: string };
beforeAll(async () => {
  workflowBundle = await bundleInChild();
}, 120_000);

describe('replay of recorded histories', () => {
  it('every recorded checkout history replays without nondeterminism', async () => {
    const files = (await readdir(HISTORIES)).filter((f) => f.startsWith('checkout-') && f.endsWith('.json'));
    expect(files).toEqual(expect.arrayContaining(['checkout-card.json']));
    for (const file of files) {
      const json: unknown = JSON.parse(await readFile(path.join(HISTORIES, file), 'utf8'));
      const history = proto.temporal.api.history.v1.History.fromObject(json as Record<string, unknown>);
      await expect(Worker.runReplayHistory({ workflowBundle }, history, file)).resolves.toBeUndefined();
    }
  }, 120_000);

  it.each([
    'refund-succeeded.json',
    'refund-reconciled-made.json',
    'refund-reconciled-not-made.json',
    'direct-transaction-card.json',
    'direct-transaction-lost-answer.json',
    'subscription-renewed.json',
    'subscription-renewed-recorded-locally.json',
    'subscription-revoked-in-dunning.json',
    'subscription-canceled-at-period-end.json',
    'subscription-hard-decline-canceled.json',
    'subscription-gateway-billed.json',
    'subscription-gateway-canceled-raced.json',
    'subscription-gateway-credit-settled.json',
    'subscription-price-changed.json',
    'subscription-renewal-checkout.json',
    'subscription-renewal-checkout-signalled.json',
    // Recorded with the writing steps one at a time (patch subscription-steps-one-at-a-time).
    'subscription-price-changed-one-at-a-time.json',
    'subscription-renewed-recorded-locally-one-at-a-time.json',
    'subscription-revoked-in-dunning-one-at-a-time.json',
    'subscription-gateway-credit-settled-one-at-a-time.json',
    // Issue 22: the sandbox recurrence a test clock drives, and an end that voids pending invoices.
    'subscription-gateway-test-clock-dunning.json',
    'subscription-gateway-revoked-voids-invoices.json',
    'invoice-voided-by-subscription-end.json',
    'invoice-paid.json',
    'invoice-failed.json',
    'invoice-voided.json',
    'invoice-paid-reconciled.json',
    'invoice-abandoned.json',
    // Issue 24: a manual subscription's invoice, charged by the engine on its kept card.
    'invoice-manual-paid-on-due-date.json',
    'invoice-manual-voided.json',
    'invoice-manual-lost-answer-found.json',
    'subscription-manual-revoked-voids-invoices.json',
    'invoice-manual-voided-by-subscription-end.json',
    'webhook-delivered-after-retries.json',
  ])(
    '%s replays without nondeterminism',
    async (file) => {
      const json: unknown = JSON.parse(await readFile(path.join(HISTORIES, file), 'utf8'));
      const history = proto.temporal.api.history.v1.History.fromObject(json as Record<string, unknown>);
      await expect(Worker.runReplayHistory({ workflowBundle }, history, file)).resolves.toBeUndefined();
    },
    60_000,
  );
});
