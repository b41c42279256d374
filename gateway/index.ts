import type { Config } from '../config/env.ts';
import { openOrm, type Orm } from '../db/orm.ts';
import { EfiGateway } from './efi-adapter.ts';
import { efiNoticeUrl } from './efi-notifications.ts';
import { HttpGateway } from './http-adapter.ts';
import { MercadoPagoGateway } from './mercadopago-adapter.ts';
import { webhooksOnly } from './mercadopago-notifications.ts';
import type { PaymentGateway } from './port.ts';

/**
 * The simulated gateway's package, a devDependency (docs/decisions/0061-simulator-package.md): loaded
 * only when GATEWAY=simulator, by a dynamic import (.dependency-cruiser.cjs refuses a static one), so the
 * production install, which omits devDependencies, never needs it.
 */
async function simulatorPackage(): Promise<{
  SimulatedGateway: new (
    orm: Orm,
    callbacks: { callbackUrl: string; callbackSecret: string },
    options: { pixExpiryWindow: { minSeconds: number; maxSeconds: number } },
  ) => PaymentGateway;
  ENGINE_PIX_WINDOW: { minSeconds: number; maxSeconds: number };
  migrateSimulator(databaseUrl: string): Promise<string[]>;
}> {
  try {
    return await import('@billing/simulated-gateway');
  } catch (err) {
    // Only the package itself missing (not a module it imports) is the production install's case.
    const { code, message } = err as { code?: string; message?: string };
    if (code !== 'ERR_MODULE_NOT_FOUND' || !message?.includes("'@billing/simulated-gateway'")) throw err;
    throw new Error(
      'GATEWAY=simulator needs @billing/simulated-gateway, a development package this install does not have (the production ' +
        'image leaves it out): set GATEWAY=http or GATEWAY=mercadopago',
      { cause: err },
    );
  }
}

/** The sandbox's simulator takes the pix the engine asks for (a checkout's last half hour), not only Mercado Pago's. */
const simulator = async (config: Config, orm: Orm) => {
  const sim = await simulatorPackage();
  return new sim.SimulatedGateway(
    orm,
    { callbackUrl: config.gatewayCallbackUrl, callbackSecret: config.gatewayCallbackSecret },
    { pixExpiryWindow: sim.ENGINE_PIX_WINDOW },
  );
};

/** The simulator's books (schema gateway_sim, its own migrations), where GATEWAY=simulator keeps them. */
export async function migrateGatewayBooks(config: Config): Promise<void> {
  if (config.gateway === 'simulator') await (await simulatorPackage()).migrateSimulator(config.DATABASE_URL);
}

const httpGateway = (config: Config) =>
  new HttpGateway({
    // loadConfig refuses GATEWAY=http without GATEWAY_URL.
    baseUrl: config.GATEWAY_URL!,
    apiKey: config.GATEWAY_API_KEY ?? '',
    timeoutMs: config.GATEWAY_TIMEOUT_MS,
  });

const mercadoPago = (config: Config) =>
  new MercadoPagoGateway({
    // loadConfig refuses GATEWAY=mercadopago without MERCADOPAGO_ACCESS_TOKEN.
    accessToken: config.MERCADOPAGO_ACCESS_TOKEN!,
    timeoutMs: config.MERCADOPAGO_TIMEOUT_MS,
    // Webhooks only: without source_news=webhooks Mercado Pago also sends its unsigned IPN notices there.
    notificationUrl: config.MERCADOPAGO_NOTIFICATION_URL ? webhooksOnly(config.MERCADOPAGO_NOTIFICATION_URL) : null,
    acceptCardData: config.acceptsCardData,
    statementDescriptor: config.MERCADOPAGO_STATEMENT_DESCRIPTOR ?? null,
  });

/** loadConfig refuses GATEWAY=efi without its credentials, certificate, environment and pix key. */
export const efiGateway = (config: Config) =>
  new EfiGateway({
    clientId: config.EFI_CLIENT_ID!,
    clientSecret: config.EFI_CLIENT_SECRET!,
    certificate: config.EFI_CERTIFICATE!,
    sandbox: config.EFI_SANDBOX!,
    pixKey: config.EFI_PIX_KEY!,
    account: config.EFI_ACCOUNT_NUMBER
      ? { number: config.EFI_ACCOUNT_NUMBER, agency: config.EFI_ACCOUNT_AGENCY, type: 'PAGAMENTO' }
      : null,
    timeoutMs: config.EFI_TIMEOUT_MS,
    notificationUrl: config.EFI_WEBHOOK_HMAC
      ? efiNoticeUrl(`${config.publicBaseUrl}/api/v1/gateway/efi/notifications`, config.EFI_WEBHOOK_HMAC, 'charge')
      : null,
  });

/** A remote gateway: the HTTP adapter (GATEWAY=http), Mercado Pago (GATEWAY=mercadopago) or Efí (GATEWAY=efi). */
const remoteGateway = (config: Config): PaymentGateway =>
  config.gateway === 'mercadopago'
    ? mercadoPago(config)
    : config.gateway === 'efi'
      ? efiGateway(config)
      : httpGateway(config);

/** Sandbox deployments use the simulator (on `orm`); production the configured remote gateway. */
export async function createGateway(config: Config, orm: Orm): Promise<PaymentGateway> {
  return config.gateway === 'simulator' ? simulator(config, orm) : remoteGateway(config);
}

/**
 * The embedded simulator's connections: half the process's pool (its calls are short, and a worker
 * runs at most that many batch activities at once), so a process stays within about 1.5× its pool.
 */
export const simulatorPoolMax = (poolMax: number) => Math.max(2, Math.ceil(poolMax / 2));

/**
 * The gateway a process serves with. The embedded simulator stands in for a remote service, so it
 * gets a pool of its own: a renewal holds one of the process's connections (the subscription's row
 * lock) while it calls the gateway, and a simulator drawing from that same pool would deadlock once
 * as many renewals ran at once as the pool has connections.
 */
export async function openGateway(
  config: Config,
  applicationName: string,
): Promise<{ gateway: PaymentGateway; close(): Promise<void> }> {
  if (config.gateway !== 'simulator') return { gateway: remoteGateway(config), close: async () => {} };
  const orm = await openOrm(config.DATABASE_URL, simulatorPoolMax(config.DATABASE_POOL_MAX), {
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    applicationName: `${applicationName}-simulator`,
  });
  return { gateway: await simulator(config, orm), close: () => orm.close() };
}
