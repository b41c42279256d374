import ipaddr from 'ipaddr.js';

/**
 * Webhook rules shared by the API (endpoint URLs), the relay (which endpoints get an event) and the
 * delivery workflow (when to try again). Pure: no I/O, so the workflow bundle can import it.
 */

/** One delivery per (event, endpoint): the workflow id makes a second start of the same pair a no-op. */
export const webhookWorkflowId = (eventId: string, endpointId: string) => `webhook:${eventId}:${endpointId}`;

/** The event a merchant's "send test" produces: delivered to that one endpoint only. */
export const PING_EVENT = 'webhook_endpoint.ping';

/**
 * Waits before the 2nd, 3rd, … attempt (Standard Webhooks' usual schedule, stretched to about three
 * days): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. Eleven attempts in all, the last
 * about 75 hours after the first.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];

/**
 * The wait after failed attempt `attempt` (1-based), jittered by up to ±20 % with `random` in [0, 1)
 * so endpoints that fail together are not retried together; null when the attempts are used up.
 */
export function retryDelayMs(attempt: number, random: number): number | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  return Math.round(base * (0.8 + 0.4 * random));
}

/** An endpoint whose every delivery has failed for this long is disabled (its owner gets an event). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3_600_000;

/** A rotated-out secret keeps signing (beside the new one) this long, so receivers can switch over. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

/** Only 2xx is success (a redirect is not followed: the merchant must give the final URL). */
export const isSuccessStatus = (status: number) => status >= 200 && status < 300;

/** Whether an endpoint subscribed to `eventTypes` (empty: every type) gets events of `type`. */
export function endpointWants(eventTypes: readonly string[], type: string): boolean {
  return eventTypes.length === 0 || eventTypes.includes(type);
}

export type DeploymentEnv = 'test' | 'live';

/**
 * Why an endpoint URL is refused as written, or null: HTTPS, except `http://` to a loopback address
 * in the sandbox (a developer's local server); in production no loopback or private literal
 * address. A host name is checked again after DNS at each delivery (publicAddressRefusal).
 */
export function endpointUrlRefusal(url: string, env: DeploymentEnv): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute URL';
  }
  if (parsed.username || parsed.password) return 'must not carry credentials';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const loopback = host === 'localhost' || (ipaddr.isValid(host) && rangeOf(host) === 'loopback');
  if (parsed.protocol === 'http:') {
    return env === 'test' && loopback ? null : 'must use https (http only to a loopback address in the sandbox)';
  }
  if (parsed.protocol !== 'https:') return 'must use https';
  if (env === 'live' && (loopback || (ipaddr.isValid(host) && !isPublic(host)))) {
    return 'must not be a loopback or private address';
  }
  return null;
}

/**
 * The SSRF guard at delivery time, over the addresses the host resolved to: in production every one
 * must be public (a name that resolves to 10.0.0.5 or 127.0.0.1 is refused); in the sandbox only
 * the URL rule applies.
 */
export function publicAddressRefusal(addresses: readonly string[], env: DeploymentEnv): string | null {
  if (env === 'test') return null;
  const blocked = addresses.find((a) => !isPublic(a));
  return blocked ? `resolves to a non-public address (${blocked})` : null;
}

function rangeOf(address: string): string {
  const parsed = ipaddr.parse(address);
  // An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address().range();
  }
  return parsed.range();
}

const isPublic = (address: string) => ipaddr.isValid(address) && rangeOf(address) === 'unicast';
