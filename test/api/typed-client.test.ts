import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Agent } from 'undici';
import { billingClient, sellOnce } from '../../examples/typed-client/client.ts';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/client-types.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';

/** The typed client of docs/api.md (examples/typed-client/): its generated types are current, and it works. */
let api: TestApi;

beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

describe('the typed client example', () => {
  it('is built from types generated from the current document (run `npm run client:types` after a schema change)', async () => {
    const committed = await readFile(CLIENT_TYPES_FILE, 'utf8');
    const current = await clientTypes();
    // Compared line by line: a failure shows the operations that changed, not a 12,000-line blob.
    const changed = current.split('\n').filter((line, i) => committed.split('\n')[i] !== line);
    expect(changed.slice(0, 20)).toEqual([]);
    expect(committed).toBe(current);
  });

  it('creates a product and a checkout, and reads the checkout back', async () => {
    const tenant = await makeTenant(api.orm);
    // The test run's certificate is self-signed: this fetch trusts it, as the curl calls of the README and
    // docs/api.md use -k.
    const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
    const fetch = (input: string | URL | Request, init?: RequestInit) =>
      globalThis.fetch(input, { ...init, dispatcher } as RequestInit);
    const client = billingClient({ baseUrl: api.baseUrl, accessToken: tenant.oat, fetch });
    const checkout = await sellOnce(client, tenant.org.id);
    expect(checkout).toMatchObject({
      status: 'open',
      amount: 4990,
      currency: 'BRL',
      customer_email: 'buyer@example.com',
    });
  });
});
