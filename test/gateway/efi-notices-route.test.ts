import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import { fixture, mockEfi } from './efi-transport.ts';

/**
 * POST /api/v1/gateway/efi/notifications on an API whose gateway is Efí, its SDK's transport mocked
 * (axios' adapter); PostgreSQL and Temporal are real. The hmac is checked before anything, and every
 * object a notice names is read back from Efí: none here is ours, so each is read and acknowledged.
 */
const HMAC = 'efi-hmac-for-the-api-tests-0123';
const PATH = '/api/v1/gateway/efi/notifications';
const efi = mockEfi();
let api: TestApi;

beforeAll(async () => {
  // The SDK reads the certificate's file at each call; the mocked transport opens no TLS connection.
  const certificate = join(mkdtempSync(join(tmpdir(), 'efi-route-')), 'homologacao.p12');
  writeFileSync(certificate, 'not a certificate');
  api = await startApi({
    GATEWAY: 'efi',
    EFI_CLIENT_ID: 'Client_Id_test',
    EFI_CLIENT_SECRET: 'Client_Secret_test',
    EFI_CERTIFICATE: certificate,
    EFI_SANDBOX: 'true',
    EFI_PIX_KEY: 'pix@example.com',
    EFI_WEBHOOK_HMAC: HMAC,
  });
});
afterAll(async () => {
  await api.close();
});

describe('Efí notices route', () => {
  it('refuses a notice without the registered hmac (401), before reading anything', async () => {
    for (const query of ['', '?hmac=wrong-hmac-0123456789', `?hmac=${HMAC}x`]) {
      const res = await api.call('POST', `${PATH}${query}`, { body: fixture('notice-pix', { TXID: 'abc' }) });
      expect(res.status).toBe(401);
    }
    expect(efi.sent).toEqual([]);
  });

  it("acknowledges Efí's registration test, with /pix taken into `ignorar`", async () => {
    const res = await api.call('POST', `${PATH}?hmac=${HMAC}&ignorar=/pix`, { body: { evento: 'teste_webhook' } });
    expect(res.status).toBe(200);
    expect(efi.sent).toEqual([]);
  });

  it('reads the cob a pix notice names back from Efí, whatever the notice says', async () => {
    efi.answer('GET', '/v2/cob/abc', 200, fixture('cob-paid', { TXID: 'abc' }));
    const res = await api.call('POST', `${PATH}?hmac=${HMAC}&ignorar=/pix`, {
      body: fixture('notice-pix', { TXID: 'abc' }),
    });
    expect(res.status).toBe(200);
    expect(efi.sent.map((s) => `${s.method} ${s.path}`)).toEqual(['GET /v2/cob/abc']);
  });

  it("reads a boleto notice's token back, then the charge it names", async () => {
    efi.answer('GET', '/v1/notification/tok-1', 200, fixture('notification-charge'));
    efi.answer('GET', '/v1/charge/674329', 200, fixture('charge-detail-billet-paid', { KEY: 'k' }));
    const res = await api.call('POST', `${PATH}?hmac=${HMAC}&kind=charge`, {
      raw: 'notification=tok-1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(efi.sent.map((s) => `${s.method} ${s.path}`)).toEqual([
      'GET /v1/notification/tok-1',
      'GET /v1/charge/674329',
    ]);
  });

  it('answers 503 when Efí cannot be read, so that Efí sends the notice again', async () => {
    efi.answer('GET', '/v2/cob/abc', 500, { nome: 'erro_interno_servidor', mensagem: 'Erro interno' });
    const res = await api.call('POST', `${PATH}?hmac=${HMAC}`, { body: fixture('notice-pix', { TXID: 'abc' }) });
    expect(res.status).toBe(503);
  });
});

describe('Efí Pix Automático notices', () => {
  it('acknowledges a rec or cobr notice of no mandate of ours, calling nothing', async () => {
    for (const notice of ['notice-rec', 'notice-cobr']) {
      const res = await api.call('POST', `${PATH}?hmac=${HMAC}&ignorar=/rec`, { body: fixture(notice) });
      expect(res.status).toBe(200);
    }
    expect(efi.sent).toEqual([]);
  });
});
