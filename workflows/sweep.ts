import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import {
  SWEEP_KINDS,
  type SweepActivities,
  type SweepCounts,
  type SweepInput,
  type SweepKind,
} from '../contracts/sweep.ts';

const PAGE = 200;
/** Pages per run: a sweep over very many records continues as new rather than growing its history. */
const PAGES_PER_RUN = 50;

const sweeps = proxyActivities<SweepActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', nonRetryableErrorTypes: ['SweepUnavailable'] },
});

/** The activity that walks one page of each kind (activities/sweeps.ts). */
const STEPS = {
  subscriptions: 'ensureSubscriptionWorkflows',
  invoices: 'ensureInvoiceWorkflows',
  checkouts: 'ensureCheckoutWorkflows',
} as const satisfies Record<SweepKind, keyof SweepActivities>;

/**
 * The periodic sweep (Temporal Schedule `billing-sweep`): every live subscription, pending
 * extra-charge invoice and open checkout (or one waiting for its pix or boleto) has a running
 * workflow, page by page. Each workflow then reconciles with the gateway by itself (a subscription
 * its periods, an invoice at its deadline, a checkout at its expiry or its payment's deadline); the
 * sweep only makes sure none of them is missing. Returns how many of each it looked at.
 */
export async function billingSweepWorkflow(input: SweepInput = {}): Promise<SweepCounts> {
  let kind: SweepKind = input.kind ?? 'subscriptions';
  let after = input.after ?? null;
  const prior = typeof input.checked === 'number' ? { subscriptions: input.checked } : (input.checked ?? {});
  const checked: SweepCounts = { subscriptions: 0, invoices: 0, checkouts: 0, ...prior };
  for (let page = 0; page < PAGES_PER_RUN; page++) {
    const result = await sweeps[STEPS[kind]]({ after, limit: PAGE });
    checked[kind] += result.checked;
    after = result.next;
    if (after === null) {
      const next = SWEEP_KINDS[SWEEP_KINDS.indexOf(kind) + 1];
      if (!next) return checked;
      kind = next;
    }
  }
  return continueAsNew<typeof billingSweepWorkflow>({ kind, after, checked });
}
