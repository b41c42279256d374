import { describe, expect, it } from '@jest/globals';
import { WorkflowUpdateStage } from '@temporalio/client';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { PAYMENT_ISSUE } from '../../domain/search-attributes.ts';
import { GatewayError, type PaymentGateway } from '../../gateway/port.ts';
import { changeSubscriptionUpdate, gatewayInvoiceSignal } from '../../contracts/subscription.ts';
import { GATEWAY_NOTICE_GRACE_MS } from '../../domain/subscriptions.ts';
import { MercadoPagoGateway } from '../../gateway/mercadopago-adapter.ts';
import { fakeMercadoPago } from '../helpers/mercadopago-fake.ts';
import {
  addMonth,
  APPROVE,
  DAY,
  stateOf,
  useSubscriptionWorkflows,
  type Handle,
} from '../helpers/subscription-workflows.ts';

/**
 * No gateway answer ends a subscription's workflow (issue 33 §2): a renewal the gateway refuses
 * outright, a kept card it will not charge, or no card at all, is a declined try with its reason,
 * dunned as a card decline is (past due, the retry on the schedule, the events), and the retry that
 * the gateway takes renews the period. On the time-skipping test server, with the real activities.
 */
const kit = useSubscriptionWorkflows('subscription-refusal-test');
const { sql, subscription, run, until, charges, row, eventTypes } = kit;
const mp = fakeMercadoPago();
const HOUR = 3_600_000;
const at = (day: string) => new Date(`${day}T12:00:00.000Z`);

