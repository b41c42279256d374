import { createHash } from 'node:crypto';
import EfiPay from 'sdk-node-apis-efi';
import { GatewayError } from './port.ts';

/**
 * What every Efí module shares: the SDK's client, its errors as GatewayErrors, the ids derived from
 * our keys (Efí takes no idempotency header on the Pix and charges APIs, so a retried call finds what
 * the first made by an id both derive from the same key) and reais as Efí's Pix API writes them.
 */

export interface EfiOptions {
  clientId: string;
  clientSecret: string;
  /** Path to the account's .p12 certificate, or its base64 (certificateBase64: true). */
  certificate: string;
  certificateBase64?: boolean;
  sandbox: boolean;
  /** The receiver's pix key: every cob and rec is made to it. */
  pixKey: string;
  /** The receiving account, as a cobr names it (recebedor: agência, conta, tipo). */
  account?: { agency: string; number: string; type: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO' } | null;
  /** Per call: past it the call is a retryable GatewayError (the SDK takes no timeout of its own). */
  timeoutMs: number;
  /** Where Efí posts a boleto's notices (metadata.notification_url); null: none. */
  notificationUrl?: string | null;
  clock?: () => Date;
}

/** An Efí error with its HTTP status (0: no answer) and Efí's own code (`nome`, `error`). */
export class EfiGatewayError extends GatewayError {
  readonly status: number;
  readonly code: string;
  constructor(message: string, retryable: boolean, status: number, code: string) {
    super(message, retryable);
    this.name = 'EfiGatewayError';
    this.status = status;
    this.code = code;
  }
}

/** No answer, 408, 429 and 5xx may succeed later; any other 4xx is a definite refusal. */
const RETRYABLE = (status: number) => status === 0 || status === 408 || status === 429 || status >= 500;

/**
 * The SDK rejects with Efí's error payload as it came, its HTTP status dropped (httpClient.js'
 * normalizeError), or with the axios error itself when nothing readable was answered. So the status
 * is read from what is left: the axios error's; the BCB's problem body (`{ type, title, status,
 * detail }`, which Efí's Pix API answers); else Efí's older `{ nome, mensagem }` (Pix) and
 * `{ code, error, error_description }` (charges), definite refusals unless they name a server
 * error, and a "not found" by name; a body that is not JSON (a proxy's page) is no answer at all.
 */
export function statusOfEfiError(err: unknown): number {
  if (err instanceof Error) {
    const e = err as Error & { status?: unknown; response?: { status?: unknown } };
    return httpStatus(e.status) ?? httpStatus(e.response?.status) ?? 0;
  }
  if (typeof err !== 'object' || err === null) return 0;
  const e = err as Record<string, unknown>;
  const stated = httpStatus(e.status);
  if (stated) return stated;
  const name = `${String(e.type ?? '')} ${String(e.nome ?? '')} ${String(e.error ?? '')}`.toLowerCase();
  if (!name.trim()) return 0;
  if (/interno|internal|server|indisponivel|unavailable|timeout/.test(name)) return 500;
  if (/naoencontrad|nao_encontrad|not_found|notfound/.test(name)) return 404;
  return 400;
}

function errorOf(what: string, err: unknown): EfiGatewayError {
  if (err instanceof EfiGatewayError) return err;
  const status = statusOfEfiError(err);
  const e = (typeof err === 'object' && err !== null ? err : { detail: String(err).slice(0, 200) }) as Record<
    string,
    unknown
  >;
  const code = String(e.nome ?? e.error ?? e.type ?? e.code ?? (err instanceof Error ? err.name : 'error'));
  const detail = String(e.mensagem ?? e.error_description ?? e.detail ?? e.title ?? (err as Error)?.message ?? '');
  const answered = status === 0 ? 'got no answer' : `answered ${status}`;
  return new EfiGatewayError(`Efí ${what} ${answered}: ${code} ${detail}`.trim(), RETRYABLE(status), status, code);
}

const httpStatus = (value: unknown): number | undefined =>
  typeof value === 'number' && value >= 100 && value < 600 ? value : undefined;

/** The SDK's client (a subset of it, for the adapter's tests' sake typed as the calls we make). */
export type EfiClient = InstanceType<typeof EfiPay>;

export function efiClient(options: EfiOptions): EfiClient {
  return new EfiPay({
    sandbox: options.sandbox,
    client_id: options.clientId,
    client_secret: options.clientSecret,
    certificate: options.certificate,
    cert_base64: options.certificateBase64 ?? false,
  });
}

/**
 * One SDK call within `timeoutMs`, its failures as EfiGatewayErrors. The SDK passes axios no timeout,
 * so past ours the call is answered "no answer" (retryable) and its request left to end on its own:
 * every write is keyed by an id derived from our key, so the retry finds what a late first one made.
 */
export async function efiCall<T>(what: string, timeoutMs: number, run: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new EfiGatewayError(`Efí ${what} got no answer within ${timeoutMs} ms`, true, 0, 'timeout')),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([run(), deadline]);
  } catch (err) {
    throw errorOf(what, err);
  } finally {
    clearTimeout(timer);
  }
}

