import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import {
  InvalidNotificationError,
  isIpnNotice,
  verifyPaymentNotification,
  webhooksOnly,
} from '../../gateway/mercadopago-notifications.ts';

/** Mercado Pago's x-signature on its notifications, checked against an HMAC computed here by hand. */
const SECRET = 'mp-webhook-secret-for-tests';
const TS = 1_768_050_000; // seconds

function signed(dataId: string, requestId: string, ts = TS, secret = SECRET) {
  const v1 = createHmac('sha256', secret).update(`id:${dataId};request-id:${requestId};ts:${ts};`).digest('hex');
  return { signature: `ts=${ts},v1=${v1}`, requestId, dataId, type: 'payment' };
}

describe('Mercado Pago notifications', () => {
  it('accepts a signed payment notification and names its payment', () => {
    expect(verifyPaymentNotification(signed('20359978', 'req-1'), SECRET)).toBe('20359978');
  });

  it('ignores another type once its signature holds', () => {
    expect(verifyPaymentNotification({ ...signed('77', 'req-2'), type: 'chargebacks' }, SECRET)).toBeNull();
  });

  it.each([
    ['another secret', { ...signed('20359978', 'req-1', TS, 'not-the-secret') }, /SignatureMismatch/],
    ['another payment id', { ...signed('20359978', 'req-1'), dataId: '20359979' }, /SignatureMismatch/],
    ['another request id', { ...signed('20359978', 'req-1'), requestId: 'req-9' }, /SignatureMismatch/],
    ['no signature', { ...signed('20359978', 'req-1'), signature: undefined }, /MissingSignatureHeader/],
  ])('refuses %s', (_, notification, reason) => {
    expect(() => verifyPaymentNotification(notification, SECRET)).toThrow(InvalidNotificationError);
    expect(() => verifyPaymentNotification(notification, SECRET)).toThrow(reason);
  });

  // The webhooks page's text says milliseconds, its example and the SDK seconds (decision 0066).
  it.each([
    ['seconds', TS],
    ['milliseconds', TS * 1000 + 250],
    ['seconds, an hour old (a retried notice)', TS - 3600],
  ])('accepts a correctly signed notice whose ts is in %s', (_, ts) => {
    expect(verifyPaymentNotification(signed('20359978', 'req-1', ts), SECRET)).toBe('20359978');
  });
});

describe('Mercado Pago notification URL', () => {
  it('asks for webhooks only (source_news=webhooks), keeping the URL’s own query', () => {
    expect(webhooksOnly('https://billing.example/api/v1/gateway/mercadopago/notifications')).toBe(
      'https://billing.example/api/v1/gateway/mercadopago/notifications?source_news=webhooks',
    );
    expect(webhooksOnly('https://billing.example/mp?client=acme&source_news=ipn')).toBe(
      'https://billing.example/mp?client=acme&source_news=webhooks',
    );
  });

  it('tells an unsigned IPN notice (?topic=&id=) from a webhook', () => {
    expect(isIpnNotice({ topic: 'payment', id: '123' })).toBe(true);
    expect(isIpnNotice({ 'data.id': '123', type: 'payment' })).toBe(false);
    expect(isIpnNotice({})).toBe(false);
  });
});
