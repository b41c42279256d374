import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../config/env.ts';
import type { Orm } from '../../db/orm.ts';
import { EfiGateway } from '../../gateway/efi-adapter.ts';
import {
  callbacksOfEfiNotice,
  chargeNoticeToken,
  efiNoticeUrl,
  InvalidEfiNoticeError,
  verifyEfiNotice,
} from '../../gateway/efi-notifications.ts';
import { cardPaymentsOf, offersCardPayments } from '../../gateway/capabilities.ts';
import { createGateway } from '../../gateway/index.ts';
import { GatewayError, type PaymentGateway } from '../../gateway/port.ts';
import { efiGateway, fixture, mockEfi } from './efi-transport.ts';

/** Efí's notices (the hmac in the query, what a notice names) and GATEWAY=efi's start-up checks. */
const efi = mockEfi();
const SECRET = 'efi-webhook-hmac-0123456789';
const AT = new Date('2026-01-10T13:06:00.000Z');

describe('Efí notices', () => {
  it('takes only the configured hmac, whatever its length', () => {
    expect(() => verifyEfiNotice(SECRET, SECRET)).not.toThrow();
    expect(() => verifyEfiNotice([SECRET], SECRET)).not.toThrow();
    for (const wrong of [undefined, '', 'efi-webhook-hmac-012345678', `${SECRET}x`, SECRET.toUpperCase(), 42]) {
      expect(() => verifyEfiNotice(wrong, SECRET)).toThrow(InvalidEfiNoticeError);
    }
  });

  it('registers a URL that carries the secret and takes the appended /pix into its query', () => {
    const url = efiNoticeUrl('https://billing.example.com/api/v1/gateway/efi/notifications', SECRET);
    expect(url).toBe(`https://billing.example.com/api/v1/gateway/efi/notifications?hmac=${SECRET}&ignorar=`);
    // What Efí posts to: the URL with /pix appended, which lands in `ignorar`.
    const posted = new URL(`${url}/pix`);
    expect(posted.pathname).toBe('/api/v1/gateway/efi/notifications');
    expect(posted.searchParams.get('hmac')).toBe(SECRET);
  });

  it('turns pix, rec and cobr notices into the callbacks the receiver reads back', () => {
    expect(callbacksOfEfiNotice(fixture('notice-pix', { TXID: 'abc' }), AT)).toEqual([
      {
        id: 'efi:pix:E12345678202601101305abcdef12345:2026-01-10T13:05:00.000Z',
        type: 'transaction.updated',
        transactionId: 'abc',
        status: 'paid',
        occurredAt: '2026-01-10T13:05:00.000Z',
      },
    ]);
    expect(callbacksOfEfiNotice(fixture('notice-rec'), AT)).toEqual([
      expect.objectContaining({
        type: 'mandate.updated',
        mandateId: 'RR1234567820260110abcdefghijk',
        status: 'APROVADA',
      }),
    ]);
    expect(callbacksOfEfiNotice(fixture('notice-cobr'), AT)).toEqual([
      expect.objectContaining({
        type: 'mandate_charge.updated',
        mandateChargeId: 'e5d6e3c1d4a0f6b7c8d9e0f1a2b3c4d5e6',
        mandateId: 'RR1234567820260110abcdefghijk',
        occurredAt: '2026-03-10T08:00:00.000Z',
      }),
    ]);
    // A pix to the key without a txid is none of our charges; Efí's registration test names nothing.
    expect(callbacksOfEfiNotice({ pix: [{ endToEndId: 'E1', valor: '1.00' }] }, AT)).toEqual([]);
    expect(callbacksOfEfiNotice({ evento: 'teste_webhook' }, AT)).toEqual([]);
  });

  it("reads a charges-API notice's token back from Efí: one callback per charge, its latest status", async () => {
    expect(chargeNoticeToken({ notification: 'tok-1' })).toBe('tok-1');
    expect(chargeNoticeToken({})).toBeNull();
    efi.answer('GET', '/v1/notification/tok-1', 200, fixture('notification-charge'));
    expect(await efiGateway().chargeNoticeCallbacks('tok-1')).toEqual([
      expect.objectContaining({ type: 'transaction.updated', transactionId: '674329', status: 'paid' }),
    ]);
  });
});

describe('GATEWAY=efi start-up', () => {
  const base = {
    JWT_SECRET: 'x'.repeat(32),
    GATEWAY: 'efi',
    EFI_CLIENT_ID: 'Client_Id_x',
    EFI_CLIENT_SECRET: 'Client_Secret_x',
    EFI_CERTIFICATE: '/nowhere/efi-homologacao.p12',
    EFI_SANDBOX: 'true',
    EFI_PIX_KEY: 'pix@example.com',
  };

  it('refuses to start without the credentials, certificate, environment or pix key, naming them', () => {
    for (const name of [
      'EFI_CLIENT_ID',
      'EFI_CLIENT_SECRET',
      'EFI_CERTIFICATE',
      'EFI_SANDBOX',
      'EFI_PIX_KEY',
    ] as const) {
      const env: Record<string, string> = { ...base };
      delete env[name];
      expect(() => loadConfig(env, 'worker')).toThrow(ConfigError);
      expect(() => loadConfig(env, 'worker')).toThrow(new RegExp(`${name}.*required when GATEWAY is efi`));
    }
  });

  it('in production refuses a certificate path with no file; the sandbox leaves it to the first call', () => {
    expect(() => loadConfig({ ...base, EFI_SANDBOX: 'false' }, 'worker')).toThrow(/EFI_CERTIFICATE: no file at/);
    expect(loadConfig(base, 'worker').gateway).toBe('efi');
    const file = join(mkdtempSync(join(tmpdir(), 'efi-cert-')), 'producao.p12');
    writeFileSync(file, 'p12');
    expect(loadConfig({ ...base, EFI_SANDBOX: 'false', EFI_CERTIFICATE: file }, 'worker').EFI_SANDBOX).toBe(false);
  });

  it('selects the Efí adapter', async () => {
    const config = loadConfig(base, 'worker');
    expect(await createGateway(config, null as unknown as Orm)).toBeInstanceOf(EfiGateway);
  });

  it('is a PaymentGateway as it is, without cards: a card call is refused (not retryable) before any request', async () => {
    // Compiles only while EfiGateway implements every call PaymentGateway requires (no cast in gateway/index.ts).
    const gateway: PaymentGateway = efiGateway();
    expect(offersCardPayments(gateway)).toBe(false);
    const refusal = (() => {
      try {
        cardPaymentsOf(gateway);
      } catch (err) {
        return err;
      }
    })();
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ retryable: false, message: expect.stringMatching(/takes no cards/) });
    expect(efi.sent).toEqual([]);
  });
});
