import { describe, expect, it } from '@jest/globals';
import { bcbDevolucaoIdOf } from '../../gateway/bcb-pix-automatico-words.ts';
import { efiGateway, fixture, mockEfi } from './efi-transport.ts';

/**
 * A paid cobr's refund through Efí (decision 0099), over the mocked transport: the cobr read for its
 * paid attempt's end-to-end id, then that pix's devolução through the SDK (pixDetailDevolution, then
 * pixDevolution when Efí has none), its id formed from our key. Fixtures: Efí's "API Pix › Pix
 * Automático" cobr and "API Pix › Devolução" answer (the BCB's CobRCompleta and Devolucao).
 */
const efi = mockEfi();
const C1 = 'c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1';
const E2E = 'E12345678202603100800abcdef12345';
const KEY = 'refund:01a2283c-1782-780a-8aed-d811a5ac1bb4';
const ID = bcbDevolucaoIdOf(KEY);
const DEVOLUCAO = `/v2/pix/${E2E}/devolucao/${ID}`;
const notFound = { ...fixture('error-cob-not-found'), type: 'https://pix.bcb.gov.br/api/v2/error/NaoEncontrado' };

describe('Efí refunds of a paid mandate charge', () => {
  it('PUTs the paid pix’s devolução with its amount, under an id formed from the key', async () => {
    efi.answer('GET', `/v2/cobr/${C1}`, 200, fixture('cobr-paid', { TXID: C1 }));
    efi.answer('GET', DEVOLUCAO, 404, notFound);
    efi.answer('PUT', DEVOLUCAO, 201, fixture('devolucao', { KEY: ID }));
    const refund = await efiGateway().refundMandateCharge(C1, 1_000, KEY);
    expect(ID).toMatch(/^[A-Za-z0-9]{35}$/);
    expect(efi.sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      `GET /v2/cobr/${C1}`,
      `GET ${DEVOLUCAO}`,
      `PUT ${DEVOLUCAO}`,
    ]);
    expect(efi.sent[2]!.body).toEqual({ valor: '10.00', natureza: 'ORIGINAL' });
    expect(refund).toEqual({
      id: ID,
      chargeId: C1,
      endToEndId: E2E,
      returnId: 'D09089356202603121000abcde123456',
      amount: 1_000,
      status: 'processing',
      requestedAt: '2026-03-12T10:00:00.000Z',
      refundedAt: null,
      reason: null,
    });
  });

  it('a repeated key finds the devolução made and asks for none; a settled one reads DEVOLVIDO', async () => {
    efi.answer('GET', `/v2/cobr/${C1}`, 200, fixture('cobr-paid', { TXID: C1 }));
    efi.answer('GET', DEVOLUCAO, 200, {
      ...fixture('devolucao', { KEY: ID }),
      status: 'DEVOLVIDO',
      horario: { solicitacao: '2026-03-12T10:00:00.000Z', liquidacao: '2026-03-12T10:00:02.000Z' },
    });
    const refund = await efiGateway().refundMandateCharge(C1, 1_000, KEY);
    expect(efi.sent.map((s) => s.method)).toEqual(['GET', 'GET']);
    expect(refund).toMatchObject({ status: 'refunded', refundedAt: '2026-03-12T10:00:02.000Z', amount: 1_000 });
  });

  it('refuses a cobr not paid, without asking for a devolução', async () => {
    efi.answer('GET', `/v2/cobr/${C1}`, 200, fixture('cobr-created', { TXID: C1 }));
    await expect(efiGateway().refundMandateCharge(C1, 1_000, KEY)).rejects.toMatchObject({ retryable: false });
    expect(efi.sent.map((s) => s.method)).toEqual(['GET']);
  });
});
