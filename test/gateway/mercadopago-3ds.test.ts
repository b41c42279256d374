import { describe, expect, it } from '@jest/globals';
import type { CardChargeInput } from '../../gateway/port.ts';
import { CHALLENGE_HOLDER, CHALLENGE_URL, fakeMercadoPago } from '../helpers/mercadopago-fake.ts';
import { mercadoPagoGateway as gateway } from '../helpers/mercadopago-mock.ts';

/**
 * 3-D Secure against the stateful fake (decision 0075): a card whose issuer requires it waits on the
 * buyer's challenge when the buyer is there to answer it, and is approved once answered; the same card
 * charged without 3-D Secure (the merchant's own charge) is refused as authentication_required.
 */
const mp = fakeMercadoPago();

const charge = (token: string, overrides: Partial<CardChargeInput> = {}): CardChargeInput => ({
  reference: 'chk_3ds',
  amount: 10_000,
  currency: 'BRL',
  installments: 1,
  noFeesInstallments: false,
  card: { token },
  cardMethod: { paymentMethodId: 'master', issuerId: '24' },
  payer: { email: 'ana@example.com', name: 'Ana Souza' },
  capture: true,
  ...overrides,
});

describe('3-D Secure with Mercado Pago', () => {
  it("the buyer's payment waits on the challenge, and is approved once the buyer answers it", async () => {
    const t = await gateway().chargeCard(charge(mp.browserToken(CHALLENGE_HOLDER)), '3ds-buyer-key');
    expect(mp.requests.at(-1)!.body).toMatchObject({ three_d_secure_mode: 'optional' });
    expect(t).toMatchObject({ status: 'pending', declineReason: null, threeDs: { url: CHALLENGE_URL } });
    expect(t.threeDs!.creq).toMatch(/^eyJ/);

    mp.completeChallenge(t.id);
    const after = await gateway().getTransaction(t.id);
    expect(after).toMatchObject({ status: 'succeeded', threeDs: null, capturedAmount: 10_000 });
  });

  it('a challenge the buyer fails is a refusal', async () => {
    const t = await gateway().chargeCard(charge(mp.browserToken(CHALLENGE_HOLDER)), '3ds-failed-key');
    mp.completeChallenge(t.id, false);
    expect(await gateway().getTransaction(t.id)).toMatchObject({ status: 'failed', declineReason: 'card_declined' });
  });

  it("the merchant's charge of the same card carries no 3-D Secure and is refused as authentication_required", async () => {
    const t = await gateway().chargeCard(
      charge(mp.browserToken(CHALLENGE_HOLDER), { initiatedBy: 'merchant' }),
      '3ds-merchant-key',
    );
    expect(mp.requests.at(-1)!.body).not.toHaveProperty('three_d_secure_mode');
    expect(t).toMatchObject({ status: 'failed', declineReason: 'authentication_required', threeDs: null });
  });
});
