import { describe, expect, it } from '@jest/globals';
import { confirmationOf, paymentFormBody } from '../../pages/checkout/payment-form-input.ts';
import { messagesFor } from '../../pages/checkout/messages.ts';

/**
 * The hosted checkout's form post as the confirm-sdk body: the card's payment method and issuer the
 * page's script looked up from the BIN travel with the browser's token (Mercado Pago charges the first
 * payment with them, decision 0074), and a malformed one is named as the card's error.
 */
const t = messagesFor('pt-BR');
const post = (fields: Record<string, string>) =>
  confirmationOf(
    paymentFormBody.parse({
      payment_method: 'credit_card',
      email: 'ana@example.com',
      card_token: 'mp-browser-token-0001',
      installments: '2',
      ...fields,
    }),
    t,
  );

describe('the checkout form post', () => {
  it('sends the BIN look-up’s payment method and issuer with the browser’s token', () => {
    expect(post({ payment_method_id: 'master', issuer_id: '24' }).body?.card_token).toEqual({
      token: 'mp-browser-token-0001',
      installments: 2,
      payment_method_id: 'master',
      issuer_id: '24',
    });
  });

  it('leaves them out when the page had none (the sandbox without a look-up)', () => {
    expect(post({ payment_method_id: '', issuer_id: ' ' }).body?.card_token).toEqual({
      token: 'mp-browser-token-0001',
      installments: 2,
    });
  });

  it('refuses a malformed payment method as the card’s error', () => {
    expect(post({ payment_method_id: 'Master Card!' })).toEqual({ body: null, invalid: [t.card] });
  });
});

describe("the form's Pix Automático (the buyer's choice)", () => {
  it('is a pix with pix_automatico, and a plain pix is none', () => {
    const payer = { email: 'ana@example.com', name: 'Ana Souza', tax_id: '529.982.247-25' };
    const chosen = confirmationOf(paymentFormBody.parse({ payment_method: 'pix_automatico', ...payer }), t).body;
    expect(chosen).toMatchObject({ payment_method: 'pix', pix_automatico: true });
    const plain = confirmationOf(paymentFormBody.parse({ payment_method: 'pix', ...payer }), t).body;
    expect(plain?.payment_method).toBe('pix');
    expect(plain?.pix_automatico).toBeUndefined();
  });
});
