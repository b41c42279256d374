import { describe, expect, it } from '@jest/globals';
import { MercadoPagoGateway } from '../../gateway/mercadopago-adapter.ts';
import { SavedCardRefused, type CardChargeInput } from '../../gateway/port.ts';
import { fixture, mockMercadoPago, NOTIFICATION_URL } from '../helpers/mercadopago-mock.ts';

/**
 * A kept card Mercado Pago will not charge without its holder (issue 33 §2): a refusal of its token,
 * or of the payment with it (400, cause 3031 "security_code_id can't be null",
 * https://www.mercadopago.com.br/developers/en/support/37020), is a SavedCardRefused, which a
 * renewal's dunning records as `saved_card_refused`; an outage stays a retryable GatewayError.
 */
const { answer } = mockMercadoPago();
const gateway = () =>
  new MercadoPagoGateway({ accessToken: 'TEST-0000-token', timeoutMs: 2000, notificationUrl: NOTIFICATION_URL });
const charge: CardChargeInput = {
  reference: 'sub_1:period:2',
  amount: 9900,
  currency: 'BRL',
  installments: 1,
  noFeesInstallments: true,
  card: { token: 'mpcard:1234567890-abcdEFGhijKLmn:9876543210' },
  capture: true,
};

describe('a kept card Mercado Pago refuses', () => {
  it('the payment with its token refused for the missing security code: SavedCardRefused, not retried', async () => {
    answer('POST', '/v1/card_tokens', 201, fixture('card-token-from-saved-card'));
    answer('POST', '/v1/payments', 400, fixture('error-security-code-id-null'));
    const refused = gateway().chargeCard(charge, 'subscription:s1:period:2:try:1');
    await expect(refused).rejects.toBeInstanceOf(SavedCardRefused);
    await expect(refused).rejects.toMatchObject({ retryable: false });
  });

  it('its token refused: SavedCardRefused', async () => {
    answer('POST', '/v1/card_tokens', 404, { message: 'not found', error: 'not_found', status: 404, cause: [] });
    await expect(gateway().chargeCard(charge, 'k')).rejects.toBeInstanceOf(SavedCardRefused);
  });

  it('an outage while charging it stays retryable, not a refusal of the card', async () => {
    answer('POST', '/v1/card_tokens', 201, fixture('card-token-from-saved-card'));
    answer('POST', '/v1/payments', 503, { message: 'unavailable', error: 'internal_error', status: 503, cause: [] });
    const failed = gateway().chargeCard(charge, 'k');
    await expect(failed).rejects.toMatchObject({ retryable: true });
    await expect(failed).rejects.not.toBeInstanceOf(SavedCardRefused);
  });
});
