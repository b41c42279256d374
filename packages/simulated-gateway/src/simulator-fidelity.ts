import { GatewayError, type GatewayTransaction, type PixChargeInput } from '../../../gateway/port.ts';

/**
 * Where the simulator behaves as Mercado Pago does rather than as a kind gateway would (issue 33 §6,
 * docs/decisions/0080-simulator-lags-and-pix-window.md): its payment search lags, and it refuses the
 * pix Mercado Pago refuses.
 */

/** The validity a pix may be asked for, in seconds from the moment the gateway receives the call. */
export interface PixExpiryWindow {
  minSeconds: number;
  maxSeconds: number;
}

/**
 * Mercado Pago's: "between 30 minutes and up to 30 days from the date of issue" (Checkout API,
 * receiving payments by Pix). The simulator's default.
 */
export const MERCADO_PAGO_PIX_WINDOW: PixExpiryWindow = { minSeconds: 30 * 60, maxSeconds: 30 * 24 * 3600 };

/**
 * The engine's own range: a checkout's pix lasts until the checkout expires (30 minutes at most, a
 * second at least: domain/pending-payments.ts); only Mercado Pago's adapter raises it to Mercado
 * Pago's floor. The sandbox's simulator (GATEWAY=simulator, the standalone server) takes it, so a
 * checkout confirmed in its last half hour, and the tests that let a pix lapse in seconds, work.
 */
export const ENGINE_PIX_WINDOW: PixExpiryWindow = { minSeconds: 1, maxSeconds: 30 * 24 * 3600 };

/**
 * Refuses (not retryable: the same call is refused again) a pix Mercado Pago would refuse: its expiry
 * outside `window`, or no payer e-mail ("you will need to send the buyer's email address").
 */
export function assertPixAccepted(input: PixChargeInput, window: PixExpiryWindow): void {
  if (!Number.isInteger(input.expiresInSeconds) || input.expiresInSeconds <= 0) {
    throw new GatewayError('expiresInSeconds must be a positive integer', false);
  }
  const { minSeconds, maxSeconds } = window;
  if (input.expiresInSeconds < minSeconds || input.expiresInSeconds > maxSeconds) {
    throw new GatewayError(
      `A pix must expire between ${minSeconds} seconds and ${maxSeconds} seconds from its issue ` +
        `(Mercado Pago: 30 minutes to 30 days); asked: ${input.expiresInSeconds} seconds`,
      false,
    );
  }
  if (!input.buyer?.email) {
    throw new GatewayError("A pix needs the payer's e-mail (buyer.email), as Mercado Pago requires", false);
  }
}

/**
 * Mercado Pago's payment search, which the lookup by key stands for, lags a new payment (minutes,
 * hours at times). Under the `searchLagMs` fault a transaction younger than the lag is not shown yet;
 * the simulator knows it exists, so it answers what Mercado Pago's adapter answers then (decision 0067):
 * a retryable `search_may_lag`, never the null that means "never processed".
 */
export function assertSearchCaughtUp(found: GatewayTransaction, searchLagMs: number, now: Date): void {
  if (searchLagMs <= 0) return;
  const age = now.getTime() - Date.parse(found.createdAt);
  if (age >= searchLagMs) return;
  throw new GatewayError(
    `search_may_lag: the gateway's search does not show the transaction made under this key yet (${age} ms old, ` +
      `lag ${searchLagMs} ms); ask again`,
    true,
  );
}
