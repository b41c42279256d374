import type { Config } from '../config/env.ts';

/**
 * Who turns the buyer's card into a token in the buyer's own browser, so that the card number never
 * reaches this server: MercadoPago.js v2 (GATEWAY=mercadopago), or the sandbox's look-alike script,
 * which posts to our sandbox tokenization endpoint (the simulator, embedded or over HTTP). The page's
 * script calls both the same way (`new MercadoPago(key).createCardToken(…)`).
 */

/** MercadoPago.js v2 as Mercado Pago serves it (its production requirements forbid hosting a copy). */
export const MERCADOPAGO_JS = 'https://sdk.mercadopago.com/js/v2';

/**
 * The sandbox tokenizer's public key: printed here, like the sandbox's callback secret, and the only
 * key its endpoint takes (a page built with another key is a mistake worth seeing).
 */
export const SANDBOX_PUBLIC_KEY = 'TEST-sandbox-public-key';

/** The sources a page with the tokenizer adds to its CSP: exactly the gateway's, nothing wider. */
export interface GatewaySources {
  scriptSrc: string[];
  connectSrc: string[];
  /** The frames the gateway mounts its Secure Fields in (none: no frame-src beyond default-src). */
  frameSrc?: string[];
}

export interface BrowserTokenizer {
  /** Our asset's name, or the gateway's own script's URL. */
  script: string;
  publicKey: string;
  sources: GatewaySources;
}

/**
 * MercadoPago.js loads from sdk.mercadopago.com; its Secure Fields are frames of
 * secure-fields.mercadopago.com, which the script also fetches (with api-static.mercadopago.com, its
 * static configuration) before mounting them; the token and the BIN look-ups (payment methods,
 * instalments) are api.mercadopago.com. docs/decisions/0075-secure-fields.md says where these come
 * from and how to confirm them against a test account before going live.
 */
export const MERCADOPAGO_SOURCES: GatewaySources = {
  scriptSrc: ['https://sdk.mercadopago.com'],
  connectSrc: [
    'https://api.mercadopago.com',
    'https://api-static.mercadopago.com',
    'https://secure-fields.mercadopago.com',
  ],
  frameSrc: ['https://secure-fields.mercadopago.com'],
};

/**
 * Whether this deployment serves the sandbox tokenization endpoint: with the simulator (embedded or
 * over HTTP), and only where card data may reach this server, since that endpoint receives it.
 */
export function servesSandboxTokenizer(config: Pick<Config, 'gateway' | 'acceptsCardData'>): boolean {
  return (config.gateway === 'simulator' || config.gateway === 'http') && config.acceptsCardData;
}

/** The page's tokenizer; null when this deployment cannot take a card from a page at all. */
export function browserTokenizer(
  config: Pick<Config, 'gateway' | 'acceptsCardData' | 'MERCADOPAGO_PUBLIC_KEY'>,
): BrowserTokenizer | null {
  if (config.gateway === 'mercadopago') {
    if (!config.MERCADOPAGO_PUBLIC_KEY) return null;
    return { script: MERCADOPAGO_JS, publicKey: config.MERCADOPAGO_PUBLIC_KEY, sources: MERCADOPAGO_SOURCES };
  }
  if (!servesSandboxTokenizer(config)) return null;
  // Same origin as the page: 'self' covers both the script and its post.
  return { script: 'sandbox-gateway.js', publicKey: SANDBOX_PUBLIC_KEY, sources: { scriptSrc: [], connectSrc: [] } };
}