/** A read: null when Efí has no such object (404), any other failure thrown. */
export async function efiRead<T>(what: string, timeoutMs: number, run: () => Promise<T>): Promise<T | null> {
  try {
    return await efiCall(what, timeoutMs, run);
  } catch (err) {
    if (err instanceof EfiGatewayError && err.status === 404) return null;
    throw err;
  }
}

/**
 * The BCB's txid (and a devolução's id) derived from our key: 35 characters of [a-z0-9] (the spec's
 * 26–35 alphanumerics), starting with a letter so that it is never all digits (a boleto's id is).
 * The same key gives the same id, so a retry after a lost answer reads or re-sends the first charge.
 */
export function idFromKey(key: string): string {
  return `e${createHash('sha256').update(key).digest('hex').slice(0, 34)}`;
}

/** Cents as Efí's Pix API writes amounts: "12.34". */
export function reais(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new GatewayError(`Not an amount in cents: ${cents}`, false);
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}

/** "12.34" (or "12.3", "12") as cents, without floating point. */
export function centsOf(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const text = String(value).trim();
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) throw new EfiGatewayError(`Efí answered an amount we cannot read: ${text}`, false, 200, 'amount');
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/** CPF (11 digits) or CNPJ (14) as the Pix API's payer object names it. */
export function personOf(taxId: string, name: string): { cpf: string; nome: string } | { cnpj: string; nome: string } {
  const digits = taxId.replace(/\D/g, '');
  return digits.length === 14 ? { cnpj: digits, nome: name } : { cpf: digits, nome: name };
}

type SdkCall = (...args: unknown[]) => Promise<unknown>;
/** The SDK's methods the Efí modules call (and the tests' transport answers). */
export const SDK_METHODS = [
  'pixCreateCharge',
  'pixDetailCharge',
  'pixUpdateCharge',
  'pixGenerateQRCode',
  'pixDevolution',
  'pixDetailDevolution',
  'pixReceivedList',
  'createOneStepCharge',
  'detailCharge',
  'listCharges',
  'cancelCharge',
  'getNotification',
  'pixCreateLocationRecurrenceAutomatic',
  'pixCreateRecurrenceAutomatic',
  'pixDetailRecurrenceAutomatic',
  'pixListRecurrenceAutomatic',
  'pixUpdateRecurrenceAutomatic',
  'pixCreateAutomaticChargeTxid',
  'pixDetailAutomaticCharge',
  'pixUpdateAutomaticCharge',
  'pixRetryRequestAutomatic',
] as const satisfies readonly (keyof EfiClient)[];

/**
 * The SDK's methods we call, with loose arguments: its zod-derived types are `strict` objects that
 * refuse the BCB's optional query parameters (GET /v2/rec/{idRec}?txid=) and answer unions we read
 * through our own narrower interfaces (efi-payments.ts, efi-rec-mapping.ts).
 */
export type EfiSdk = Record<(typeof SDK_METHODS)[number], SdkCall>;
export const looseSdk = (client: EfiClient) => client as unknown as EfiSdk;
