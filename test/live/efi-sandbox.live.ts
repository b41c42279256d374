import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { EfiGateway } from '../../gateway/efi-adapter.ts';

/**
 * Opt-in: the real Efí adapter end to end against Efí's homologação (sandbox), with an application's
 * sandbox credentials and certificate (README, "Going live with Efí"), so an operator can check it before
 * going live:
 *
 *   node --experimental-vm-modules --no-warnings node_modules/jest/bin/jest.js --runInBand \
 *     --config test/live/jest.config.js test/live/efi-sandbox.live.ts
 *
 * The offline contract tests (test/gateway/efi-*.test.ts) check our requests and the mapping of fixtures
 * written from the reference; this checks that Efí itself answers what those fixtures say. Not part of
 * `npm test` (its jest config matches only `*.test.ts`), and not run in CI (no credentials, no network):
 * typechecked and linted there, run here only without credentials, when it skips.
 */

const env = {
  clientId: process.env.EFI_SANDBOX_CLIENT_ID,
  clientSecret: process.env.EFI_SANDBOX_CLIENT_SECRET,
  certificate: process.env.EFI_SANDBOX_CERTIFICATE,
  pixKey: process.env.EFI_SANDBOX_PIX_KEY,
  account: process.env.EFI_SANDBOX_ACCOUNT_NUMBER,
};
const missing = Object.entries(env)
  .filter(([name, value]) => name !== 'account' && !value)
  .map(([name]) => name);
if (missing.length > 0) {
  process.stdout.write(
    `Efí sandbox suite skipped: EFI_SANDBOX_CLIENT_ID, EFI_SANDBOX_CLIENT_SECRET, EFI_SANDBOX_CERTIFICATE and ` +
      `EFI_SANDBOX_PIX_KEY are needed (missing: ${missing.join(', ')}).\n`,
  );
}
const withAccount = missing.length > 0 ? describe.skip : describe;

const RUN = randomUUID().slice(0, 8);
const key = (step: string) => `efi-sandbox:${RUN}:${step}`;
const gateway = () =>
  new EfiGateway({
    clientId: env.clientId!,
    clientSecret: env.clientSecret!,
    certificate: env.certificate!,
    sandbox: true,
    pixKey: env.pixKey!,
    account: env.account ? { number: env.account, agency: '0001', type: 'PAGAMENTO' } : null,
    timeoutMs: 20_000,
  });
const buyer = { email: 'maria.teste@example.com', name: 'Maria Teste', taxId: '94271564656' };

withAccount('Efí sandbox: pix', () => {
  it('makes a cob with a QR code, finds it again by its key, and removes it', async () => {
    const input = { reference: `ref-${RUN}`, amount: 123, currency: 'BRL', buyer, expiresInSeconds: 600 };
    const made = await gateway().createPixCharge(input, key('pix'));
    expect(made).toMatchObject({ status: 'pending', amount: 123, reference: `ref-${RUN}`, paymentType: 'pix' });
    expect(made.pix?.qrCode).toMatch(/^000201/);
    expect(made.pix?.qrCodeImage).toMatch(/^data:image\/png;base64,/);
    // A retry under the same key makes no second charge.
    expect((await gateway().createPixCharge(input, key('pix'))).id).toBe(made.id);
    expect((await gateway().findTransactionByIdempotencyKey(key('pix')))?.id).toBe(made.id);
    expect((await gateway().cancel(made.id, key('pix-cancel'))).status).toBe('canceled');
  });

  it('answers null for a key nothing was made under', async () => {
    expect(await gateway().findTransactionByIdempotencyKey(key('never'))).toBeNull();
  });

  it('reads the ledger of the pix received today', async () => {
    const to = new Date();
    const rows = await gateway().ledger({ from: new Date(to.getTime() - 86_400_000), to });
    for (const row of rows) expect(Number.isInteger(row.amount)).toBe(true);
  });
});

withAccount('Efí sandbox: boleto', () => {
  it('issues a boleto and finds it again by its key', async () => {
    const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const input = { reference: `ref-${RUN}`, amount: 1500, currency: 'BRL', buyer, dueDate };
    const made = await gateway().createBoleto(input, key('boleto'));
    expect(made).toMatchObject({ status: 'pending', amount: 1500, paymentType: 'boleto' });
    expect(made.boleto?.barcode).toMatch(/^\d{44}$/);
    expect((await gateway().createBoleto(input, key('boleto'))).id).toBe(made.id);
    expect((await gateway().cancel(made.id, key('boleto-cancel'))).status).toBe('canceled');
  });
});

withAccount('Efí sandbox: Pix Automático', () => {
  it('makes a journey 2 mandate with its QR code, finds it again by its contract, and cancels it', async () => {
    const start = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
    const input = {
      reference: `sub-${RUN}`,
      objectLabel: 'Plano de teste',
      debtor: { name: buyer.name, taxId: buyer.taxId },
      startDate: start,
      endDate: null,
      periodicity: 'monthly' as const,
      fixedAmount: 990,
      minimumAmount: null,
      retryPolicy: 'three_in_seven_days' as const,
      journey: 'journey_2' as const,
    };
    const made = await gateway().createMandate(input, key('mandate'));
    expect(made).toMatchObject({ status: 'created', reference: `sub-${RUN}`, fixedAmount: 990 });
    expect((await gateway().createMandate(input, key('mandate'))).id).toBe(made.id);
    expect((await gateway().getMandate(made.id))?.id).toBe(made.id);
    expect((await gateway().cancelMandate(made.id, key('mandate-cancel'))).status).toBe('cancelled');
  });
});
