import { describe, expect, it } from '@jest/globals';
import {
  firstMandateDueDate,
  mandateRequestRefusal,
  payerAccountRefusal,
  renewalAnswerBy,
  renewalMandateTerms,
  renewalPixRidesOnMandate,
  type MandateRequestFacts,
} from '../../domain/mandate-requests.ts';

/** Which subscriptions' payers may be asked for a mandate (decision 0098), and the first due date it bills. */
const eligible: MandateRequestFacts = {
  subscription: { status: 'active', recurrenceBilling: 'manual', cancelAtPeriodEnd: false, currency: 'brl' },
  price: { id: 'p', type: 'recurring', interval: 'month', intervalCount: 1 },
  customer: { name: 'Ana Souza', taxId: '52998224725' },
  rails: { gatewayRecurrence: false, pixAutomatico: true },
  liveMandate: null,
};
const codeOf = (change: Partial<MandateRequestFacts>) => {
  const refusal = mandateRequestRefusal({ ...eligible, ...change });
  return refusal && [refusal.status, refusal.code];
};

describe('mandateRequestRefusal', () => {
  it('lets an active or trialing manual subscription with a named, taxed customer ask', () => {
    expect(codeOf({})).toBeNull();
    expect(codeOf({ subscription: { ...eligible.subscription, status: 'trialing' } })).toBeNull();
  });

  it('refuses what the spec says, each with its code', () => {
    const sub = eligible.subscription;
    expect(codeOf({ subscription: { ...sub, recurrenceBilling: 'pix_automatico' } })).toEqual([
      409,
      'subscription_not_eligible',
    ]);
    expect(codeOf({ subscription: { ...sub, recurrenceBilling: 'gateway' } })).toEqual([
      409,
      'subscription_not_eligible',
    ]);
    expect(codeOf({ subscription: { ...sub, status: 'past_due' } })).toEqual([409, 'subscription_not_eligible']);
    expect(codeOf({ subscription: { ...sub, cancelAtPeriodEnd: true } })).toEqual([409, 'subscription_not_eligible']);
    expect(codeOf({ price: { ...eligible.price, intervalCount: 2 } })).toEqual([422, 'pix_automatico_not_allowed']);
    expect(codeOf({ price: { ...eligible.price, interval: 'day' } })).toEqual([422, 'pix_automatico_not_allowed']);
    expect(codeOf({ subscription: { ...sub, currency: 'usd' } })).toEqual([422, 'pix_automatico_not_allowed']);
    expect(codeOf({ rails: { gatewayRecurrence: true, pixAutomatico: false } })).toEqual([
      422,
      'pix_automatico_unavailable',
    ]);
    expect(codeOf({ customer: { name: ' ', taxId: '52998224725' } })).toEqual([422, 'customer_name_required']);
    expect(codeOf({ customer: { name: 'Ana', taxId: null } })).toEqual([422, 'customer_tax_id_required']);
    expect(codeOf({ liveMandate: 'created' })).toEqual([409, 'mandate_exists']);
    expect(codeOf({ liveMandate: 'approved' })).toEqual([409, 'mandate_exists']);
  });
});

describe('firstMandateDueDate', () => {
  // A period ending at noon in Brasília on 2027-03-15.
  const periodEnd = Date.parse('2027-03-15T15:00:00Z');
  it("is the next period's due date while its charge can still be sent (two days before, at the latest)", () => {
    expect(firstMandateDueDate(periodEnd, 'monthly', Date.parse('2027-03-01T12:00:00Z'))).toBe('2027-03-15');
    expect(firstMandateDueDate(periodEnd, 'monthly', Date.parse('2027-03-13T12:00:00Z'))).toBe('2027-03-15');
  });
  it("is the period's after once that window has closed", () => {
    expect(firstMandateDueDate(periodEnd, 'monthly', Date.parse('2027-03-14T12:00:00Z'))).toBe('2027-04-15');
    expect(firstMandateDueDate(periodEnd, 'weekly', Date.parse('2027-03-14T12:00:00Z'))).toBe('2027-03-22');
  });
});