/** The simulator, but its first `refusals` calls of `method` are refused outright (a 4xx the adapter maps so). */
function refusingFirst(refusals: number, method: 'chargeCard' | 'listSubscriptionInvoices' | 'cancelSubscription') {
  const sim = kit.sim;
  let left = refusals;
  return new Proxy(sim, {
    get(target, prop) {
      if (prop === method) {
        return (...args: unknown[]) => {
          if (left-- > 0) return Promise.reject(new GatewayError('The gateway answered 400: invalid parameter', false));
          return (target[method] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * The renewal is declined with `reason` (the workflow still running, past due, the next try due a day
 * later), then `mend` lets the gateway take it and the retry renews the period.
 */
async function declinedThenRenewed(
  s: { id: string; anchor: Date; organizationId: string },
  reason: string,
  gateway: PaymentGateway,
  mend: () => Promise<void> | void,
  beforeRenewal: () => Promise<void> | void = () => undefined,
) {
  await run(
    s.id,
    async (handle: Handle) => {
      await stateOf(handle);
      await beforeRenewal();
      await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
      const refused = await stateOf(handle);
      expect(refused).toMatchObject({ status: 'past_due', periodNumber: 1, tryNumber: 2 });
      expect(refused.firstFailureAt).not.toBeNull();
      expect((await handle.describe()).status.name).toBe('RUNNING');
      expect(await charges(s.id)).toEqual([
        { period_number: 2, try_number: 1, amount: 9_900, outcome: 'failed', decline_reason: reason },
      ]);
      expect((await row(s.id)).status).toBe('past_due');
      // Dunning as for a card decline: the renewal checkout is open to pay another way meanwhile.
      const opened = await sql('select status from checkouts where subscription_id = ? and renewal_period = 2', [s.id]);
      expect(opened).toEqual([{ status: 'open' }]);
      await mend();
      await kit.env.sleep(DAY);
      expect(await stateOf(handle)).toMatchObject({ status: 'active', periodNumber: 2, firstFailureAt: null });
      expect((await handle.describe()).status.name).toBe('RUNNING');
    },
    gateway,
  );
  expect(await charges(s.id)).toEqual([
    { period_number: 2, try_number: 1, amount: 9_900, outcome: 'failed', decline_reason: reason },
    { period_number: 2, try_number: 2, amount: 9_900, outcome: 'succeeded', decline_reason: null },
  ]);
  expect((await row(s.id)).status).toBe('active');
  expect(await eventTypes(s.organizationId)).toEqual(['subscription.past_due', 'subscription.active']);
}

describe('a renewal the gateway refuses outright goes through dunning', () => {
  it('a definite refusal of the charge: declined as processing_error, retried a day later, renewed', async () => {
    const s = await subscription(APPROVE, { start: at('2141-01-15') });
    await declinedThenRenewed(s, 'processing_error', refusingFirst(1, 'chargeCard'), () => undefined);
  }, 60_000);

  it('the kept card Mercado Pago will not charge without its security code: declined as saved_card_refused', async () => {
    const s = await subscription(APPROVE, { start: at('2141-04-15') });
    const gateway = new MercadoPagoGateway({ accessToken: 'TEST-fake', timeoutMs: 5_000, notificationUrl: null });
    const [{ email }] = await sql(
      'select c.email from customers c join subscriptions s on s.customer_id = c.id where s.id = ?',
      [s.id],
    );
    const kept = await gateway.keepBrowserCard(mp.browserToken(), { email, name: 'Ana' }, `test:keep:${s.id}`);
    await sql('update subscriptions set card_token_id = ? where id = ?', [kept.id, s.id]);
    mp.refuseKeptCardTokens = true;
    await declinedThenRenewed(s, 'saved_card_refused', gateway, () => {
      // The account is enabled for payments without CVV (or the customer gave the card again).
      mp.refuseKeptCardTokens = false;
    });
    const paid = [...mp.payments.values()].filter((p) => p.metadata?.reference === s.id);
    expect(paid.map((p) => [p.status, p.transaction_amount])).toEqual([['approved', 99]]);
  }, 60_000);

  it('no card kept when the renewal falls due: declined as no_saved_card, renewed once the card is back', async () => {
    const s = await subscription(APPROVE, { start: at('2141-07-15') });
    const [{ card_token_id: card }] = await sql('select card_token_id from subscriptions where id = ?', [s.id]);
    const setCard = (token: string | null) =>
      sql('update subscriptions set card_token_id = ? where id = ?', [token, s.id]).then(() => undefined);
    await declinedThenRenewed(
      s,
      'no_saved_card',
      kit.sim,
      () => setCard(card),
      () => setCard(null),
    );
  }, 60_000);
});

describe('a gateway-billed subscription the gateway refuses to answer about keeps running', () => {
  it('the period asked about is refused: asked again after the grace, and entered', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway', start: at('2142-01-15') });
    await run(
      s.id,
      async (handle) => {
        await kit.env.sleep(await until(addMonth(s.anchor), HOUR));
        await kit.sim.billSubscription(s.gatewaySubscriptionId!);
        await handle.signal(gatewayInvoiceSignal);
        expect(await stateOf(handle)).toMatchObject({ status: 'active', periodNumber: 1 });
        expect((await handle.describe()).status.name).toBe('RUNNING');
        await kit.env.sleep(GATEWAY_NOTICE_GRACE_MS);
        expect(await stateOf(handle)).toMatchObject({ status: 'active', periodNumber: 2 });
      },
      refusingFirst(1, 'listSubscriptionInvoices'),
    );
    expect((await charges(s.id)).map((c) => [c.period_number, c.outcome])).toEqual([[2, 'succeeded']]);
  }, 60_000);

  it('revoked, and the stop of its recurrence refused: the workflow still ends canceled', async () => {
    const s = await subscription(APPROVE, { billing: 'gateway', start: at('2142-04-15') });
    const result = await run(
      s.id,
      async (handle) => {
        await handle.executeUpdate(changeSubscriptionUpdate, { args: ['revoke'] });
        return handle.result();
      },
      refusingFirst(1, 'cancelSubscription'),
    );
    expect(result).toBe('canceled');
    expect((await row(s.id)).status).toBe('canceled');
  }, 60_000);
});

describe('a refund the gateway refuses does not end the workflow either', () => {
  it('revoked while a renewal is charged, and its refund refused: canceled, left to an operator (PaymentIssue)', async () => {
    const s = await subscription(APPROVE, { start: at('2190-07-15') });
    let reached!: () => void;
    let release!: () => void;
    const atCharge = new Promise<void>((resolve) => (reached = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const gateway = Object.create(kit.sim) as SimulatedGateway;
    gateway.chargeCard = async (input, key) => {
      reached();
      await released;
      return kit.sim.chargeCard(input, key);
    };
    gateway.refund = () => Promise.reject(new GatewayError('The gateway answered 400: refund window closed', false));
    const ended = await run(
      s.id,
      async (handle) => {
        const skipping = kit.env.sleep(await until(addMonth(s.anchor), DAY));
        await atCharge;
        const revoking = await handle.startUpdate(changeSubscriptionUpdate, {
          args: ['revoke'],
          waitForStage: WorkflowUpdateStage.ACCEPTED,
        });
        release();
        await revoking.result();
        await skipping;
        const result = await handle.result();
        return { result, issue: (await handle.describe()).typedSearchAttributes.get(PAYMENT_ISSUE) };
      },
      gateway,
    );
    expect(ended).toEqual({ result: 'canceled', issue: 'renewal_refund_refused' });
    expect((await row(s.id)).status).toBe('canceled');
    expect((await charges(s.id)).map((c) => c.outcome)).toEqual(['succeeded']);
  }, 60_000);
});
