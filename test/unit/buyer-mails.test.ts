import { describe, expect, it } from '@jest/globals';
import { buyerAddress, buyerMailKind, buyerMailMessageId, renderBuyerMail } from '../../domain/buyer-mails.ts';
import { brandOf } from '../../domain/branding.ts';
import { brandedMailHtml, NEUTRAL_COLOR } from '../../mailer/html-layout.ts';

const sale = {
  id: 'sale-1',
  amount: 89_900,
  installments: 12,
  installment_amount: 9_026,
  total_amount: 108_312,
  currency: 'BRL',
  payment_method: 'credit_card',
  customer: { id: 'c-1', email: 'ana@example.com', name: 'Ana' },
  product: { id: 'p-1', name: 'Curso de violão' },
  created_at: '2026-03-02T12:00:00.000Z',
};
const pending = (payment: Record<string, unknown>) => ({
  status: 'confirmed',
  amount: 89_900,
  currency: 'BRL',
  customer_email: 'ana@example.com',
  gateway_payment_data: { transaction_id: 't-1', status: 'pending', ...payment },
});
const pix = { pix: { qr_code: '00020126PIXCODE', expires_at: '2026-03-02T13:00:00.000Z' } };
const boleto = {
  boleto: { digitable_line: '23790.12345 6', barcode: '2379123', due_date: '2026-03-05', url: 'https://b.example/1' },
};

describe('buyer mails', () => {
  it('are a receipt per paid sale and the instructions of a confirmed checkout showing a pending pix or boleto', () => {
    expect(buyerMailKind('sale.paid', sale)).toBe('receipt');
    expect(buyerMailKind('sale.created', sale)).toBeNull();
    expect(buyerMailKind('checkout.updated', pending(pix))).toBe('payment_instructions');
    expect(buyerMailKind('checkout.updated', pending(boleto))).toBe('payment_instructions');
    expect(buyerMailKind('checkout.updated', { ...pending(pix), status: 'succeeded' })).toBeNull();
    expect(buyerMailKind('checkout.updated', pending({}))).toBeNull();
    expect(buyerAddress('sale.paid', sale)).toBe('ana@example.com');
    expect(buyerAddress('checkout.updated', pending(pix))).toBe('ana@example.com');
  });

  it('tell a card in 12 instalments: each one, the count and the total with interest', () => {
    const { subject, text } = renderBuyerMail({
      kind: 'receipt',
      organizationName: 'Loja da Ana',
      data: sale,
      productName: null,
      customerName: 'Ana',
    });
    expect(subject).toBe('Recibo da sua compra em Loja da Ana: Curso de violão');
    expect(text).toContain('Pago: R$ 1.083,12 no cartão de crédito em 12x de R$ 90,26 (total com juros)\n');
    expect(text).toContain('Data: 02/03/2026, 09:00\n');
  });

  it('give the pix code and its expiry, or the boleto line, barcode, due date and link', () => {
    const facts = { organizationName: 'Loja', productName: 'Curso', customerName: null } as const;
    const p = renderBuyerMail({ ...facts, kind: 'payment_instructions', data: pending(pix) });
    expect(p.text).toContain('Para pagar R$ 899,00 com Pix');
    expect(p.text).toContain('\n00020126PIXCODE\n');
    expect(p.text).toContain('O código vale até 02/03/2026, 10:00.');
    const b = renderBuyerMail({ ...facts, kind: 'payment_instructions', data: pending(boleto) });
    expect(b.text).toContain('\n23790.12345 6\n');
    expect(b.text).toContain('Código de barras: 2379123\nVencimento: 05/03/2026\nBoleto: https://b.example/1\n');
  });

  it('carry a Message-ID of the event', () => {
    expect(buyerMailMessageId('receipt', 'e-1', 'Loja <billing@loja.example>')).toBe('<receipt.e-1@loja.example>');
    expect(buyerMailMessageId('payment_instructions', 'e-1', 'x@y.example')).toBe('<payment.e-1@y.example>');
  });
});

describe('the HTML part of a buyer mail (decision 0094)', () => {
  const facts = { organizationName: 'Loja', productName: 'Curso', customerName: null } as const;
  const brand = (profile: Record<string, unknown> | null, logoUrl: string | null = null) => ({
    name: 'Loja <da> Ana',
    ...brandOf(profile),
    logoUrl,
  });

  it('says what the text part says, under a header in the brand’s colour with the ink that reads on it', () => {
    const mail = renderBuyerMail({ ...facts, kind: 'payment_instructions', data: pending(boleto) });
    const html = brandedMailHtml({
      ...mail,
      brand: brand({ brand_color: '#FFEB3B' }, 'https://x.example/brand/logos/o'),
    });
    expect(html).toContain('bgcolor="#ffeb3b" style="background:#ffeb3b;padding:16px 24px;"');
    expect(html).toContain('color:#000000;font-size:20px;font-weight:bold;">Loja &lt;da&gt; Ana</td>');
    expect(html).toContain('<img src="https://x.example/brand/logos/o" alt=""');
    expect(html).toContain('>23790.12345 6</p>');
    expect(html).toContain('>Código de barras</th>');
    expect(html).toContain('>05/03/2026</td>');
    // The boleto's link is a button in the brand's colour.
    expect(html).toContain(
      '<td bgcolor="#ffeb3b" style="background:#ffeb3b;border-radius:4px;"><a href="https://b.example/1" style="font-family:Arial,Helvetica,sans-serif;display:inline-block;padding:12px 20px;color:#000000;',
    );
    expect(html).toContain('>Abrir o boleto</a>');
    expect(html).toContain(
      '<p style="margin:0 0 16px;">Assim que o pagamento for confirmado, enviaremos o recibo.</p>',
    );
  });

  it('links nothing but the web, and falls back to a neutral colour without a brand', () => {
    const hostile = { ...boleto.boleto, url: 'javascript:alert(1)' };
    const mail = renderBuyerMail({ ...facts, kind: 'payment_instructions', data: pending({ boleto: hostile }) });
    const html = brandedMailHtml({ ...mail, brand: brand(null, 'javascript:alert(2)') });
    expect(html).not.toContain('<a ');
    expect(html).not.toContain('<img');
    expect(html).toContain('>javascript:alert(1)</td>');
    expect(html).toContain(`background:${NEUTRAL_COLOR};`);
    expect(html).toContain('color:#ffffff;font-size:20px');
  });
});
