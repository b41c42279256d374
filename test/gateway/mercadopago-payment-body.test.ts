import { describe, expect, it } from '@jest/globals';
import {
  additionalInfoOf,
  boletoPaymentBody,
  cardPaymentBody,
  deviceSessionOf,
  pixPaymentBody,
  statementDescriptorOf,
} from '../../gateway/mercadopago-payments.ts';
import type { CardChargeInput, SaleDetails } from '../../gateway/port.ts';

/**
 * What a Mercado Pago payment body carries beside the money (issue 33, decision 0069): binary_mode for
 * a charge nobody is at, the statement's name, additional_info and the device id. Pure: no network.
 */
const card: CardChargeInput & { card: { token: string } } = {
  reference: 'chk_1',
  amount: 19_990,
  currency: 'BRL',
  installments: 1,
  noFeesInstallments: true,
  card: { token: 'tok_1' },
  capture: true,
};
const common = { notificationUrl: null };
const sale: SaleDetails = {
  merchantName: 'Padaria São João Ltda.',
  items: [{ id: 'prod_1', title: 'Curso de pão', quantity: 1, unitPrice: 19_990 }],
  buyerIp: '203.0.113.7',
  deviceSessionId: 'armor.0a1b2c',
};

describe('binary_mode', () => {
  it('is sent for a charge the merchant starts (a renewal, an extra charge), never for the buyer’s own', () => {
    expect(cardPaymentBody({ ...card, initiatedBy: 'merchant' }, 'k', common)).toMatchObject({ binary_mode: true });
    expect(cardPaymentBody(card, 'k', common)).not.toHaveProperty('binary_mode');
    expect(cardPaymentBody({ ...card, initiatedBy: 'buyer' }, 'k', common)).not.toHaveProperty('binary_mode');
  });
});

describe('three_d_secure_mode', () => {
  it('is optional on the buyer’s own charge, and absent from one the merchant starts', () => {
    expect(cardPaymentBody(card, 'k', common)).toMatchObject({ three_d_secure_mode: 'optional' });
    expect(cardPaymentBody({ ...card, initiatedBy: 'buyer' }, 'k', common)).toMatchObject({
      three_d_secure_mode: 'optional',
    });
    expect(cardPaymentBody({ ...card, initiatedBy: 'merchant' }, 'k', common)).not.toHaveProperty(
      'three_d_secure_mode',
    );
  });
});

describe('statement_descriptor', () => {
  it('is the seller’s name in plain letters, digits and spaces, cut to 13 characters', () => {
    expect(statementDescriptorOf('Padaria São João Ltda.')).toBe('Padaria Sao J');
    expect(statementDescriptorOf('ACME')).toBe('ACME');
    expect(statementDescriptorOf('  Café & Cia  ')).toBe('Cafe Cia');
    expect(statementDescriptorOf('***')).toBeNull();
    expect(statementDescriptorOf(null)).toBeNull();
    for (const name of ['Ação—Educação Ñandú 2026 e mais', 'x'.repeat(40), 'a.b,c;d']) {
      expect(statementDescriptorOf(name)).toMatch(/^[A-Za-z0-9](?:[A-Za-z0-9 ]{0,11}[A-Za-z0-9])?$/);
    }
  });

  it('the configured one wins over the seller’s name; none without either', () => {
    const configured = { notificationUrl: null, statementDescriptor: 'MEUCURSO' };
    expect(cardPaymentBody({ ...card, sale }, 'k', configured)).toMatchObject({ statement_descriptor: 'MEUCURSO' });
    expect(cardPaymentBody({ ...card, sale }, 'k', common)).toMatchObject({ statement_descriptor: 'Padaria Sao J' });
    expect(cardPaymentBody(card, 'k', common)).not.toHaveProperty('statement_descriptor');
  });
});

describe('additional_info and the device id', () => {
  it('a checkout’s card charge carries the items (in reais), the buyer’s IP and, as a header, the device id', () => {
    const body = cardPaymentBody({ ...card, sale }, 'k', common);
    expect(body.additional_info).toEqual({
      items: [{ id: 'prod_1', title: 'Curso de pão', quantity: 1, unit_price: 199.9 }],
      ip_address: '203.0.113.7',
    });
    expect(JSON.stringify(body)).not.toContain('armor.0a1b2c'); // a header, not the body
    expect(deviceSessionOf(sale)).toEqual({ meliSessionId: 'armor.0a1b2c' });
    expect(deviceSessionOf({ ...sale, deviceSessionId: null })).toBeUndefined();
    expect(deviceSessionOf(undefined)).toBeUndefined();
  });

  it('a phone and a category go where the reference puts them; nothing known, no additional_info', () => {
    expect(
      additionalInfoOf({
        items: [{ id: 'p', title: 'T', quantity: 1, unitPrice: 1_000, category: 'learnings' }],
        payerPhone: { areaCode: '11', number: '987654321' },
      }),
    ).toEqual({
      items: [{ id: 'p', title: 'T', quantity: 1, unit_price: 10, category_id: 'learnings' }],
      payer: { phone: { area_code: '11', number: '987654321' } },
    });
    expect(additionalInfoOf({ items: [], buyerIp: null })).toBeNull();
    expect(cardPaymentBody(card, 'k', common)).not.toHaveProperty('additional_info');
  });

  it('pix and boleto carry them too', () => {
    const buyer = {
      email: 'a@b.co',
      name: 'Ana Souza',
      taxId: '52998224725',
      address: { line1: 'Av. Paulista, 1000', city: 'São Paulo', state: 'SP', postal_code: '01310-100', country: 'BR' },
    };
    const pix = pixPaymentBody(
      { reference: 'r', amount: 1_000, currency: 'BRL', buyer, expiresInSeconds: 1800, sale },
      'k',
      common,
      new Date(),
    );
    const boleto = boletoPaymentBody(
      { reference: 'r', amount: 1_000, currency: 'BRL', buyer, dueDate: '2030-01-31', sale },
      'k',
      common,
    );
    for (const body of [pix, boleto]) {
      expect(body).toMatchObject({
        statement_descriptor: 'Padaria Sao J',
        additional_info: { ip_address: '203.0.113.7', items: [expect.objectContaining({ id: 'prod_1' })] },
      });
    }
  });
});