describe('payerAccountRefusal', () => {
  const account = { ispb: '91193552', agency: '2569', account: '550689' };
  const refusal = (...args: Parameters<typeof payerAccountRefusal>) => {
    const r = payerAccountRefusal(...args);
    return r && [r.status, r.code, r.detail];
  };

  it('takes a request without an account where the gateway finds it (the sandbox), and requires one where not (Efí)', () => {
    expect(refusal('request', null, false)).toBeNull();
    expect(refusal('request', null, true)).toEqual([
      422,
      'payer_account_required',
      'payer_account (ispb, agency, account), or journey qr_code',
    ]);
    expect(refusal('qr_code', null, true)).toBeNull();
    expect(refusal('request', account, true)).toBeNull();
    expect(refusal('request', { ...account, ispb: '0000000A' }, true)).toBeNull();
  });

  it('refuses an ISPB, agency or account out of the BCB’s shapes, naming the field, and an account for a QR code', () => {
    for (const [field, value] of [
      ['ispb', '9119355'],
      ['ispb', '9119355a'],
      ['agency', '25690'],
      ['agency', ''],
      ['account', '55068-9'],
      ['account', '1'.repeat(21)],
    ] as const) {
      expect(refusal('request', { ...account, [field]: value }, false)).toEqual([
        422,
        'invalid_payer_account',
        `payer_account.${field}`,
      ]);
    }
    expect(refusal('qr_code', account, false)).toEqual([422, 'invalid_payer_account', 'payer_account']);
  });
});

describe('journey 4: the mandate offered with the renewal (decision 0100)', () => {
  it('is refused to a subscription renewed on its card, with the spec’s code', () => {
    expect(codeOf({ journey: 'with_renewal', hasCard: true })).toEqual([422, 'payment_method_not_allowed']);
    expect(codeOf({ journey: 'with_renewal', hasCard: false })).toBeNull();
    expect(codeOf({ journey: 'qr_code', hasCard: true })).toBeNull();
    expect(codeOf({ journey: 'with_renewal', hasCard: false, liveMandate: 'created' })).toEqual([
      409,
      'mandate_exists',
    ]);
  });

  // A period ending at noon in Brasília on 2027-03-15.
  const periodEnd = Date.parse('2027-03-15T15:00:00Z');
  it('pays the renewal due on the period’s day, payable to the deadline, and starts the period after', () => {
    const answerBy = renewalAnswerBy(periodEnd, 7);
    expect(answerBy).toBe('2027-03-23T02:59:59.000Z');
    expect(renewalMandateTerms(periodEnd, 'monthly', Date.parse(answerBy))).toEqual({
      dueDate: '2027-03-15',
      daysPayableAfterDue: 7,
      startDate: '2027-04-15',
    });
    expect(renewalMandateTerms(periodEnd, 'weekly', periodEnd).startDate).toBe('2027-03-22');
  });

  it('rides on the renewal’s pix only while the offer waits and the amounts agree', () => {
    const waiting = { status: 'created' as const, journey: 'journey_4', firstPaymentId: 'tx' };
    const pending = { amount: 9_900, status: 'pending' };
    expect(renewalPixRidesOnMandate(waiting, pending, 9_900)).toBe(true);
    expect(renewalPixRidesOnMandate(waiting, pending, 9_800)).toBe(false);
    expect(renewalPixRidesOnMandate(waiting, { ...pending, status: 'canceled' }, 9_900)).toBe(false);
    expect(renewalPixRidesOnMandate({ ...waiting, status: 'rejected' }, pending, 9_900)).toBe(false);
    expect(renewalPixRidesOnMandate({ ...waiting, journey: 'journey_2' }, pending, 9_900)).toBe(false);
    expect(renewalPixRidesOnMandate(null, pending, 9_900)).toBe(false);
  });
});
