import { hkdfSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { cardDataAccepted } from '../domain/card-data.ts';
import { CARD_REVIEW_WAIT_SECONDS } from '../domain/card-review.ts';

/**
 * Every setting the API, the worker and the scripts read, validated once at start-up.
 * A wrong value stops the process with a message that names the variable.
 */
const int = z.coerce.number().int().nonnegative();
/** `someone@example.com` or `Name <someone@example.com>`: a mail's sender. */
/** Hosts whose plain http never leaves the machine: a local identity provider may use it. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAILBOX = /^(?:[^<>@]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/;

const schema = z.object({
  DEPLOYMENT_ENV: z.enum(['test', 'live']).default('test'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url().default('postgres://postgres@127.0.0.1:5432/billing'),
  DATABASE_POOL_MAX: int.default(10),
  DATABASE_CONNECT_TIMEOUT_MS: int.min(100).default(3000),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('billing'),
  TEMPORAL_CALL_TIMEOUT_MS: int.min(100).default(5000),
  /** The batch queue's (renewals, dunning, sweeps) activities per second across all workers: the gateway's budget. */
  BATCH_ACTIVITIES_PER_SECOND: z.coerce.number().positive().default(50),
  /**
   * Workflow runs the interactive queue's Worker (checkouts, confirmations, API-driven changes) keeps in
   * memory between tasks: a bounded cache bounds the worker's memory (each run held costs about 1 MB).
   */
  WORKER_MAX_CACHED_WORKFLOWS: int.min(2).default(250),
  /**
   * The same for the batch queue's Worker (renewals, dunning, invoices, sweeps): its runs wait days to
   * months between tasks, so a few suffice; a run evicted is replayed from its short history (one period).
   */
  WORKER_BATCH_MAX_CACHED_WORKFLOWS: int.min(2).default(25),
  /**
   * The task queues this worker process polls: both, or one of them, so the buyers' queue can run in a
   * process of its own whose event loop a renewal storm never holds up (docs/decisions/0040-task-queues.md).
   */
  WORKER_TASK_QUEUES: z.enum(['all', 'interactive', 'batch']).default('all'),
  /** Webhook deliveries in flight at once per worker process (each waits up to 15 s on a merchant's server). */
  WEBHOOK_DELIVERIES_AT_ONCE: int.min(1).max(1000).default(100),
  /** How often a worker's relay reads the outbox without having been woken by a notification. */
  WEBHOOK_RELAY_POLL_MS: int.min(100).default(5000),
  /**
   * Renewals due at one instant are tried over this many seconds after it, each subscription at its own
   * fixed offset (domain/subscriptions.ts, renewalDelayMs), so a book renewing at once never floods
   * Temporal, the database and the gateway. 0: each at its period's end. Periods do not move.
   */
  RENEWAL_SPREAD_SECONDS: int.max(86_400).default(0),
  /** The Temporal UI, for the links to workflows in API responses (a browser opens them: http or https only). */
  TEMPORAL_UI_URL: z.url({ protocol: /^https?$/ }).default('http://127.0.0.1:8233'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: int.max(65535).default(8443),
  TLS_MODE: z.enum(['tls', 'proxy']).default('tls'),
  TLS_CERT_FILE: z.string().min(1).default('.certs/localhost.crt'),
  TLS_KEY_FILE: z.string().min(1).default('.certs/localhost.key'),
  PUBLIC_BASE_URL: z.url().optional(),
  CHECKOUT_LINK_BASE: z.url().optional(),
  BODY_LIMIT_BYTES: int.min(1024).default(1_048_576),
  JWT_SECRET: z.string().min(32).optional(),
  JWT_JWKS_URL: z.url().optional(),
  JWT_ISSUER: z.string().optional(),
  /** The `aud` values a user JWT may carry, comma-separated (any one of them will do). */
  JWT_AUDIENCE: z
    .string()
    .optional()
    .transform((v) => {
      const audiences = (v ?? '')
        .split(',')
        .map((a) => a.trim())
        .filter(Boolean);
      return audiences.length > 0 ? audiences : undefined;
    }),
  /**
   * The dashboard's sign-in through OpenID Connect (authorization code with PKCE): the provider's
   * issuer, which https serves (http only on this machine's loopback, for a local provider).
   */
  OIDC_ISSUER_URL: z
    .url({
      protocol: /^https?$/,
      error: 'must be an https:// URL (http:// only on localhost or 127.0.0.1)',
    })
    .refine((v) => v.startsWith('https:') || LOOPBACK.has(new URL(v).hostname), {
      message: 'must be an https:// URL (http:// only on localhost or 127.0.0.1)',
    })
    .optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  /** A confidential client's secret; a public client goes without (PKCE alone). */
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  OIDC_SCOPES: z
    .string()
    .regex(/(^|\s)openid(\s|$)/, 'must include openid')
    .default('openid email profile'),
  RATE_LIMIT_MAX: int.min(1).optional(),
  RATE_LIMIT_WINDOW_MS: int.min(1000).default(60_000),
  RATE_LIMIT_STORE: z.enum(['postgres', 'redis']).default('postgres'),
  REDIS_URL: z.url().default('redis://127.0.0.1:6379'),
  CREDENTIAL_CACHE_TTL_MS: int.default(60_000),
  CREDENTIAL_USAGE_FLUSH_MS: int.min(10).default(15_000),
  IDEMPOTENCY_LEASE_MS: int.min(1000).default(60_000),
  /** How long a buyer's confirmation waits for its outcome before answering the checkout as being processed. */
  CHECKOUT_CONFIRM_WAIT_MS: int.min(1).max(60_000).default(20_000),
  /** How long POST /reconciliations waits for its report before answering 202 (decision 0076). */
  RECONCILIATION_REPORT_WAIT_MS: int.min(1).max(60_000).default(20_000),
  GATEWAY: z.enum(['simulator', 'http', 'mercadopago', 'efi']).optional(),
  GATEWAY_URL: z.url().optional(),
  GATEWAY_API_KEY: z.string().optional(),
  GATEWAY_TIMEOUT_MS: int.min(1).default(10_000),
  GATEWAY_CALLBACK_SECRET: z.string().min(16).optional(),
  GATEWAY_CALLBACK_URL: z.url().optional(),
  /**
   * How long a checkout waits for a card payment the gateway is still reviewing (Mercado Pago's
   * `in_process`) before cancelling it (domain/card-review.ts, decision 0070).
   */
  CARD_REVIEW_WAIT_SECONDS: int.min(1).default(CARD_REVIEW_WAIT_SECONDS),
  /** GATEWAY=mercadopago: the seller's access token (`APP_USR-…` live, `TEST-…` sandbox); required then. */
  MERCADOPAGO_ACCESS_TOKEN: z.string().min(1).optional(),
  /** For the browser's card tokenization (MercadoPago.js). */
  MERCADOPAGO_PUBLIC_KEY: z.string().min(1).optional(),
  /** The secret of the account's webhooks, which signs their `x-signature` header. */
  MERCADOPAGO_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Sent as each payment's `notification_url`; unset: the account's configured webhook. */
  MERCADOPAGO_NOTIFICATION_URL: z.url({ protocol: /^https$/, error: 'must be an https:// URL' }).optional(),
  /**
   * The name on buyers' card statements (`statement_descriptor`, up to 13 letters, digits and spaces);
   * unset: the selling organization's name, cut to fit.
   */
  MERCADOPAGO_STATEMENT_DESCRIPTOR: z
    .string()
    .regex(/^[A-Za-z0-9 ]{1,13}$/, 'up to 13 letters, digits and spaces')
    .optional(),
  /** Per HTTP call to Mercado Pago (the SDK's own retries are off: the activities retry, same key). */
  MERCADOPAGO_TIMEOUT_MS: int.min(100).max(60_000).default(5000),
  /** GATEWAY=efi: the Efí application's credentials (Efí's panel, API → Aplicações); required then. */
  EFI_CLIENT_ID: z.string().min(1).optional(),
  EFI_CLIENT_SECRET: z.string().min(1).optional(),
  /** GATEWAY=efi: path to the application's .p12 certificate (Efí's mTLS; a live one must exist at start-up). */
  EFI_CERTIFICATE: z.string().min(1).optional(),
  /** GATEWAY=efi: `true` for Efí's homologação (sandbox) hosts, `false` for production; required then. */
  EFI_SANDBOX: z
    .enum(['true', 'false'], 'must be true or false')
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
  /** GATEWAY=efi: the receiver's pix key (a key of the Efí account), every pix charge and mandate is made to it. */
  EFI_PIX_KEY: z.string().min(1).max(77).optional(),
  /**
   * The secret Efí's webhooks carry as `?hmac=` (registered with the webhook URL): without it the Efí
   * notices route is not served (404).
   */
  EFI_WEBHOOK_HMAC: z.string().min(16, 'at least 16 characters').optional(),
  /** The Efí account a Pix Automático charge names as receiver (cobr.recebedor): number with its digit, agency. */
  EFI_ACCOUNT_NUMBER: z
    .string()
    .regex(/^\d{1,20}$/, 'digits only')
    .optional(),
  EFI_ACCOUNT_AGENCY: z
    .string()
    .regex(/^\d{1,4}$/, 'digits only')
    .default('0001'),
  /** Per HTTP call to Efí (its SDK has no timeout of its own; the activities retry, same ids). */
  EFI_TIMEOUT_MS: int.min(100).max(60_000).default(10_000),
  /**
   * A live deployment takes card numbers only as the gateway's browser tokens: card data sent to this
   * server (confirm-sdk's `card`, a direct transaction's) puts it in full PCI DSS scope (SAQ D), which
   * only this explicit `true` accepts. The sandbox (DEPLOYMENT_ENV=test) always takes test cards.
   */
  ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE: z
    .enum(['true', 'false'], 'must be true or false')
    .default('false')
    .transform((v) => v === 'true'),
  /** Where uploaded files live: the local disk (the embedded default) or an S3-compatible bucket. */
  FILES_STORAGE: z.enum(['local', 's3']).default('local'),
  FILES_LOCAL_DIR: z.string().min(1).default('.data/files'),
  /** Largest upload; S3 takes any size in parts, 5 GiB is our ceiling. */
  FILES_MAX_BYTES: int
    .min(1)
    .max(5 * 1024 ** 3)
    .default(10 * 1024 ** 2),
  /** How long a download URL works; S3 presigns for 7 days at most. */
  FILES_URL_EXPIRY_SECONDS: int.min(1).max(604_800).default(600),
  FILES_URL_SIGNING_SECRET: z.string().min(32).optional(),
  FILES_S3_BUCKET: z.string().min(3).max(63).optional(),
  FILES_S3_REGION: z.string().min(1).default('us-east-1'),
  FILES_S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  FILES_S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'], 'must be true or false')
    .default('false')
    .transform((v) => v === 'true'),
  FILES_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  FILES_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /**
   * Where the members' notification mails go: `outbox`, a folder of `.eml` files (the embedded default),
   * or `smtp`, a mail server. Unset: smtp when SMTP_URL is set, so a URL is never silently ignored.
   */
  MAILER: z.enum(['outbox', 'smtp']).optional(),
  /** `smtp://` (STARTTLS when offered) or `smtps://` (TLS), with `user:password@` when the server wants them. */
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().regex(MAILBOX, 'must be an address or "Name <address>"').optional(),
  MAIL_OUTBOX_DIR: z.string().min(1).default('.data/mail'),
});

