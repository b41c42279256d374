import { describe, expect, it } from '@jest/globals';
import { mandateRequestRequires, offersPixAutomatico } from '../../gateway/capabilities.ts';
import { GatewayError } from '../../gateway/port.ts';
import { efiGateway, fixture, mockEfi, PIX_KEY } from './efi-transport.ts';

/** Pix Automático through Efí (the BCB's rec, locrec, cobr) over a mocked transport. */
const efi = mockEfi();
const ID_REC = 'RR1234567820260110abcdefghijk';
/** BCB txids: 26–35 letters and digits. */
const C1 = 'c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1';
const FIRST = 'f1rstf1rstf1rstf1rstf1rstf1rst';
const E2 = 'E12345678202603110800abcdef12346';

const mandate = {
  reference: 'sub_123',
  objectLabel: 'Plano Pro mensal',
  debtor: { name: 'Maria da Silva', taxId: '191.191.191-00' },
  startDate: '2026-02-10',
  endDate: null,
  periodicity: 'monthly' as const,
  fixedAmount: 4990,
  minimumAmount: null,
  retryPolicy: 'three_in_seven_days' as const,
  journey: 'journey_2' as const,
};

describe('Efí mandates (rec)', () => {
  it('is offered as Pix Automático by the methods it has', () => {
    expect(offersPixAutomatico(efiGateway())).toBe(true);
  });

  it('journey 2: a locrec, then the rec on it in BCB words, and the QR code read back', async () => {
    efi.answer('GET', '/v2/rec', 200, { recs: [] });
    efi.answer('POST', '/v2/locrec', 201, fixture('locrec'));
    efi.answer('POST', '/v2/rec', 201, fixture('rec-created'));
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, fixture('rec-detail-qr'));
    const m = await efiGateway().createMandate(mandate, 'subscription:sub_123:mandate');

    expect(efi.sent[0]!.query).toMatchObject({ cpf: '19119119100' });
    expect(efi.sent[2]!.body).toEqual({
      vinculo: {
        contrato: 'sub_123',
        devedor: { cpf: '19119119100', nome: 'Maria da Silva' },
        objeto: 'Plano Pro mensal',
      },
      calendario: { dataInicial: '2026-02-10', periodicidade: 'MENSAL' },
      valor: { valorRec: '49.90' },
      politicaRetentativa: 'PERMITE_3R_7D',
      loc: 1234,
    });
    expect(m).toMatchObject({
      id: ID_REC,
      reference: 'sub_123',
      status: 'created',
      journey: 'pending',
      periodicity: 'monthly',
      fixedAmount: 4990,
      minimumAmount: null,
      retryPolicy: 'three_in_seven_days',
      qrCode: (fixture('rec-detail-qr') as { dadosQR: { pixCopiaECola: string } }).dadosQR.pixCopiaECola,
    });
  });

  it('a retry after a lost answer finds the rec by its contract and makes no second one', async () => {
    efi.answer('GET', '/v2/rec', 200, { recs: [fixture('rec-created')] });
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, fixture('rec-detail-qr'));
    const m = await efiGateway().createMandate(mandate, 'subscription:sub_123:mandate');
    expect(efi.sent.map((s) => s.method)).toEqual(['GET', 'GET']);
    expect(m.id).toBe(ID_REC);
  });

  it('journey 3: an immediate cob pays the first period and the rec names its txid for the composite QR', async () => {
    efi.answer('GET', '/v2/rec', 200, { recs: [] });
    efi.answer('GET', /^\/v2\/cob\//, 404, fixture('error-cob-not-found'));
    efi.answer('PUT', /^\/v2\/cob\//, 201, fixture('cob-active', { TXID: 'first' }));
    efi.answer('POST', '/v2/locrec', 201, fixture('locrec'));
    efi.answer('POST', '/v2/rec', 201, fixture('rec-created'));
    const withTxid = {
      ...fixture('rec-created'),
      ativacao: { tipoJornada: 'AGUARDANDO_DEFINICAO', dadosJornada: { txid: FIRST } },
    };
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, withTxid);
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, {
      ...withTxid,
      dadosQR: { jornada: 'JORNADA_3', pixCopiaECola: 'composite' },
    });
    const m = await efiGateway().createMandate(
      { ...mandate, journey: 'journey_3', firstCharge: { amount: 4990, expiresInSeconds: 3600 } },
      'subscription:sub_123:mandate',
    );
    const cob = efi.sent[2]!;
    const txid = cob.path.slice('/v2/cob/'.length);
    expect(cob.body).toMatchObject({ valor: { original: '49.90' }, chave: PIX_KEY, calendario: { expiracao: 3600 } });
    expect(efi.sent[4]!.body).toMatchObject({ ativacao: { dadosJornada: { txid } } });
    expect(efi.sent[6]!.query).toEqual({ txid: FIRST });
    expect(m.qrCode).toBe('composite');
  });

  const journey1 = {
    ...mandate,
    journey: 'journey_1' as const,
    requestExpiresAt: '2026-01-17T13:00:10.000Z',
    payerAccount: { ispb: '91193552', agency: '2569', account: '550689' },
  };

  it('says it needs the payer’s account for journey 1, and refuses one without it before any call', async () => {
    expect(mandateRequestRequires(efiGateway(), 'payer_account')).toBe(true);
    const refused = await efiGateway()
      .createMandate({ ...journey1, payerAccount: null }, 'k')
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ retryable: false, message: expect.stringMatching(/ISPB, agency and account/) });
    expect(efi.sent).toEqual([]);
  });

  it('journey 1: a rec without a location, then its solicrec to the payer’s account, read back with the request', async () => {
    efi.answer('GET', '/v2/rec', 200, { recs: [] });
    efi.answer('POST', '/v2/rec', 201, fixture('rec-journey1-created'));
    efi.answer('POST', '/v2/solicrec', 201, fixture('solicrec-created'));
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, fixture('rec-journey1-sent'));
    const m = await efiGateway().createMandate(journey1, 'mandate:m1:create');

    const [, rec, solicrec] = efi.sent;
    expect(rec!.body).not.toHaveProperty('loc');
    expect(rec!.body).toMatchObject({ vinculo: { contrato: 'sub_123' }, valor: { valorRec: '49.90' } });
    // The BCB's SolicRecSolicitada as Efí's SDK takes it: the account held by the debtor's CPF.
    expect(solicrec!.body).toEqual({
      idRec: ID_REC,
      calendario: { dataExpiracaoSolicitacao: '2026-01-17T13:00:10.000Z' },
      destinatario: { agencia: '2569', conta: '550689', cpf: '19119119100', ispbParticipante: '91193552' },
    });
    expect(m).toMatchObject({
      id: ID_REC,
      status: 'created',
      qrCode: null,
      request: { id: 'SC090893562026011000000000001', status: 'sent', expiresAt: '2026-01-17T13:00:10.000Z' },
    });
  });

  it('journey 1 retried after a lost answer: the rec found by its contract, its request not sent twice', async () => {
    efi.answer('GET', '/v2/rec', 200, { recs: [fixture('rec-journey1-created')] });
    efi.answer('POST', '/v2/solicrec', 400, fixture('error-solicrec-exists'));
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, fixture('rec-journey1-sent'));
    const m = await efiGateway().createMandate(journey1, 'mandate:m1:create');
    expect(efi.sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /v2/rec',
      'POST /v2/solicrec',
      `GET /v2/rec/${ID_REC}`,
    ]);
    expect(m.request).toMatchObject({ id: 'SC090893562026011000000000001' });

    efi.answer('GET', '/v2/rec', 200, { recs: [fixture('rec-journey1-sent')] });
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, fixture('rec-journey1-sent'));
    await efiGateway().createMandate(journey1, 'mandate:m1:create');
    expect(efi.sent.slice(3).map((s) => s.method)).toEqual(['GET', 'GET']);
  });

  it('journey 4 is not offered on Efí yet (decision 0100): refused before any call, not retryable', async () => {
    const dueCharge = { amount: 4_990, dueDate: '2026-03-10', daysPayableAfterDue: 3 };
    const sentBefore = efi.sent.length;
    await expect(
      efiGateway().createMandate({ ...mandate, journey: 'journey_4', dueCharge }, 'k'),
    ).rejects.toMatchObject({ retryable: false, message: expect.stringContaining('journey 4') });
    expect(efi.sent.length).toBe(sentBefore);
  });

  it('cancels with status CANCELADA; a cancelled one is returned as it is', async () => {
    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, { ...fixture('rec-created'), status: 'APROVADA' });
    efi.answer('PATCH', `/v2/rec/${ID_REC}`, 200, fixture('rec-cancelled'));
    const m = await efiGateway().cancelMandate(ID_REC);
    expect(efi.sent[1]!.body).toEqual({ status: 'CANCELADA' });
    expect(m).toMatchObject({
      status: 'cancelled',
      journey: 'journey_2',
      cancellation: { code: 'SLCR', by: 'receiver' },
      qrCode: null,
    });
    expect(m.history.map((h) => h.status)).toEqual(['created', 'approved', 'cancelled']);

    efi.answer('GET', `/v2/rec/${ID_REC}`, 200, fixture('rec-cancelled'));
    await efiGateway().cancelMandate(ID_REC);
    expect(efi.sent.at(-1)!.method).toBe('GET');
  });
});

