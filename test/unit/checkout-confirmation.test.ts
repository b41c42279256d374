import { describe, expect, it } from '@jest/globals';
import {
  addressGaps,
  buyerRefusal,
  confirmationRefusal,
  hasFirstAndLastName,
  paymentRefusal,
} from '../../domain/checkout-confirmation.ts';
import type { PixAutomaticoOptIn } from '../../domain/checkout-eligibility.ts';

const oneTime = { type: 'one_time' as const };
const monthly = { type: 'recurring' as const, interval: 'month' };
const yearly = { type: 'recurring' as const, interval: 'year' };
const card = (installments: number) => ({ paymentMethod: 'credit_card' as const, hasCard: true, installments });

describe('paymentRefusal', () => {
  it('takes a card only with credit_card, and wants one there', () => {
    expect(paymentRefusal({ paymentMethod: 'credit_card', hasCard: false, installments: 1 }, oneTime)).toEqual({
      status: 400,
      code: 'invalid_request',
      message: 'card or card_token is required when payment_method is credit_card',
    });
    for (const paymentMethod of ['pix', 'boleto'] as const) {
      expect(paymentRefusal({ paymentMethod, hasCard: true, installments: 1 }, oneTime)?.message).toBe(
        'card and card_token are only accepted when payment_method is credit_card',
      );
      expect(paymentRefusal({ paymentMethod, hasCard: false, installments: 1 }, oneTime)).toBeNull();
    }
  });

  it('caps installments at 12 for one-time and yearly prices and at 1 for monthly ones', () => {
    expect(paymentRefusal(card(12), oneTime)).toBeNull();
    expect(paymentRefusal(card(13), oneTime)).toEqual({
      status: 400,
      code: 'invalid_request',
      message: 'Too many installments',
      detail: 'This price accepts at most 12 installments',
    });
    expect(paymentRefusal(card(12), yearly)).toBeNull();
    expect(paymentRefusal(card(1), monthly)).toBeNull();
    expect(paymentRefusal(card(2), monthly)).toEqual({
      status: 400,
      code: 'invalid_request',
      message: 'Too many installments',
      detail: 'This price accepts at most 1 installment',
    });
  });

  it('leaves the cap to whoever knows the price', () => {
    expect(paymentRefusal(card(24), null)).toBeNull();
  });
});

describe('buyerRefusal', () => {
  const all = { hasEmail: true, hasName: true, hasTaxId: true };

  it('wants the billing address a checkout requires, whatever the method', () => {
    for (const method of ['credit_card', 'pix', 'boleto'] as const) {
      expect(buyerRefusal(method, { ...all, lacksRequiredAddress: true })).toEqual({
        status: 422,
        code: 'customer_billing_address_required',
        message: 'customer_billing_address is required',
        detail: 'This checkout requires a billing address',
      });
      expect(buyerRefusal(method, { ...all, lacksRequiredAddress: false })).toBeNull();
    }
  });

  it('wants an e-mail for every method', () => {
    for (const method of ['credit_card', 'pix', 'boleto'] as const) {
      expect(buyerRefusal(method, { ...all, hasEmail: false })).toEqual({
        status: 422,
        code: 'customer_email_required',
        message: 'customer_email is required',
        detail: 'The checkout has no customer yet: send customer_email',
      });
      expect(buyerRefusal(method, all)).toBeNull();
    }
  });

  it('wants the name and tax id for boleto only', () => {
    expect(buyerRefusal('boleto', { ...all, hasName: false })).toEqual({
      status: 422,
      code: 'customer_name_required',
      message: 'customer_name is required for boleto',
    });
    expect(buyerRefusal('boleto', { ...all, hasTaxId: false })).toEqual({
      status: 422,
      code: 'customer_tax_id_required',
      message: 'customer_tax_id is required for boleto',
    });
    expect(buyerRefusal('pix', { hasEmail: true, hasName: false, hasTaxId: false })).toBeNull();
    expect(buyerRefusal('credit_card', { hasEmail: true, hasName: false, hasTaxId: false })).toBeNull();
  });
});