/** The sandbox's fixed callback secret: known to everyone, so never accepted in production. */
export const DEV_GATEWAY_CALLBACK_SECRET = 'sandbox-gateway-callback-secret-0123456789';

/** Secrets printed in this repository (docker-compose.yml's placeholder, the sandbox's): never live ones. */
export const PUBLISHED_SECRETS: readonly string[] = [
  'change-me-change-me-change-me-change-me',
  DEV_GATEWAY_CALLBACK_SECRET,
];

export type Config = z.infer<typeof schema> & {
  /** Requests per window per credential: 100 in the sandbox, 1000 in production unless overridden. */
  rateLimitMax: number;
  gateway: 'simulator' | 'http' | 'mercadopago' | 'efi';
  /** Whether card data may reach this server (domain/card-data.ts). */
  acceptsCardData: boolean;
  publicBaseUrl: string;
  checkoutLinkBase: string;
  /** Where the gateway posts its callbacks (our callback endpoint) and the secret that signs them. */
  gatewayCallbackUrl: string;
  gatewayCallbackSecret: string;
  /** Signs the local disk's download URLs: FILES_URL_SIGNING_SECRET, else derived from the callback secret. */
  filesUrlSigningSecret: string;
  mailer: 'outbox' | 'smtp';
  /** The notifications' sender: MAIL_FROM, else a local address the outbox can show. */
  mailFrom: string;
  /** The dashboard's OpenID Connect sign-in, when OIDC_ISSUER_URL is set. */
  oidc: OidcSettings | null;
};

