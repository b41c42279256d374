import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { loadConfig } from '../../config/env.ts';
import type { Orm } from '../../db/orm.ts';
import { createGateway } from '../../gateway/index.ts';
import { MercadoPagoGateway } from '../../gateway/mercadopago-adapter.ts';
import { fixture, mercadoPagoGateway, mockMercadoPago, NOTIFICATION_URL } from '../helpers/mercadopago-mock.ts';

/** Pix and boleto through Mercado Pago, the amounts the SDK writes, and how GATEWAY selects the adapter. */
const { sent, answer } = mockMercadoPago();
const NOW = new Date('2026-01-10T13:00:00.000Z');
const gateway = () => mercadoPagoGateway(2000, () => NOW);

describe('Mercado Pago pix', () => {
  it('creates a pix payment that expires, and maps its QR code', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-pix-pending'));
    const t = await gateway().createPixCharge(
      {
        reference: 'chk_pix',
        amount: 10,
        currency: 'BRL',
        buyer: { email: 'maria@example.com', name: 'Maria da Silva', taxId: '191.191.191-00' },
        expiresInSeconds: 1800,
      },
      'pix-key-1',
    );
    expect(sent[0]!.headers['x-idempotency-key']).toBe('pix-key-1');
    expect(sent[0]!.body).toEqual({
      transaction_amount: 0.1,
      external_reference: 'pix-key-1',
      metadata: { reference: 'chk_pix' },
      notification_url: NOTIFICATION_URL,
      payment_method_id: 'pix',
      // 30 minutes asked, 2 more for the transit: Mercado Pago refuses less than 30 on its clock (decision 0066).
      date_of_expiration: '2026-01-10T13:32:00.000+00:00',
      payer: {
        email: 'maria@example.com',
        first_name: 'Maria',
        last_name: 'da Silva',
        identification: { type: 'CPF', number: '19119119100' },
      },
    });
    const pix = fixture('payment-pix-pending') as {
      point_of_interaction: { transaction_data: { qr_code: string; qr_code_base64: string } };
    };
    expect(t).toMatchObject({
      id: '5466310457',
      reference: 'chk_pix',
      status: 'pending',
      paymentType: 'pix',
      amount: 10,
      capturedAmount: 0,
      card: null,
      boleto: null,
      pix: {
        qrCode: pix.point_of_interaction.transaction_data.qr_code,
        qrCodeImage: `data:image/png;base64,${pix.point_of_interaction.transaction_data.qr_code_base64}`,
        expiresAt: '2026-01-10T13:30:00.000Z',
      },
    });
  });
});

describe('Mercado Pago boleto', () => {
  it('creates a boleto due at the end of its day in Brasília, and maps its line, barcode and PDF', async () => {
    answer('POST', '/v1/payments', 201, fixture('payment-boleto-pending'));
    const t = await gateway().createBoleto(
      {
        reference: 'inv_boleto',
        amount: 123456,
        currency: 'BRL',
        buyer: { email: 'financeiro@empresa.example', name: 'Empresa Ltda', taxId: '11.222.333/0001-81' },
        dueDate: '2026-01-20',
      },
      'boleto-key-1',
    );
    expect(sent[0]!.body).toMatchObject({
      transaction_amount: 1234.56,
      external_reference: 'boleto-key-1',
      payment_method_id: 'bolbradesco',
      date_of_expiration: '2026-01-20T23:59:59.000-03:00',
      payer: { email: 'financeiro@empresa.example', identification: { type: 'CNPJ', number: '11222333000181' } },
    });
    expect(t).toMatchObject({
      id: '1316782471',
      status: 'pending',
      paymentType: 'boleto',
      amount: 123456,
      pix: null,
      boleto: {
        digitableLine: '23793380296099605974756007205506189120000123456',
        barcode: '23791891200001234563380260996059745600720550',
        dueDate: '2026-01-20',
        url: expect.stringMatching(/^https:\/\/www\.mercadopago\.com\.br\/payments\/1316782471\/ticket/),
      },
    });
  });

  it("prints the buyer's address: the line split into street, number and neighbourhood", async () => {
    const address = {
      line1: 'Av. Paulista, 1578 - Bela Vista',
      city: 'São Paulo',
      state: 'sp',
      postal_code: '01310-200',
      country: 'BR',
    };
    const lines: [line1: string, street: string, number: string, neighborhood: string][] = [
      [address.line1, 'Av. Paulista', '1578', 'Bela Vista'],
      ['Rua das Flores, 12B', 'Rua das Flores', '12B', 'São Paulo'],
      ['Estrada Velha, s/n, Zona Rural', 'Estrada Velha', 'S/N', 'Zona Rural'],
      ['Sítio Boa Vista', 'Sítio Boa Vista', 'S/N', 'São Paulo'],
    ];
    for (const [line1, street, number, neighborhood] of lines) {
      answer('POST', '/v1/payments', 201, fixture('payment-boleto-pending'));
      await gateway().createBoleto(
        {
          reference: 'chk_b',
          amount: 5000,
          currency: 'BRL',
          buyer: {
            email: 'ana@example.com',
            name: 'Ana Souza',
            taxId: '529.982.247-25',
            address: { ...address, line1 },
          },
          dueDate: '2026-01-20',
        },
        `boleto-${line1}`,
      );
      expect((sent.at(-1)!.body as { payer: unknown }).payer).toEqual({
        email: 'ana@example.com',
        first_name: 'Ana',
        last_name: 'Souza',
        identification: { type: 'CPF', number: '52998224725' },
        address: {
          zip_code: '01310200',
          street_name: street,
          street_number: number,
          neighborhood,
          city: 'São Paulo',
          federal_unit: 'SP',
        },
      });
    }
  });

  it('reads a lapsed boleto as failed and overdue', async () => {
    const lapsed = { ...fixture('payment-boleto-pending'), status: 'cancelled', status_detail: 'expired' };
    answer('GET', '/v1/payments/1316782471', 200, lapsed);
    expect(await gateway().getTransaction('1316782471')).toMatchObject({ status: 'failed', declineReason: 'overdue' });
  });
});

describe('amounts on the wire', () => {
  it('the SDK sends every amount as its exact decimal of reais, and the answer maps back to the cents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1_000_000_000 }), async (cents) => {
        sent.length = 0;
        const reais = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
        const answered = fixture('payment-pix-pending');
        answered.transaction_amount = Number(reais);
        answered.transaction_details = { total_paid_amount: Number(reais) };
        answer('POST', '/v1/payments', 201, answered);
        const t = await gateway().createPixCharge(
          // A pix carries the payer's e-mail (decision 0066: refused before the call without one).
          { reference: 'r', amount: cents, currency: 'BRL', buyer: { email: 'r@example.com' }, expiresInSeconds: 60 },
          `k-${cents}`,
        );
        const raw = /"transaction_amount":([0-9.]+)/.exec(sent[0]!.raw ?? '')?.[1];
        expect(raw).toBe(reais.replace(/\.?0+$/, ''));
        expect(t.amount).toBe(cents);
        expect(t.baseAmount).toBe(cents);
      }),
      { numRuns: 300 },
    );
  });
});

describe('GATEWAY=mercadopago', () => {
  it('makes createGateway return the Mercado Pago adapter', async () => {
    const config = loadConfig(
      { JWT_SECRET: 'x'.repeat(32), GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-123' },
      'worker',
    );
    expect(await createGateway(config, null as unknown as Orm)).toBeInstanceOf(MercadoPagoGateway);
  });
});