describe("a boleto's address", () => {
  const buyer = { hasEmail: true, hasName: true, hasTaxId: true };
  it('is needed only where the gateway prints it (Mercado Pago), and only for boleto', () => {
    expect(buyerRefusal('boleto', { ...buyer, boletoNeedsAddress: true, hasAddress: false })).toEqual({
      status: 422,
      code: 'customer_billing_address_required',
      message: 'customer_billing_address is required for boleto',
      detail: "The gateway prints the buyer's address on the boleto",
    });
    expect(buyerRefusal('boleto', { ...buyer, boletoNeedsAddress: true, hasAddress: true })).toBeNull();
    expect(buyerRefusal('boleto', { ...buyer, boletoNeedsAddress: false, hasAddress: false })).toBeNull();
    expect(buyerRefusal('pix', { ...buyer, boletoNeedsAddress: true, hasAddress: false })).toBeNull();
  });
});

describe("a boleto's payer where the gateway names them in full (Mercado Pago)", () => {
  const buyer = { hasEmail: true, hasName: true, hasTaxId: true, hasAddress: true, hasFullName: true };
  const mp = { boletoNeedsAddress: true, boletoNeedsFullName: true };

  it('tells a first and a last name, and what an address lacks of a full one', () => {
    expect(['Ana Souza', ' Ana  Maria Souza ', 'Ana', '  ', null].map(hasFirstAndLastName)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(addressGaps({ postal_code: '01310-200', state: 'SP' })).toEqual([]);
    expect(addressGaps({ postal_code: null, state: ' ' })).toEqual(['postal_code', 'state']);
    expect(addressGaps({ state: 'SP' })).toEqual(['postal_code']);
    expect(addressGaps(null)).toEqual([]);
  });

  it('refuses a one-word name, and an address without its postal code or state, as invalid (a 422)', () => {
    expect(buyerRefusal('boleto', { ...buyer, ...mp, hasFullName: false })).toEqual({
      status: 422,
      code: 'boleto_payer_incomplete',
      message: 'customer_name needs a first and a last name for boleto',
      detail: "The gateway prints the payer's first and last name on the boleto",
    });
    expect(buyerRefusal('boleto', { ...buyer, ...mp, addressLacks: ['postal_code'] })).toMatchObject({
      status: 422,
      code: 'boleto_payer_incomplete',
      message: 'customer_billing_address needs postal_code for boleto',
    });
    expect(buyerRefusal('boleto', { ...buyer, ...mp, addressLacks: ['postal_code', 'state'] })?.message).toBe(
      'customer_billing_address needs postal_code and state for boleto',
    );
    expect(buyerRefusal('boleto', { ...buyer, ...mp, addressLacks: [] })).toBeNull();
  });

  it('asks nothing of the kind where the gateway does not (the simulator), nor for pix', () => {
    const loose = { ...buyer, hasFullName: false, addressLacks: ['state' as const] };
    expect(buyerRefusal('boleto', { ...loose, boletoNeedsAddress: false, boletoNeedsFullName: false })).toBeNull();
    expect(buyerRefusal('pix', { ...loose, ...mp })).toBeNull();
  });

  it('is judged by confirmationRefusal with the gateway’s needs', () => {
    const request = { paymentMethod: 'boleto' as const, hasCard: false, installments: 1 };
    const c = { request, price: oneTime, buyer: { ...buyer, addressRequired: false, hasFullName: false } };
    expect(confirmationRefusal(c, mp)?.code).toBe('boleto_payer_incomplete');
    expect(confirmationRefusal(c, { boletoNeedsAddress: true })).toBeNull();
  });
});

describe('confirmationRefusal', () => {
  const buyer = { hasEmail: true, hasName: true, hasTaxId: true, hasAddress: false, addressRequired: false };
  const boleto = { paymentMethod: 'boleto' as const, hasCard: false, installments: 1 };
  const printsAddress = { boletoNeedsAddress: true };

  it('answers the card first, then an invalid tax id, then the buyer', () => {
    const noCard = { paymentMethod: 'credit_card' as const, hasCard: false, installments: 1 };
    const lost = { ...buyer, hasEmail: false, sentInvalidTaxId: true };
    expect(confirmationRefusal({ request: noCard, price: oneTime, buyer: lost }, printsAddress)?.message).toBe(
      'card or card_token is required when payment_method is credit_card',
    );
    expect(confirmationRefusal({ request: boleto, price: oneTime, buyer: lost }, printsAddress)).toMatchObject({
      status: 422,
      code: 'invalid_tax_id',
      message: 'Invalid customer_tax_id',
    });
    expect(
      confirmationRefusal(
        { request: boleto, price: oneTime, buyer: { ...lost, sentInvalidTaxId: false } },
        printsAddress,
      )?.message,
    ).toBe('customer_email is required');
  });

  it("wants a boleto's address only where the gateway prints it", () => {
    expect(confirmationRefusal({ request: boleto, price: oneTime, buyer }, printsAddress)?.message).toBe(
      'customer_billing_address is required for boleto',
    );
    expect(confirmationRefusal({ request: boleto, price: oneTime, buyer }, { boletoNeedsAddress: false })).toBeNull();
  });
});

describe("the buyer's choice of Pix Automático (pix_automatico)", () => {
  const buyer = { hasEmail: true, hasName: true, hasTaxId: true, hasAddress: false, addressRequired: false };
  const price: PixAutomaticoOptIn['price'] = { id: 'p_m', type: 'recurring', interval: 'month', intervalCount: 1 };
  const optIn: PixAutomaticoOptIn = { price, recurrenceBilling: 'manual', trial: false, ofSubscription: false };
  const pix = { paymentMethod: 'pix' as const, hasCard: false, installments: 1, pixAutomatico: true };
  const rail = { boletoNeedsAddress: false, pixAutomatico: true };
  const judged = (over: Partial<PixAutomaticoOptIn>, gateway = rail, who = buyer) =>
    confirmationRefusal({ request: pix, price: monthly, optIn: { ...optIn, ...over }, buyer: who }, gateway);

  it('is taken for a weekly to yearly price, no trial, a new subscription, on a gateway with the rail', () => {
    expect(judged({})).toBeNull();
    expect(judged({ recurrenceBilling: 'gateway' })).toBeNull();
  });
  it('is refused (422) where the gateway, the price, a trial or the subscription does not allow it', () => {
    expect(judged({}, { boletoNeedsAddress: false, pixAutomatico: false })).toMatchObject({
      status: 422,
      code: 'pix_automatico_unavailable',
    });
    expect(judged({ price: { ...price, interval: 'day' } })).toMatchObject({ code: 'pix_automatico_not_allowed' });
    expect(judged({ price: { id: 'p_o', type: 'one_time' } })).toMatchObject({
      code: 'pix_automatico_not_allowed',
    });
    expect(judged({ trial: true })).toMatchObject({ code: 'pix_automatico_not_allowed' });
    expect(judged({ ofSubscription: true })).toMatchObject({ code: 'pix_automatico_not_allowed' });
    // Unknown facts: refused rather than guessed.
    expect(confirmationRefusal({ request: pix, price: monthly, buyer }, rail)).toMatchObject({
      code: 'pix_automatico_not_allowed',
    });
  });
  it('wants the debtor’s name and tax id, as a Pix Automático checkout does', () => {
    expect(judged({}, rail, { ...buyer, hasName: false })).toMatchObject({ code: 'customer_name_required' });
    expect(judged({}, rail, { ...buyer, hasTaxId: false })).toMatchObject({ code: 'customer_tax_id_required' });
  });
  it('is the request’s fault (400) with another method', () => {
    const boleto = { ...pix, paymentMethod: 'boleto' as const };
    expect(confirmationRefusal({ request: boleto, price: monthly, optIn, buyer }, rail)).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'pix_automatico is only accepted when payment_method is pix',
    });
  });
  it('changes nothing for a checkout created as Pix Automático, which needs no choice', () => {
    const created = { ...optIn, recurrenceBilling: 'pix_automatico' as const, trial: true };
    expect(
      confirmationRefusal({ request: pix, pixAutomatico: true, price: monthly, optIn: created, buyer }, rail),
    ).toBeNull();
  });
});