export interface OidcSettings {
  issuer: URL;
  clientId: string;
  clientSecret: string | null;
  scopes: string;
  /** `${publicBaseUrl}/dashboard/sign-in/oidc/callback`: registered with the provider. */
  redirectUri: string;
}

export class ConfigError extends Error {}

/** Which process reads the settings: each requires only what it uses (only the API verifies JWTs). */
export type ProcessRole = 'api' | 'worker' | 'migrate';

export function loadConfig(env: NodeJS.ProcessEnv = process.env, role: ProcessRole = 'api'): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid environment configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  if (role === 'api' && !c.JWT_SECRET && !c.JWT_JWKS_URL) {
    throw new ConfigError('Invalid environment configuration:\n  JWT_SECRET or JWT_JWKS_URL: one of them must be set');
  }
  const gateway = c.GATEWAY ?? (c.DEPLOYMENT_ENV === 'test' ? 'simulator' : 'http');
  if (gateway === 'http' && !c.GATEWAY_URL) {
    throw new ConfigError('Invalid environment configuration:\n  GATEWAY_URL: required when GATEWAY is http');
  }
  if (gateway === 'mercadopago' && !c.MERCADOPAGO_ACCESS_TOKEN) {
    throw new ConfigError(
      'Invalid environment configuration:\n  MERCADOPAGO_ACCESS_TOKEN: required when GATEWAY is mercadopago',
    );
  }
  if (gateway === 'efi') checkEfi(c);
  if (c.DEPLOYMENT_ENV === 'live' && !c.GATEWAY_CALLBACK_SECRET) {
    throw new ConfigError(
      'Invalid environment configuration:\n  GATEWAY_CALLBACK_SECRET: required when DEPLOYMENT_ENV is live',
    );
  }
  if (c.DEPLOYMENT_ENV === 'live') {
    const published = (['JWT_SECRET', 'GATEWAY_CALLBACK_SECRET'] as const).filter((name) =>
      PUBLISHED_SECRETS.includes(c[name] ?? ''),
    );
    if (published.length > 0) {
      throw new ConfigError(
        `Invalid environment configuration:
  ${published.join(', ')}: a secret published in this repository ` +
          '(a placeholder) cannot be used when DEPLOYMENT_ENV is live',
      );
    }
  }
  if (role === 'api') checkFileStorage(c);
  const mailer = c.MAILER ?? (c.SMTP_URL ? 'smtp' : 'outbox');
  if (mailer === 'smtp' && !c.SMTP_URL) {
    throw new ConfigError('Invalid environment configuration:\n  SMTP_URL: required when MAILER is smtp');
  }
  // A real server refuses (or a recipient's spam filter drops) mail from a made-up local sender.
  if (mailer === 'smtp' && !c.MAIL_FROM) {
    throw new ConfigError('Invalid environment configuration:\n  MAIL_FROM: required when mail goes through SMTP');
  }
  const publicBaseUrl = c.PUBLIC_BASE_URL ?? `https://${c.HOST}:${c.PORT}`;
  const oidc = role === 'api' ? oidcSettings(c, publicBaseUrl) : null;
  return {
    ...c,
    rateLimitMax: c.RATE_LIMIT_MAX ?? (c.DEPLOYMENT_ENV === 'live' ? 1000 : 100),
    gateway,
    acceptsCardData: cardDataAccepted(c.DEPLOYMENT_ENV, c.ACCEPT_RAW_CARD_DATA_IN_FULL_PCI_SCOPE),
    publicBaseUrl,
    checkoutLinkBase: c.CHECKOUT_LINK_BASE ?? `${publicBaseUrl}/checkout`,
    gatewayCallbackUrl: c.GATEWAY_CALLBACK_URL ?? `${publicBaseUrl}/api/v1/gateway/callbacks`,
    gatewayCallbackSecret: c.GATEWAY_CALLBACK_SECRET ?? DEV_GATEWAY_CALLBACK_SECRET,
    filesUrlSigningSecret:
      c.FILES_URL_SIGNING_SECRET ??
      derivedSecret(c.GATEWAY_CALLBACK_SECRET ?? DEV_GATEWAY_CALLBACK_SECRET, 'files.download-urls'),
    mailer,
    mailFrom: c.MAIL_FROM ?? 'Billing <billing@localhost>',
    oidc,
  };
}

