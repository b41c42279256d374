import { describe, expect, it } from '@jest/globals';
import {
  brazilToday,
  gatewayInvoiceOutcome,
  invoiceDatesError,
  invoiceDeadline,
  invoiceExpirationDate,
  invoiceNumber,
  notInvoiceable,
} from '../../domain/invoices.ts';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscriptions.ts';

describe('extra-charge invoices', () => {
  it('only a live subscription billed by the gateway can be invoiced (the spec’s four statuses)', () => {
    const eligible = SUBSCRIPTION_STATUSES.filter((s) => notInvoiceable(s, 'sub_1') === null);
    expect(eligible).toEqual(['trialing', 'active', 'past_due', 'unpaid']);
    expect(notInvoiceable('canceled', 'sub_1')).toContain('canceled');
    expect(notInvoiceable('incomplete', 'sub_1')).toContain('incomplete');
    expect(notInvoiceable('active', null)).toContain('gateway_subscription_id');
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
