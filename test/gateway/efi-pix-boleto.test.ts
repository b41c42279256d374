import { describe, expect, it } from '@jest/globals';
import { EfiGatewayError } from '../../gateway/efi-adapter.ts';
import { GatewayError } from '../../gateway/port.ts';
import { efiGateway, fixture, mockEfi, PIX_KEY } from './efi-transport.ts';

/** Pix (cob) and boleto (charges API) through Efí's SDK over a mocked transport: what we send, what we read. */
const efi = mockEfi();
const BCB_TXID = /^[a-zA-Z0-9]{26,35}$/;

const pixInput = {
  reference: 'chk_pix',
  amount: 12345,
  currency: 'BRL',
  buyer: { email: 'maria@example.com', name: 'Maria da Silva', taxId: '191.191.191-00' },
  expiresInSeconds: 1800,
};

describe('Efí pix', () => {
  it('makes a cob under a txid derived from the key, the amount in reais, and maps its QR code', async () => {
    efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
    efi.answer('PUT', /^\/v2\/cob\//, 201, fixture('cob-active', { TXID: 'will-be-checked' }));
    efi.answer('GET', '/v2/loc/789/qrcode', 200, fixture('qrcode'));
    const t = await efiGateway().createPixCharge(pixInput, 'checkout:chk_pix:pix');

    const [lookup, put, qr] = efi.sent;
    expect(lookup!.host).toBe('pix-h.api.efipay.com.br');
    const txid = put!.path.slice('/v2/cob/'.length);
    expect(txid).toMatch(BCB_TXID);
    expect(txid).not.toMatch(/^\d+$/);
    expect(lookup!.path).toBe(`/v2/cob/${txid}`);
    expect(put!.headers.authorization).toBe('Bearer test-token');
    expect(put!.body).toEqual({
      calendario: { expiracao: 1800 },
      devedor: { cpf: '19119119100', nome: 'Maria da Silva' },
      valor: { original: '123.45' },
      chave: PIX_KEY,
      infoAdicionais: [{ nome: 'referencia', valor: 'chk_pix' }],
    });
    expect(qr!.path).toBe('/v2/loc/789/qrcode');
    const code = fixture('qrcode') as { qrcode: string; imagemQrcode: string };
    expect(t).toMatchObject({
      reference: 'chk_pix',
      status: 'pending',
      paymentType: 'pix',
      amount: 12345,
      capturedAmount: 0,
      card: null,
      boleto: null,
      pix: { qrCode: code.qrcode, qrCodeImage: code.imagemQrcode, expiresAt: '2026-01-10T13:30:00.000Z' },
    });
  });

  it('writes amounts as BCB decimals: cents that end in zero, and under a real', async () => {
    for (const [cents, text] of [
      [10, '0.10'],
      [100, '1.00'],
      [5, '0.05'],
      [1999999, '19999.99'],
    ] as const) {
      efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
      efi.answer('PUT', /^\/v2\/cob\//, 201, fixture('cob-active', { TXID: 'x', '"123.45"': `"${text}"` }));
      efi.answer('GET', '/v2/loc/789/qrcode', 200, fixture('qrcode'));
      const t = await efiGateway().createPixCharge({ ...pixInput, amount: cents }, `key-${cents}`);
      expect(efi.sent.at(-2)!.body!.valor).toEqual({ original: text });
      expect(t.amount).toBe(cents);
    }
  });

  it('a retry after a lost answer finds the cob the first call made, and makes no second one', async () => {
    efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
    efi.dropConnection('PUT', /^\/v2\/cob\//);
    const gateway = efiGateway();
    const lost = await gateway.createPixCharge(pixInput, 'checkout:chk_pix:pix').catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(GatewayError);
    expect((lost as GatewayError).retryable).toBe(true);
    const firstTxid = efi.sent[1]!.path;

    efi.answer('GET', /^\/v2\/cob\//, 200, fixture('cob-active', { TXID: 'the-first' }));
    efi.answer('GET', '/v2/loc/789/qrcode', 200, fixture('qrcode'));
    const found = await gateway.createPixCharge(pixInput, 'checkout:chk_pix:pix');
    expect(efi.sent[2]!.path).toBe(firstTxid);
    expect(efi.sent.filter((s) => s.method === 'PUT')).toHaveLength(1);
    expect(found.id).toBe('the-first');
  });

  it('a PUT refused because its txid is in use reads the cob that txid made', async () => {
    efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
    efi.answer('PUT', /^\/v2\/cob\//, 400, fixture('error-txid-in-use'));
    efi.answer('GET', /^\/v2\/cob\//, 200, fixture('cob-active', { TXID: 'made-meanwhile' }));
    efi.answer('GET', '/v2/loc/789/qrcode', 200, fixture('qrcode'));
    expect((await efiGateway().createPixCharge(pixInput, 'k')).id).toBe('made-meanwhile');
  });

  it('refuses outright (not retryable) what Efí refuses with a 4xx, and retries 5xx and silence', async () => {
    efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
    efi.answer('PUT', /^\/v2\/cob\//, 400, fixture('error-cob-invalid'));
    efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
    const refused = (await efiGateway()
      .createPixCharge(pixInput, 'k')
      .catch((e: unknown) => e)) as EfiGatewayError;
    expect(refused).toBeInstanceOf(EfiGatewayError);
    expect(refused.retryable).toBe(false);
    expect(refused.status).toBe(400);

    efi.answer('GET', /^\/v2\/cob\//, 503, '<html>Service Unavailable</html>');
    const down = (await efiGateway()
      .createPixCharge(pixInput, 'k')
      .catch((e: unknown) => e)) as EfiGatewayError;
    expect(down.retryable).toBe(true);

    efi.hang('GET', /^\/v2\/cob\//);
    const silent = (await efiGateway({ timeoutMs: 200 })
      .createPixCharge(pixInput, 'k')
      .catch((e: unknown) => e)) as EfiGatewayError;
    expect(silent.retryable).toBe(true);
    expect(silent.message).toContain('no answer');
  });

  it('reads a paid cob as succeeded, and a refunded part as partial_refunded', async () => {
    efi.answer('GET', '/v2/cob/abc', 200, fixture('cob-paid', { TXID: 'abc' }));
    expect(await efiGateway().getTransaction('abc')).toMatchObject({
      id: 'abc',
      status: 'succeeded',
      capturedAmount: 12345,
      refundedAmount: 0,
      confirmedAt: '2026-01-10T13:05:00.000Z',
    });
    const partly = fixture('cob-paid', { TXID: 'abc' }) as { pix: { devolucoes: object[] }[] };
    partly.pix[0]!.devolucoes = [{ id: 'd1', rtrId: 'D1', valor: '23.45', status: 'DEVOLVIDO', horario: {} }];
    efi.answer('GET', '/v2/cob/abc', 200, partly);
    expect(await efiGateway().getTransaction('abc')).toMatchObject({
      status: 'partial_refunded',
      refundedAmount: 2345,
      refunds: [{ id: 'd1', amount: 2345 }],
    });
  });

  it('a cob past its expiry, still ATIVA at the BCB, is failed (expired); an unknown one null', async () => {
    const stale = fixture('cob-active', { TXID: 'old', '2026-01-10T13:00:00.000Z': '2026-01-10T12:00:00.000Z' });
    efi.answer('GET', '/v2/cob/old', 200, stale);
    efi.answer('GET', '/v2/loc/789/qrcode', 200, fixture('qrcode'));
    expect(await efiGateway().getTransaction('old')).toMatchObject({ status: 'failed', declineReason: 'expired' });
    efi.answer('GET', '/v2/cob/none', 404, fixture('error-cob-not-found'));
    expect(await efiGateway().getTransaction('none')).toBeNull();
  });

  it('refunds a paid pix with a devolução whose id the key derives, asked once however often retried', async () => {
    efi.answer('GET', '/v2/cob/abc', 200, fixture('cob-paid', { TXID: 'abc' }));
    efi.answer('PUT', /^\/v2\/pix\/E12345678202601101305abcdef12345\/devolucao\//, 201, {
      id: 'x',
      rtrId: 'D1',
      valor: '20.00',
      status: 'EM_PROCESSAMENTO',
      horario: { solicitacao: '2026-01-10T14:00:00.000Z' },
    });
    const refunded = fixture('cob-paid', { TXID: 'abc' }) as { pix: { devolucoes: object[] }[] };
    efi.answer('GET', '/v2/cob/abc', 200, refunded);
    await efiGateway().refund('abc', 2000, 'refund:r1');
    const devolution = efi.sent[1]!;
    expect(devolution.body).toEqual({ valor: '20.00' });
    const id = devolution.path.split('/').at(-1)!;
    expect(id).toMatch(/^[a-zA-Z0-9]{1,35}$/);

    // The retry finds the devolução its key asked for on the pix, and asks nothing again.
    refunded.pix[0]!.devolucoes = [{ id, rtrId: 'D1', valor: '20.00', status: 'EM_PROCESSAMENTO', horario: {} }];
    efi.answer('GET', '/v2/cob/abc', 200, refunded);
    efi.answer('GET', '/v2/cob/abc', 200, refunded);
    const again = await efiGateway().refund('abc', 2000, 'refund:r1');
    expect(efi.sent.slice(3).map((s) => s.method)).toEqual(['GET', 'GET']);
    expect(again).toMatchObject({ status: 'partial_refunded', refundedAmount: 2000 });
  });

  it('cancels a pending pix by removing its cob', async () => {
    efi.answer('GET', '/v2/cob/abc', 200, fixture('cob-active', { TXID: 'abc' }));
    efi.answer('GET', '/v2/loc/789/qrcode', 200, fixture('qrcode'));
    efi.answer('PATCH', '/v2/cob/abc', 200, {});
    efi.answer(
      'GET',
      '/v2/cob/abc',
      200,
      fixture('cob-active', { TXID: 'abc', '"ATIVA"': '"REMOVIDA_PELO_USUARIO_RECEBEDOR"' }),
    );
    const t = await efiGateway().cancel('abc');
    expect(efi.sent[2]!.body).toEqual({ status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    expect(t.status).toBe('canceled');
  });
});

const boletoInput = {
  reference: 'chk_bol',
  amount: 12345,
  currency: 'BRL',
  buyer: { email: 'maria@example.com', name: 'Maria da Silva', taxId: '191.191.191-00' },
  dueDate: '2026-01-20',
  sale: { items: [{ id: 'p1', title: 'Plano Pro', quantity: 1, unitPrice: 12345 }] },
};

describe('Efí boleto', () => {
  it('issues a banking_billet in cents with the key as custom_id, after finding none under it', async () => {
    efi.answer('GET', '/v1/charges', 200, fixture('charges-list-empty'));
    efi.answer('POST', '/v1/charge/one-step', 200, fixture('charge-one-step-billet'));
    const t = await efiGateway().createBoleto(boletoInput, 'checkout:chk_bol:boleto');
    const [list, create] = efi.sent;
    expect(list!.host).toBe('cobrancas-h.api.efipay.com.br');
    expect(list!.query).toMatchObject({ charge_type: 'billet', custom_id: 'checkout:chk_bol:boleto' });
    expect(create!.body).toEqual({
      items: [{ name: 'Plano Pro', value: 12345, amount: 1 }],
      metadata: {
        custom_id: 'checkout:chk_bol:boleto',
        notification_url: 'https://billing.example.com/api/v1/gateway/efi/notifications?hmac=s&kind=charge&ignorar=',
      },
      payment: {
        banking_billet: {
          customer: { name: 'Maria da Silva', cpf: '19119119100', email: 'maria@example.com' },
          expire_at: '2026-01-20',
          message: 'chk_bol',
        },
      },
    });
    expect(t).toMatchObject({
      id: '674329',
      status: 'pending',
      paymentType: 'boleto',
      amount: 12345,
      boleto: {
        digitableLine: '36490.00019 00000.000003 12345.678900 1 13450000012345',
        // FEBRABAN: bank+currency, check digit, due factor+amount, then the fields' free digits.
        barcode: '36491134500000123450000100000000001234567890',
        dueDate: '2026-01-20',
        url: 'https://download.gerencianet.com.br/59808_79_FORAA2/A4XB-59808-74356-HIMA5.pdf',
      },
    });
  });

  it('a retry finds the boleto its key made, and issues none again', async () => {
    efi.answer('GET', '/v1/charges', 200, {
      code: 200,
      data: [{ charge_id: 674329, custom_id: 'k1', status: 'waiting', total: 12345 }],
    });
    efi.answer('GET', '/v1/charge/674329', 200, fixture('charge-detail-billet-paid', { KEY: 'k1' }));
    const t = await efiGateway().createBoleto(boletoInput, 'k1');
    expect(efi.sent.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /v1/charges', 'GET /v1/charge/674329']);
    expect(t).toMatchObject({ id: '674329', status: 'succeeded', capturedAmount: 12345, reference: 'k1' });
  });

  it("refuses a boleto without the payer's CPF or CNPJ before calling Efí", async () => {
    const noTaxId = { ...boletoInput, buyer: { email: 'maria@example.com', name: 'Maria' } };
    await expect(efiGateway().createBoleto(noTaxId, 'k')).rejects.toMatchObject({ retryable: false });
    expect(efi.sent).toEqual([]);
  });

  it('does not refund a boleto through the API (a definite refusal)', async () => {
    await expect(efiGateway().refund('674329', 100, 'k')).rejects.toMatchObject({ retryable: false });
  });
});

describe('Efí lookups by key and ledger', () => {
  it('finds by key the cob its txid names, else the boleto, else nothing', async () => {
    efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
    efi.answer('GET', '/v1/charges', 200, fixture('charges-list-empty'));
    expect(await efiGateway().findTransactionByIdempotencyKey('never')).toBeNull();
  });

  const DAY = { from: new Date('2026-01-10T00:00:00.000Z'), to: new Date('2026-01-11T00:00:00.000Z') };

  it('reads the pix received in a window as gross payments and the devoluções that left', async () => {
    efi.answer('GET', '/v2/pix', 200, fixture('pix-received'));
    efi.answer('GET', '/v1/charges', 200, fixture('charges-list-empty'));
    const rows = await efiGateway().ledger(DAY);
    expect(efi.sent[0]!.query).toMatchObject({ inicio: '2026-01-10T00:00:00.000Z', fim: '2026-01-11T00:00:00.000Z' });
    expect(rows).toEqual([
      { kind: 'payment', gatewayId: 'e0123456789abcdef0123456789abcdef0', reference: null, amount: 12345 },
      { kind: 'refund', gatewayId: 'e0123456789abcdef0123456789abcdef0', reference: null, amount: -2000 },
      { kind: 'payment', gatewayId: 'E98765432202601101800abcdef12345', reference: null, amount: 1000 },
    ]);
  });

  it('reads the boletos paid in the window beside the pix: what was paid, keyed by the charge_id', async () => {
    efi.answer('GET', '/v2/pix', 200, { ...fixture('pix-received'), pix: [] });
    efi.answer('GET', '/v1/charges', 200, fixture('charges-list-billets-paid'));
    const rows = await efiGateway().ledger(DAY);
    // By date of payment, over the Brasília days the UTC day touches (21:00 the day before to 21:00).
    expect(efi.sent[1]).toMatchObject({
      host: 'cobrancas-h.api.efipay.com.br',
      path: '/v1/charges',
      query: {
        charge_type: 'billet',
        date_of: 'payment',
        begin_date: '2026-01-09',
        end_date: '2026-01-10',
        limit: 1000,
        page: 1,
      },
    });
    expect(rows).toEqual([
      {
        kind: 'payment',
        gatewayId: '674329',
        reference: null,
        amount: 12345,
        status: 'paid',
        releaseDate: '2026-01-12T03:00:00.000Z',
      },
      // Paid late: the fine is in what was paid.
      {
        kind: 'payment',
        gatewayId: '674330',
        reference: null,
        amount: 5150,
        status: 'paid',
        releaseDate: '2026-01-13T03:00:00.000Z',
      },
      // 674331 was marked paid by hand (settled: no money at Efí); 674332 was paid after the day's end.
    ]);
  });

  it('reads the paid boletos page by page until a short page', async () => {
    const paid = (fixture('charges-list-billets-paid') as { data: Record<string, unknown>[] }).data[0]!;
    const full = Array.from({ length: 1000 }, (_, i) => ({ ...paid, id: 700000 + i }));
    efi.answer('GET', '/v2/pix', 200, { ...fixture('pix-received'), pix: [] });
    efi.answer('GET', '/v1/charges', 200, { code: 200, data: full });
    efi.answer('GET', '/v1/charges', 200, { code: 200, data: [{ ...paid, id: 800000 }] });
    const rows = await efiGateway().ledger(DAY);
    expect(efi.sent.slice(1).map((s) => s.query.page)).toEqual([1, 2]);
    expect(rows).toHaveLength(1001);
    expect(rows.at(-1)).toMatchObject({ gatewayId: '800000', amount: 12345 });
  });

  it('a charges API that does not answer leaves the ledger unread (retryable), not short of its boletos', async () => {
    efi.answer('GET', '/v2/pix', 200, fixture('pix-received'));
    efi.dropConnection('GET', '/v1/charges');
    const failed = await efiGateway()
      .ledger(DAY)
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(GatewayError);
    expect((failed as GatewayError).retryable).toBe(true);
  });
});