/**
 * The identity provider's settings, together. The session holds the provider's ID token, which the
 * API then verifies as any user JWT: so the provider's keys (JWT_JWKS_URL) must be the API's, and
 * the ID token's audience (the client id) one JWT_AUDIENCE lists, when it lists any.
 */
function oidcSettings(c: z.infer<typeof schema>, publicBaseUrl: string): OidcSettings | null {
  const problem = (line: string) => new ConfigError(`Invalid environment configuration:\n  ${line}`);
  if (!c.OIDC_ISSUER_URL) return null;
  if (!c.OIDC_CLIENT_ID) throw problem('OIDC_CLIENT_ID: required when OIDC_ISSUER_URL is set');
  if (!c.JWT_JWKS_URL) {
    throw problem("JWT_JWKS_URL: required when OIDC_ISSUER_URL is set (the provider's jwks_uri)");
  }
  if (c.JWT_AUDIENCE && !c.JWT_AUDIENCE.includes(c.OIDC_CLIENT_ID)) {
    throw problem("JWT_AUDIENCE: must list OIDC_CLIENT_ID (the audience of the provider's ID tokens)");
  }
  const bare = (url: string) => url.replace(/\/+$/, '');
  if (c.JWT_ISSUER && bare(c.JWT_ISSUER) !== bare(c.OIDC_ISSUER_URL)) {
    throw problem('JWT_ISSUER: must be OIDC_ISSUER_URL (the issuer of the ID tokens the dashboard signs in with)');
  }
  return {
    issuer: new URL(c.OIDC_ISSUER_URL),
    clientId: c.OIDC_CLIENT_ID,
    clientSecret: c.OIDC_CLIENT_SECRET ?? null,
    scopes: c.OIDC_SCOPES,
    redirectUri: `${publicBaseUrl.replace(/\/$/, '')}/dashboard/sign-in/oidc/callback`,
  };
}

