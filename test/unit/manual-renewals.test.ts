import { describe, expect, it } from '@jest/globals';
import {
  afterManualRenewalStep,
  DECIDING,
  manualChargeDueAt,
  nextManualRenewalStep,
  type ManualRenewalFacts,
} from '../../domain/manual-renewals.ts';

const DUE = Date.parse('2101-02-15T12:00:00.000Z');
/** An active subscription with a card, its next charge due at DUE, a minute before it. */
const facts = (over: Partial<ManualRenewalFacts> = {}): ManualRenewalFacts => ({
  salesWaiting: false,
  ended: false,
  status: 'active',
  cancelAtPeriodEnd: false,
  hasCard: true,
  due: DUE,
  now: DUE - 60_000,
  ...over,
});
const woken = (due: number | null) => ({ at: 'woken' as const, due });

describe('the manual renewals as a state machine', () => {
  describe('deciding', () => {
    it('waits for the next charge', () => {
      expect(nextManualRenewalStep(DECIDING, facts())).toEqual({ do: 'wait', until: DUE });
    });
    it('records the sales that wait before anything else, even past due with no try left', () => {
      expect(nextManualRenewalStep(DECIDING, facts({ salesWaiting: true, status: 'past_due', due: null }))).toEqual({
        do: 'record_sales',
      });
    });
    it('ends dunning when past due and no try is left', () => {
      expect(nextManualRenewalStep(DECIDING, facts({ status: 'past_due', due: null }))).toEqual({
        do: 'exhaust_dunning',
      });
    });
    it('waits for something to happen when nothing falls due and it is not past due (unpaid)', () => {
      expect(nextManualRenewalStep(DECIDING, facts({ status: 'unpaid', due: null }))).toEqual({
        do: 'wait',
        until: null,
      });
    });
  });

  describe('woken', () => {
    it('charges the card at the due time', () => {
      expect(nextManualRenewalStep(woken(DUE), facts({ now: DUE }))).toEqual({ do: 'charge' });
    });
    it('opens the renewal checkout instead when no card is kept', () => {
      expect(nextManualRenewalStep(woken(DUE), facts({ now: DUE, hasCard: false }))).toEqual({
        do: 'ask_without_card',
      });
    });
    it('closes the period, with no charge, when canceled at period end', () => {
      expect(nextManualRenewalStep(woken(DUE), facts({ now: DUE + 1, cancelAtPeriodEnd: true }))).toEqual({
        do: 'close_period',
      });
    });
    it('closes the period of one canceled at period end with no card too (no renewal checkout is opened)', () => {
      expect(nextManualRenewalStep(woken(DUE), facts({ now: DUE, cancelAtPeriodEnd: true, hasCard: false }))).toEqual({
        do: 'close_period',
      });
    });
    it('ends when the subscription ended meanwhile, even with sales waiting', () => {
      expect(nextManualRenewalStep(woken(DUE), facts({ now: DUE, ended: true, salesWaiting: true }))).toEqual({
        do: 'end',
      });
    });
    it('records a sale that woke it before the due time, and one that came at it', () => {
      expect(nextManualRenewalStep(woken(DUE), facts({ salesWaiting: true }))).toEqual({ do: 'record_sales' });
      expect(nextManualRenewalStep(woken(DUE), facts({ now: DUE, salesWaiting: true }))).toEqual({
        do: 'record_sales',
      });
    });
    it('woken short of the due time (a change, the test clock) waits again for the due time as it now is', () => {
      const later = DUE + 86_400_000;
      expect(nextManualRenewalStep(woken(DUE), facts({ due: later }))).toEqual({ do: 'wait', until: later });
    });
    it('woken from a wait with nothing due decides again', () => {
      expect(nextManualRenewalStep(woken(null), facts({ status: 'past_due', due: null, now: DUE }))).toEqual({
        do: 'exhaust_dunning',
      });
    });
  });

  it('a wait leads to woken (with its due time), every other step back to deciding', () => {
    expect(afterManualRenewalStep({ do: 'wait', until: DUE })).toEqual({ at: 'woken', due: DUE });
    expect(afterManualRenewalStep({ do: 'wait', until: null })).toEqual({ at: 'woken', due: null });
    for (const step of ['record_sales', 'exhaust_dunning', 'charge', 'ask_without_card'] as const) {
      expect(afterManualRenewalStep({ do: step })).toEqual({ at: 'deciding' });
    }
  });
});

describe('when a manual subscription is charged next', () => {
  const s = {
    billing: 'manual' as const,
    status: 'active' as const,
    periodEnd: '2101-02-15T12:00:00.000Z',
    firstFailureAt: null,
    tryNumber: 1,
    retryDays: [3, 5, 7],
    renewalDelayMs: 90_000,
  };
  it('at its period end plus its renewal delay; on a test clock at its period end', () => {
    expect(manualChargeDueAt(s, false)).toBe(DUE + 90_000);
    expect(manualChargeDueAt(s, true)).toBe(DUE);
  });
  it('never when the gateway bills it or it is unpaid', () => {
    expect(manualChargeDueAt({ ...s, billing: 'gateway' }, false)).toBeNull();
    expect(manualChargeDueAt({ ...s, status: 'unpaid' }, false)).toBeNull();
  });
  it('in dunning, on the retry day of its try (days after the first failure)', () => {
    const failed = { ...s, status: 'past_due' as const, firstFailureAt: '2101-02-15T12:00:00.000Z', tryNumber: 2 };
    expect(manualChargeDueAt(failed, false)).toBe(DUE + 3 * 86_400_000);
  });
});
