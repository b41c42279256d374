import { createHmac } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { InvalidNotificationError, verifyPaymentNotification } from '../../gateway/mercadopago-notifications.ts';

/** Mercado Pago's x-signature on its notifications, checked against an HMAC computed here by hand. */
const SECRET = 'mp-webhook-secret-for-tests';
const TS = 1_768_050_000; // seconds
const now = () => TS * 1000 + 30_000;

function signed(dataId: string, requestId: string, ts = TS, secret = SECRET) {
  const v1 = createHmac('sha256', secret).update(`id:${dataId};request-id:${requestId};ts:${ts};`).digest('hex');
  return { signature: `ts=${ts},v1=${v1}`, requestId, dataId, type: 'payment' };
}

describe('Mercado Pago notifications', () => {
  it('accepts a signed payment notification and names its payment', () => {
    expect(verifyPaymentNotification(signed('20359978', 'req-1'), SECRET, now)).toBe('20359978');
  });

  it('ignores another type once its signature holds', () => {
    expect(verifyPaymentNotification({ ...signed('77', 'req-2'), type: 'chargebacks' }, SECRET, now)).toBeNull();
  });

  it.each([
    ['another secret', { ...signed('20359978', 'req-1', TS, 'not-the-secret') }, /SignatureMismatch/],
    ['another payment id', { ...signed('20359978', 'req-1'), dataId: '20359979' }, /SignatureMismatch/],
    ['another request id', { ...signed('20359978', 'req-1'), requestId: 'req-9' }, /SignatureMismatch/],
    ['no signature', { ...signed('20359978', 'req-1'), signature: undefined }, /MissingSignatureHeader/],
    ['a stale timestamp', signed('20359978', 'req-1', TS - 3600), /TimestampOutOfTolerance/],
  ])('refuses %s', (_, notification, reason) => {
    expect(() => verifyPaymentNotification(notification, SECRET, now)).toThrow(InvalidNotificationError);
    expect(() => verifyPaymentNotification(notification, SECRET, now)).toThrow(reason);
  });
});