/**
 * GATEWAY=efi needs the application's credentials, its certificate, the environment it is for and the
 * receiver's pix key; a production one (EFI_SANDBOX=false) also a certificate file that exists, since
 * the SDK reads it only at the first call, which would otherwise fail on a buyer's checkout.
 */
function checkEfi(c: z.infer<typeof schema>): void {
  const problem = (line: string) => new ConfigError(`Invalid environment configuration:\n  ${line}`);
  const missing = (
    ['EFI_CLIENT_ID', 'EFI_CLIENT_SECRET', 'EFI_CERTIFICATE', 'EFI_SANDBOX', 'EFI_PIX_KEY'] as const
  ).filter((name) => c[name] === undefined);
  if (missing.length > 0) throw problem(`${missing.join(', ')}: required when GATEWAY is efi`);
  if (c.EFI_SANDBOX === false && !existsSync(c.EFI_CERTIFICATE!)) {
    throw problem(`EFI_CERTIFICATE: no file at ${c.EFI_CERTIFICATE} (Efí's production API needs its .p12 certificate)`);
  }
}

/** Only the API stores files: the settings FILES_STORAGE needs, together. */
function checkFileStorage(c: z.infer<typeof schema>): void {
  const problem = (line: string) => new ConfigError(`Invalid environment configuration:\n  ${line}`);
  if (c.FILES_STORAGE === 's3' && !c.FILES_S3_BUCKET) {
    throw problem('FILES_S3_BUCKET: required when FILES_STORAGE is s3');
  }
  if (!c.FILES_S3_ACCESS_KEY_ID !== !c.FILES_S3_SECRET_ACCESS_KEY) {
    throw problem(
      'FILES_S3_ACCESS_KEY_ID / FILES_S3_SECRET_ACCESS_KEY: set both, or neither for the AWS default credential chain',
    );
  }
}

/**
 * A key of its own for one use, derived (HKDF-SHA256) from a secret every API process of the
 * deployment already shares, so they all sign alike without one more secret to manage. Production
 * requires that secret, so its derived keys are never the sandbox's public ones.
 */
function derivedSecret(secret: string, use: string): string {
  return Buffer.from(hkdfSync('sha256', secret, '', use, 32)).toString('base64url');
}

/** For process entry points: print the problem and exit instead of a stack trace. */
export function loadConfigOrExit(role: ProcessRole): Config {
  try {
    return loadConfig(process.env, role);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
