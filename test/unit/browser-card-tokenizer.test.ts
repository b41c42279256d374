import { describe, expect, it } from '@jest/globals';
import {
  browserTokenizer,
  MERCADOPAGO_JS,
  SANDBOX_PUBLIC_KEY,
  servesSandboxTokenizer,
} from '../../api/browser-card-tokenizer.ts';

/** Which script tokenizes the card in the buyer's browser, per gateway and card-data rule; and the CSP it needs. */
describe('the browser card tokenizer of a deployment', () => {
  const sandbox = {
    script: 'sandbox-gateway.js',
    publicKey: SANDBOX_PUBLIC_KEY,
    sources: { scriptSrc: [], connectSrc: [] },
  };

  it.each([
    ['the embedded simulator', { gateway: 'simulator', acceptsCardData: true }, sandbox],
    ['the simulated server over HTTP', { gateway: 'http', acceptsCardData: true }, sandbox],
    // Its endpoint receives the card data: never where card data is refused.
    ['an HTTP gateway where card data is refused', { gateway: 'http', acceptsCardData: false }, null],
    [
      'Mercado Pago with a public key',
      { gateway: 'mercadopago', acceptsCardData: false, MERCADOPAGO_PUBLIC_KEY: 'APP_USR-pk' },
      {
        script: MERCADOPAGO_JS,
        publicKey: 'APP_USR-pk',
        // Secure Fields (decision 0075): the SDK, its API and static look-ups, and the fields' frames.
        sources: {
          scriptSrc: ['https://sdk.mercadopago.com'],
          connectSrc: [
            'https://api.mercadopago.com',
            'https://api-static.mercadopago.com',
            'https://secure-fields.mercadopago.com',
          ],
          frameSrc: ['https://secure-fields.mercadopago.com'],
        },
      },
    ],
    ['Mercado Pago without one', { gateway: 'mercadopago', acceptsCardData: true }, null],
  ] as const)('%s', (_label, config, expected) => {
    expect(browserTokenizer(config)).toEqual(expected);
    expect(servesSandboxTokenizer(config)).toBe(expected?.script === 'sandbox-gateway.js');
  });

  it("loads MercadoPago.js from Mercado Pago's own address", () => {
    expect(MERCADOPAGO_JS).toBe('https://sdk.mercadopago.com/js/v2');
    expect(new URL(MERCADOPAGO_JS).origin).toBe(
      browserTokenizer({ gateway: 'mercadopago', acceptsCardData: false, MERCADOPAGO_PUBLIC_KEY: 'k' })!.sources
        .scriptSrc[0],
    );
  });
});
