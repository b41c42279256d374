import { describe, expect, it } from '@jest/globals';
import {
  isNotifyingEvent,
  notificationMessageId,
  renderNotification,
  type NotificationFacts,
} from '../../domain/notifications.ts';

const at = new Date('2026-03-02T12:00:00Z');
const sale: NotificationFacts = {
  type: 'sale.created',
  organizationName: 'Acme',
  data: {
    id: 'sale-1',
    amount: 30_000,
    currency: 'BRL',
    installments: 3,
    installment_amount: 10_678,
    total_amount: 32_034,
    payment_method: 'credit_card',
  },
  productName: 'Guitar course',
  customerName: 'Maria Souza',
  customerEmail: 'maria@example.com',
  interval: null,
  intervalCount: null,
  createdAt: at,
};

describe('notifications', () => {
  it('are about new sales and new subscriptions only', () => {
    expect(['sale.created', 'subscription.created'].every(isNotifyingEvent)).toBe(true);
    expect(['sale.paid', 'subscription.active', 'toString', 'constructor'].some(isNotifyingEvent)).toBe(false);
  });

  it('tell a sale: product, amount, its installments with the total charged, customer, method, in lines of their own', () => {
    const { subject, text } = renderNotification(sale);
    expect(subject).toBe('New sale: Guitar course - R$300.00');
    expect(text.split('\n')).toEqual([
      'Acme made a sale.',
      '',
      'Product: Guitar course',
      'Amount: R$300.00',
      'Installments: 3 x R$106.78 = R$320.34 charged (interest included)',
      'Customer: Maria Souza <maria@example.com>',
      'Payment method: credit card',
      'Sale: sale-1',
      'Date: 2026-03-02T12:00:00.000Z',
      '',
    ]);
  });

  it('tell a subscription with its recurrence, and a customer known by the address only', () => {
    const { subject, text } = renderNotification({
      ...sale,
      type: 'subscription.created',
      data: { id: 'sub-1', amount: 4_990, currency: 'brl', status: 'trialing', trial_end: '2026-03-09T12:00:00Z' },
      customerName: null,
      interval: 'month',
      intervalCount: 3,
    });
    expect(subject).toBe('New subscription: Guitar course - R$49.90 every 3 months');
    expect(text).toContain('Customer: maria@example.com\n');
    expect(text).toContain('Status: trialing\nTrial ends: 2026-03-09T12:00:00Z\n');
    expect(text).not.toContain('Current period ends');
  });

  it('carry a Message-ID of the event in the sender’s domain, the same every time', () => {
    expect(notificationMessageId('e-1', 'Acme <billing@acme.example>')).toBe('<notification.e-1@acme.example>');
    expect(notificationMessageId('e-1', 'billing@acme.example')).toBe('<notification.e-1@acme.example>');
  });
});