const charge = { mandateId: ID_REC, reference: 'sub_123:period:2', dueDate: '2026-03-10', amount: 4990 };

describe('Efí mandate charges (cobr)', () => {
  it('PUTs the cobr under a txid derived from the reference, naming the receiving account', async () => {
    efi.answer('GET', /^\/v2\/cobr\//, 404, {
      ...fixture('error-cob-not-found'),
      type: 'https://pix.bcb.gov.br/api/v2/error/CobRNaoEncontrada',
    });
    efi.answer('PUT', /^\/v2\/cobr\//, 201, fixture('cobr-created', { TXID: C1 }));
    const c = await efiGateway().createMandateCharge(charge, 'subscription:sub_123:period:2:mandate-charge');
    const put = efi.sent[1]!;
    expect(put.path).toMatch(/^\/v2\/cobr\/[a-zA-Z0-9]{26,35}$/);
    expect(put.path).toBe(efi.sent[0]!.path);
    expect(put.body).toEqual({
      idRec: ID_REC,
      infoAdicional: 'sub_123:period:2',
      calendario: { dataDeVencimento: '2026-03-10' },
      valor: { original: '49.90' },
      ajusteDiaUtil: true,
      recebedor: { conta: '1234567', tipoConta: 'PAGAMENTO', agencia: '0001' },
    });
    expect(c).toMatchObject({
      id: C1,
      mandateId: ID_REC,
      reference: 'sub_123:period:2',
      amount: 4990,
      status: 'created',
    });
  });

  it('a second call for the same reference reads the first cobr and makes none', async () => {
    efi.answer('GET', /^\/v2\/cobr\//, 200, fixture('cobr-created', { TXID: C1 }));
    const c = await efiGateway().createMandateCharge(charge, 'another key, same cycle');
    expect(efi.sent.map((s) => s.method)).toEqual(['GET']);
    expect(c.id).toBe(C1);
  });

  it('reads a rejected attempt with its code, and asks a retry for a date once', async () => {
    efi.answer('GET', `/v2/cobr/${C1}`, 200, fixture('cobr-attempt-failed', { TXID: C1 }));
    efi.answer('POST', `/v2/cobr/${C1}/retentativa/2026-03-11`, 200, {
      ...fixture('cobr-attempt-failed', { TXID: C1 }),
      tentativas: [
        ...(fixture('cobr-attempt-failed') as { tentativas: object[] }).tentativas,
        { dataLiquidacao: '2026-03-11', tipo: 'RIFL', status: 'SOLICITADA', endToEndId: E2, atualizacao: [] },
      ],
    });
    const retried = await efiGateway().retryMandateCharge(C1, '2026-03-11', 'retry:1');
    expect(retried.attempts.map((a) => [a.kind, a.status, a.rejection?.code ?? null])).toEqual([
      ['scheduled', 'rejected', 'AM02'],
      ['retry', 'requested', null],
    ]);
    expect(retried.status).toBe('active');

    efi.answer('GET', `/v2/cobr/${C1}`, 200, {
      ...fixture('cobr-attempt-failed', { TXID: C1 }),
      tentativas: [
        { dataLiquidacao: '2026-03-11', tipo: 'RIFL', status: 'SOLICITADA', endToEndId: E2, atualizacao: [] },
      ],
    });
    await efiGateway().retryMandateCharge(C1, '2026-03-11', 'retry:1');
    expect(efi.sent.at(-1)!.method).toBe('GET');
  });

  it('cancels an unpaid cobr; a paid one is refused without asking', async () => {
    efi.answer('GET', `/v2/cobr/${C1}`, 200, fixture('cobr-created', { TXID: C1 }));
    efi.answer('PATCH', `/v2/cobr/${C1}`, 200, { ...fixture('cobr-created', { TXID: C1 }), status: 'CANCELADA' });
    expect((await efiGateway().cancelMandateCharge(C1, 'k')).status).toBe('cancelled');
    expect(efi.sent[1]!.body).toEqual({ status: 'CANCELADA' });

    efi.answer('GET', `/v2/cobr/${C1}`, 200, { ...fixture('cobr-created', { TXID: C1 }), status: 'CONCLUIDA' });
    await expect(efiGateway().cancelMandateCharge(C1, 'k')).rejects.toMatchObject({ retryable: false });
  });
});
