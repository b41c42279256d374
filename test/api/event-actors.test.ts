import { describe, expect, it } from '@jest/globals';
import type { Client } from '@temporalio/client';
import { hashSecret } from '../../api/auth/tokens.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeTenant } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';
import { paidSubscription } from '../helpers/subscriptions.ts';

/**
 * Events record who acted (`actor`): the API key, access token, user or customer whose request made
 * the change (in the API, or in the workflow the request updated), or the system (a renewal). Read
 * back through GET /events, against the real worker.
 */
let api: TestApi;
let temporal: Client;
useApi((started) => ({ api, temporal } = started));

const sql = <T = Record<string, any>>(q: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(q, params);
const oatId = async (token: string) =>
  (await sql<{ id: string }>('select id from organization_access_tokens where token_hash = ?', [hashSecret(token)]))[0]!
    .id;

/** The events about record `id` as GET /events shows them: type and actor, oldest first. */
async function actorsOf(token: string, id: string): Promise<[string, unknown][]> {
  const res = await api.call('GET', `/api/v1/events/?object_id=${id}&sorting=created_at&limit=100`, { token });
  expect(res.status).toBe(200);
  return res.body.items.map((e: any) => [e.type, e.actor]);
}

describe('event actors', () => {
  it('the API key, the access token and the user whose requests made the changes', async () => {
    const T = await makeTenant(api.orm);
    const key = await makeApiKey(api.orm, T.org.id, { scopes: ['read', 'write'] });
    const created = await api.call('POST', '/api/v1/customers/', {
      headers: { 'x-service-api-key': key.key },
      body: { email: 'actor@example.com', name: 'Ana' },
    });
    expect(created.status).toBe(201);
    const updated = await api.call('PATCH', `/api/v1/customers/${created.body.id}`, {
      token: T.oat,
      body: { name: 'Ana Maria' },
    });
    expect(updated.status).toBe(200);
    expect(await actorsOf(T.oat, created.body.id)).toEqual([
      ['customer.created', { type: 'api_key', id: key.id }],
      ['customer.updated', { type: 'access_token', id: await oatId(T.oat) }],
    ]);
    const renamed = await api.call('PATCH', `/api/v1/organizations/${T.org.id}`, {
      token: T.ownerJwt,
      body: { name: 'Renamed by its owner' },
    });
    expect(renamed.status).toBe(200);
    const [event] = await sql<{ actor: unknown }>(
      "select actor from events where organization_id = ? and type = 'organization.updated'",
      [T.org.id],
    );
    expect(event!.actor).toEqual({ type: 'user', id: T.ownerId });
  });

  it("a subscription's renewal is the system's, its cancellation the customer's, its revocation the access token's", async () => {
    const T = await makeTenant(api.orm);
    const { row } = await paidSubscription(api, temporal, { organizationId: T.org.id, recurrenceBilling: 'manual' });
    const id = row.id as string;
    const to = new Date(Date.parse(row.current_period_end) + 3_600_000).toISOString();
    const advanced = await api.call('POST', `/api/v1/subscriptions/${id}/test-clock/advance`, {
      body: { to },
      token: T.oat,
    });
    expect(advanced.status).toBe(200);
    await waitFor(async () => (await sql('select 1 from sales where subscription_id = ?', [id])).length === 2, {
      what: 'the renewal sale',
      timeoutMs: 20_000,
    });
    // The customer, in their portal, asks to cancel at the period's end.
    const session = await api.call('POST', '/api/v1/customer-portal/sessions/', {
      token: T.oat,
      body: { customer_id: row.customer_id },
    });
    expect(session.status).toBe(201);
    const canceled = await api.call('PATCH', `/api/v1/customer-portal/subscriptions/${id}`, {
      token: session.body.token,
      body: { cancel_at_period_end: true },
    });
    expect(canceled.status).toBe(200);
    const revoked = await api.call('PATCH', `/api/v1/subscriptions/${id}`, { body: { revoke: true }, token: T.oat });
    expect(revoked.status).toBe(200);
    // The buyer's confirmation (no credential) made it; the advance only moved the clock: the renewal is the system's.
    expect(await actorsOf(T.oat, id)).toEqual([
      ['subscription.created', { type: 'customer', id: null }],
      ['subscription.active', { type: 'customer', id: null }],
      ['subscription.updated', { type: 'system', id: null }],
      ['subscription.updated', { type: 'customer', id: row.customer_id }],
      ['subscription.revoked', { type: 'access_token', id: await oatId(T.oat) }],
    ]);
  });
});
