import { describe, expect, it } from '@jest/globals';
import {
  brazilToday,
  gatewayInvoiceOutcome,
  invoiceDatesError,
  invoiceChargeAt,
  invoiceDeadline,
  invoiceExpirationDate,
  invoiceNumber,
  notInvoiceable,
} from '../../domain/invoices.ts';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';

describe('extra-charge invoices', () => {
  it('only a live subscription can be invoiced (the spec’s four statuses), billed by the gateway or with a kept card', () => {
    const gateway = { recurrenceBilling: 'gateway' as const, gatewaySubscriptionId: 'sub_1', cardTokenId: 'card_1' };
    const manual = { recurrenceBilling: 'manual' as const, gatewaySubscriptionId: null, cardTokenId: 'card_1' };
    for (const billed of [gateway, manual]) {
      const eligible = SUBSCRIPTION_STATUSES.filter((status) => notInvoiceable({ ...billed, status }) === null);
      expect(eligible).toEqual(['trialing', 'active', 'past_due', 'unpaid']);
      expect(notInvoiceable({ ...billed, status: 'canceled' })).toContain('canceled');
      expect(notInvoiceable({ ...billed, status: 'incomplete' })).toContain('incomplete');
    }
    expect(notInvoiceable({ ...gateway, status: 'active', gatewaySubscriptionId: null })).toContain(
      'gateway_subscription_id',
    );
    // The engine charges a manual subscription's kept card: a pix or boleto buyer has none.
    expect(notInvoiceable({ ...manual, status: 'active', cardTokenId: null })).toBe(
      'The subscription is billed manually and has no saved card to charge',
    );
  });

  it('charges a manual invoice at the start of its due date in Brazil (03:00 UTC)', () => {
    expect(invoiceChargeAt('2030-03-10').toISOString()).toBe('2030-03-10T03:00:00.000Z');
    expect(brazilToday(invoiceChargeAt('2030-03-10'))).toBe('2030-03-10');
    expect(brazilToday(new Date(invoiceChargeAt('2030-03-10').getTime() - 1))).toBe('2030-03-09');
  });

  it('numbers invoices with the organization’s prefix', () => {
    expect(invoiceNumber('ACME', 1)).toBe('ACME-1');
    expect(invoiceNumber('ACME-BR', 1024)).toBe('ACME-BR-1024');
  });

  it('reads today in Brazil (UTC−3): the date turns over at 03:00 UTC', () => {
    expect(brazilToday(new Date('2030-03-01T02:59:59Z'))).toBe('2030-02-28');
    expect(brazilToday(new Date('2030-03-01T03:00:00Z'))).toBe('2030-03-01');
  });

  it('refuses a due date in the past and an expiration before the due date; today and equal dates are fine', () => {
    const today = '2030-03-10';
    expect(invoiceDatesError({ dueDate: '2030-03-10' }, today)).toBeNull();
    expect(invoiceDatesError({ dueDate: '2030-03-10', expirationDate: '2030-03-10' }, today)).toBeNull();
    expect(invoiceDatesError({ dueDate: '2030-03-09' }, today)).toMatchObject({ code: 'invalid_due_date' });
    expect(invoiceDatesError({ dueDate: '2030-03-12', expirationDate: '2030-03-11' }, today)).toMatchObject({
      code: 'invalid_expiration_date',
    });
  });

  it('expires 30 days after its due date unless told otherwise', () => {
    expect(invoiceExpirationDate('2030-01-15', null)).toBe('2030-02-14');
    expect(invoiceExpirationDate('2030-02-10', undefined)).toBe('2030-03-12');
    expect(invoiceExpirationDate('2030-01-15', '2030-01-20')).toBe('2030-01-20');
  });

  it('voids an unpaid invoice at the end of its last payable day in Brazil', () => {
    expect(invoiceDeadline('2030-03-10', '2030-03-15').toISOString()).toBe('2030-03-16T03:00:00.000Z');
    // Without an expiration date: 30 days after the due date, across a month's end.
    expect(invoiceDeadline('2030-01-31', null).toISOString()).toBe('2030-03-03T03:00:00.000Z');
  });

  it('tells a refused charge (a transaction was made) from a lapse (none was)', () => {
    expect(gatewayInvoiceOutcome({ status: 'failed', transactionId: 'tr_1' })).toBe('failed');
    expect(gatewayInvoiceOutcome({ status: 'failed', transactionId: null })).toBe('lapsed');
    expect(gatewayInvoiceOutcome({ status: 'paid', transactionId: 'tr_1' })).toBe('paid');
    expect(gatewayInvoiceOutcome({ status: 'pending', transactionId: null })).toBe('pending');
    expect(gatewayInvoiceOutcome({ status: 'voided', transactionId: null })).toBe('voided');
  });
});
