import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import { MercadoPagoGateway } from '../../gateway/mercadopago-adapter.ts';
import type { CardOwner, CardToken, GatewayTransaction } from '../../gateway/port.ts';

/**
 * What the opt-in Mercado Pago sandbox suite (mercadopago-sandbox.live.ts) needs besides the adapter:
 * its credentials from the environment, card tokens made as MercadoPago.js makes them in a buyer's
 * browser, a fresh idempotency key per call and run, and patience with the payments search index.
 * Nothing here is mocked: every call goes to https://api.mercadopago.com.
 */

export const MP = 'https://api.mercadopago.com';

/** Per HTTP call: longer than production's 5 s default, since a sandbox can be slow. */
const TIMEOUT_MS = 20_000;

/**
 * Mercado Pago's published test cards for Brazil (Developers → "Cartões de teste"): any expiry ahead,
 * 11/30 as published, CVV 123. The holder's name scripts the outcome: APRO approved, OTHE declined
 * (general error), CONT pending, CALL call for authorization, FUND insufficient funds, SECU invalid
 * security code, EXPI expiration date problem, FORM form error. APRO and OTHE carry the CPF below.
 */
export const TEST_CARDS = { mastercard: '5031433215406351', visa: '4235647728025682' } as const;
export const TEST_CARD_CVV = '123';
export const TEST_CARD_EXPIRY = { month: 11, year: 2030 } as const;
export const TEST_HOLDER_CPF = '12345678909';
export type TestHolder = 'APRO' | 'OTHE' | 'CONT' | 'CALL' | 'FUND' | 'SECU' | 'EXPI' | 'FORM';

export interface SandboxEnv {
  accessToken: string | null;
  publicKey: string | null;
  payerEmail: string;
}

/** A run's own tag: its idempotency keys, references and (by default) its buyer's e-mail are new. */
export const RUN = randomBytes(6).toString('hex');

export function sandboxEnv(env: NodeJS.ProcessEnv = process.env): SandboxEnv {
  return {
    accessToken: env.MERCADOPAGO_SANDBOX_ACCESS_TOKEN?.trim() || null,
    publicKey: env.MERCADOPAGO_SANDBOX_PUBLIC_KEY?.trim() || null,
    // A test buyer's e-mail when given; otherwise a new one per run (never the seller's own: Mercado
    // Pago refuses a payment to oneself), so the customer that keeps this run's cards is new too.
    payerEmail: env.MERCADOPAGO_SANDBOX_PAYER_EMAIL?.trim() || `test_payer_${RUN}@testuser.com`,
  };
}

/** A fresh idempotency key for one step of this run (Mercado Pago keeps keys: a rerun must not replay). */
export const key = (step: string) => `sbx-${RUN}-${step}`;

export const sandboxGateway = (accessToken: string, acceptCardData = false) =>
  new MercadoPagoGateway({ accessToken, timeoutMs: TIMEOUT_MS, notificationUrl: null, acceptCardData });

/**
 * A single-use card token made the way MercadoPago.js makes it in the buyer's browser: the card data
 * with the seller's public key (no access token), `POST /v1/card_tokens?public_key=…`.
 */
export async function browserCardToken(publicKey: string, cardNumber: string, holder: TestHolder): Promise<string> {
  const response = await fetch(`${MP}/v1/card_tokens?public_key=${encodeURIComponent(publicKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      card_number: cardNumber,
      expiration_month: TEST_CARD_EXPIRY.month,
      expiration_year: TEST_CARD_EXPIRY.year,
      security_code: TEST_CARD_CVV,
      cardholder: { name: holder, identification: { type: 'CPF', number: TEST_HOLDER_CPF } },
    }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const body = (await response.json().catch(() => ({}))) as { id?: unknown };
  if (!response.ok || typeof body.id !== 'string') {
    throw new Error(`POST /v1/card_tokens (public key) answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.id;
}

/**
 * A kept card's token as the buyer's browser mints it (MercadoPago.js `mp.fields.createCardToken({ cardId })`
 * with the code typed into its `securityCode` field, decision 0078): the public key, the customer's card
 * id and the security code.
 */
export async function keptCardBrowserToken(publicKey: string, cardId: string, securityCode: string): Promise<string> {
  const response = await fetch(`${MP}/v1/card_tokens?public_key=${encodeURIComponent(publicKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ card_id: cardId, security_code: securityCode }),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const body = (await response.json().catch(() => ({}))) as { id?: unknown };
  if (!response.ok || typeof body.id !== 'string') {
    throw new Error(`POST /v1/card_tokens (card_id, public key) answered ${response.status}: ${JSON.stringify(body)}`);
  }
  return body.id;
}

/** A call to Mercado Pago's API with the seller's access token, as its panel or an operator makes it. */
export async function mercadoPagoApi(
  method: 'GET' | 'POST',
  path: string,
  body: object | null,
  idempotencyKey: string,
) {
  const response = await fetch(`${MP}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${sandboxEnv().accessToken}`,
      'content-type': 'application/json',
      'x-idempotency-key': idempotencyKey,
    },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const answer = (await response.json().catch(() => ({}))) as unknown;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/** A browser token for a test card, kept by the adapter as the engine keeps a buyer's card. */
export async function keptTestCard(
  gateway: MercadoPagoGateway,
  publicKey: string,
  card: { number: string; holder: TestHolder; owner: CardOwner; step: string },
): Promise<CardToken> {
  const browserToken = await browserCardToken(publicKey, card.number, card.holder);
  return gateway.keepBrowserCard(browserToken, card.owner, key(card.step));
}

/** Asks until the answer is not null (the payments search lags a new payment by seconds), or gives up. */
export async function eventually<T>(ask: () => Promise<T | null>, timeoutMs = 30_000, everyMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await ask();
    if (answer !== null) return answer;
    if (Date.now() > deadline) throw new Error(`still nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** YYYY-MM-DD in Brasília, `days` from today: a boleto's due date is a Brazilian banking day. */
export function brasiliaDate(days: number, now = new Date()): string {
  const later = new Date(now.getTime() + days * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(later);
}

/** What every mapped transaction must hold, whatever its outcome (as the contract tests check). */
export function expectWellFormed(t: GatewayTransaction, reference: string): void {
  expect(t.id).toMatch(/^\d+$/);
  expect(t.transactionNumber).toBe(t.id);
  expect(t.reference).toBe(reference);
  expect(t.currency).toBe('BRL');
  expect(Number.isSafeInteger(t.amount) && Number.isSafeInteger(t.baseAmount)).toBe(true);
  expect(t.installmentAmounts).toHaveLength(t.installments);
  expect(t.installmentAmounts.reduce((sum, part) => sum + part, 0)).toBe(t.amount);
  expect(Number.isNaN(Date.parse(t.createdAt))).toBe(false);
}
