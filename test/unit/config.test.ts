import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '../../config/env.ts';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';

const base = { JWT_SECRET: 'x'.repeat(32) };

describe('configuration', () => {
  it('fills the embedded defaults of a sandbox deployment', () => {
    const config = loadConfig(base);
    expect(config.DEPLOYMENT_ENV).toBe('test');
    expect(config.rateLimitMax).toBe(100);
    expect(config.gateway).toBe('simulator');
    expect(config.PORT).toBe(8443);
    expect(config.publicBaseUrl).toBe('https://127.0.0.1:8443');
    expect(config.checkoutLinkBase).toBe('https://127.0.0.1:8443/checkout');
    expect(config.TEMPORAL_UI_URL).toBe('http://127.0.0.1:8233');
  });

  it('gives production 1000 requests a minute and the HTTP gateway', () => {
    const config = loadConfig({
      ...base,
      DEPLOYMENT_ENV: 'live',
      GATEWAY_URL: 'https://gateway.example',
      GATEWAY_CALLBACK_SECRET: 's'.repeat(32),
    });
    expect(config.rateLimitMax).toBe(1000);
    expect(config.gateway).toBe('http');
  });

  it('needs a real gateway callback secret in production', () => {
    expect(() => loadConfig({ ...base, DEPLOYMENT_ENV: 'live', GATEWAY_URL: 'https://gateway.example' })).toThrow(
      /GATEWAY_CALLBACK_SECRET: required when DEPLOYMENT_ENV is live/,
    );
  });

  it("refuses a published placeholder secret in production (docker-compose.yml's, the sandbox's)", () => {
    const live = { DEPLOYMENT_ENV: 'live', GATEWAY_URL: 'https://gateway.example' };
    expect(() =>
      loadConfig({
        ...live,
        JWT_SECRET: 'change-me-change-me-change-me-change-me',
        GATEWAY_CALLBACK_SECRET: 's'.repeat(32),
      }),
    ).toThrow(/JWT_SECRET: a secret published in this repository/);
    expect(() =>
      loadConfig({ ...base, ...live, GATEWAY_CALLBACK_SECRET: 'sandbox-gateway-callback-secret-0123456789' }),
    ).toThrow(/GATEWAY_CALLBACK_SECRET: a secret published in this repository/);
    // The sandbox takes them: they are what a first run uses.
    expect(loadConfig({ JWT_SECRET: 'change-me-change-me-change-me-change-me' }).DEPLOYMENT_ENV).toBe('test');
  });

  it('lets RATE_LIMIT_MAX override the default', () => {
    expect(loadConfig({ ...base, RATE_LIMIT_MAX: '7' }).rateLimitMax).toBe(7);
  });

  it.each([
    ['PORT', 'not-a-number'],
    ['DEPLOYMENT_ENV', 'staging'],
    ['DATABASE_URL', 'nope'],
    ['TLS_MODE', 'plain'],
    ['JWT_SECRET', 'short'],
    ['TEMPORAL_UI_URL', 'javascript:alert(1)'],
  ])('rejects a wrong %s with a message naming it', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(
      new RegExp(`^Invalid environment configuration:\\n  ${name}:`),
    );
  });

  it('needs a way to verify user JWTs in the API, and none in the worker (which verifies no JWT)', () => {
    expect(() => loadConfig({})).toThrow(ConfigError);
    expect(() => loadConfig({})).toThrow(/JWT_SECRET or JWT_JWKS_URL/);
    expect(() => loadConfig({}, 'api')).toThrow(/JWT_SECRET or JWT_JWKS_URL/);
    expect(loadConfig({}, 'worker').JWT_SECRET).toBeUndefined();
  });

  it('needs GATEWAY_URL for the HTTP gateway', () => {
    expect(() => loadConfig({ ...base, GATEWAY: 'http' })).toThrow(/GATEWAY_URL/);
  });

  it('needs MERCADOPAGO_ACCESS_TOKEN for Mercado Pago, and takes its settings', () => {
    expect(() => loadConfig({ ...base, GATEWAY: 'mercadopago' })).toThrow(
      /MERCADOPAGO_ACCESS_TOKEN: required when GATEWAY is mercadopago/,
    );
    const config = loadConfig({ ...base, GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'TEST-123' });
    expect(config.gateway).toBe('mercadopago');
    expect(config.MERCADOPAGO_TIMEOUT_MS).toBe(5000);
    expect(() =>
      loadConfig({
        ...base,
        GATEWAY: 'mercadopago',
        MERCADOPAGO_ACCESS_TOKEN: 'TEST-123',
        MERCADOPAGO_NOTIFICATION_URL: 'http://billing.example/mp',
      }),
    ).toThrow(/MERCADOPAGO_NOTIFICATION_URL: must be an https:\/\/ URL/);
    expect(() =>
      loadConfig({ ...base, GATEWAY: 'mercadopago', MERCADOPAGO_ACCESS_TOKEN: 'T', MERCADOPAGO_TIMEOUT_MS: '10' }),
    ).toThrow(/MERCADOPAGO_TIMEOUT_MS/);
  });

  describe('the notification mailer', () => {
    const smtpUrl = 'smtps://billing:pw@smtp.example:465';

    it('writes to the outbox folder by default, from a local sender', () => {
      const config = loadConfig(base);
      expect(config).toMatchObject({ mailer: 'outbox', MAIL_OUTBOX_DIR: '.data/mail' });
      expect(config.mailFrom).toBe('Billing <billing@localhost>');
      expect(loadConfig({ ...base, MAIL_OUTBOX_DIR: '/var/mail/billing' }).MAIL_OUTBOX_DIR).toBe('/var/mail/billing');
    });

    it('sends through SMTP when SMTP_URL is set, unless MAILER says outbox', () => {
      const smtp = loadConfig({ ...base, SMTP_URL: smtpUrl, MAIL_FROM: 'Acme <billing@acme.example>' });
      expect(smtp).toMatchObject({ mailer: 'smtp', SMTP_URL: smtpUrl, mailFrom: 'Acme <billing@acme.example>' });
      expect(loadConfig({ ...base, SMTP_URL: smtpUrl, MAILER: 'outbox' }).mailer).toBe('outbox');
    });

    it.each([
      [{ MAILER: 'smtp' }, 'SMTP_URL: required when MAILER is smtp'],
      [{ MAILER: 'smtp', MAIL_FROM: 'billing@acme.example' }, 'SMTP_URL: required when MAILER is smtp'],
      [{ MAILER: 'smtp', SMTP_URL: smtpUrl }, 'MAIL_FROM: required when mail goes through SMTP'],
      [{ SMTP_URL: smtpUrl }, 'MAIL_FROM: required when mail goes through SMTP'],
      [{ MAILER: 'sendmail' }, 'MAILER:'],
      [{ SMTP_URL: 'https://smtp.example' }, 'SMTP_URL: must be an smtp:// or smtps:// URL'],
      [{ SMTP_URL: 'smtp example' }, 'SMTP_URL:'],
      [{ MAIL_FROM: 'billing' }, 'MAIL_FROM: must be an address or "Name <address>"'],
      [{ MAIL_FROM: 'Billing <billing>' }, 'MAIL_FROM: must be an address'],
      [{ MAIL_OUTBOX_DIR: '' }, 'MAIL_OUTBOX_DIR:'],
    ])('refuses %j, naming the variable', (env, message) => {
      expect(() => loadConfig({ ...base, ...env }, 'worker')).toThrow(
        `Invalid environment configuration:\n  ${message}`,
      );
    });
  });

  it('stops the API process with the message and no stack trace', () => {
    const run = spawnSync(process.execPath, [path.join(REPO_ROOT, 'api/server.ts')], {
      env: { PATH: process.env.PATH, JWT_SECRET: 'x'.repeat(32), PORT: 'abc' },
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('PORT:');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
