/**
 * A typed client of the billing API: types generated from its OpenAPI document (`npm run
 * client:types` → api/openapi-types.ts, by openapi-typescript), calls through openapi-fetch. Paths, bodies,
 * parameters and responses are checked by the compiler: an unknown path, a wrong type or a missing
 * required field does not compile.
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../api/openapi-types.ts';

export type Checkout = paths['/api/v1/checkouts/{id}']['get']['responses'][200]['content']['application/json'];

export interface ClientOptions {
  /** e.g. https://127.0.0.1:8443 */
  baseUrl: string;
  /** An Organization Access Token (svc_oat_…) with products:write and checkouts:write (or web:write). */
  accessToken: string;
  /** Another fetch, e.g. one that trusts a local self-signed certificate. */
  fetch?: typeof fetch;
}

export function billingClient({ baseUrl, accessToken, fetch }: ClientOptions) {
  return createClient<paths>({
    baseUrl,
    headers: { Authorization: `Bearer ${accessToken}` },
    ...(fetch ? { fetch } : {}),
  });
}

/** Creates a product with one price, opens a checkout for it and reads the checkout back. */
export async function sellOnce(client: ReturnType<typeof billingClient>, organizationId: string): Promise<Checkout> {
  const product = await client.POST('/api/v1/products', {
    body: {
      organization_id: organizationId,
      name: 'Typed T-shirt',
      prices: [{ type: 'one_time', currency: 'brl', unit_amount: 4990 }],
    },
  });
  if (!product.data) throw new Error(`create product: ${product.response.status} ${product.error?.error}`);

  const created = await client.POST('/api/v1/checkouts', {
    params: { header: { 'idempotency-key': crypto.randomUUID() } },
    body: { product_id: product.data.id, customer_email: 'buyer@example.com' },
  });
  if (!created.data) throw new Error(`create checkout: ${created.response.status} ${created.error?.error}`);

  const read = await client.GET('/api/v1/checkouts/{id}', { params: { path: { id: created.data.id } } });
  if (!read.data) throw new Error(`get checkout: ${read.response.status} ${read.error?.error}`);
  return read.data;
}
