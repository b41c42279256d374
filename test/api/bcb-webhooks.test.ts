import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { CALLBACK_SIGNATURE_HEADER, signCallback } from '../../gateway/callback-signature.ts';
import { useApi, type TestApi } from '../helpers/api.ts';
import { subscribeByPixAutomatico } from '../helpers/pix-automatico-buyers.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The BCB's Pix Automático webhooks (decision 0103): the simulator, with our `…/callbacks/bcb` registered
 * as PUT /webhookrec and /webhookcobr would, notifies recs and cobrs only by the BCB's `{ recs }` and
 * `{ cobsr }` bodies (signed, the sandbox's stand-in for mTLS), here reversed and each twice. A payer who
 * revokes the mandate in their bank's app (the simulator, outside our API) is heard of by that webhook
 * alone: the mandate ends cancelled by the payer, with one event. An unsigned webhook is refused; one
 * naming no mandate of ours is acknowledged and ignored.
 */
let api: TestApi;
useApi((started) => ({ api } = started), { callbacksHere: true });
const sim = () => api.gateway as SimulatedGateway;
const BCB = '/api/v1/gateway/callbacks/bcb';

beforeAll(() => {
  sim().bcbWebhooks.rec = sim().bcbWebhooks.cobr = `${api.baseUrl}${BCB}`;
  sim().callbacks.callbackSecret = api.config.gatewayCallbackSecret;
  sim().faults.mandateNoticesTwiceReversed = true;
});
afterAll(() => {
  sim().faults.mandateNoticesTwiceReversed = false;
});

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

/** A Pix Automático checkout paid by the mandate's QR code: the subscription's approved mandate. */
async function approvedMandate(tenant: Tenant) {
  const { subscription } = await subscribeByPixAutomatico(api, tenant);
  return waitFor(
    async () =>
      (
        await sql(`select id, gateway_mandate_id from mandates where subscription_id = ? and status = 'approved'`, [
          subscription.id,
        ])
      )[0] as { id: string; gateway_mandate_id: string } | undefined,
    { what: 'the subscription to adopt its approved mandate', timeoutMs: 20_000 },
  );
}

const signedPost = (path: string, body: unknown) => {
  const raw = JSON.stringify(body);
  const signature = signCallback(api.config.gatewayCallbackSecret, raw, new Date());
  return api.call('POST', `${BCB}${path}`, {
    raw,
    headers: { 'content-type': 'application/json', [CALLBACK_SIGNATURE_HEADER]: signature },
  });
};

describe('the BCB’s Pix Automático webhooks', () => {
  it('a payer’s revocation in their bank is heard by webhookrec alone, reversed and twice: cancelled once', async () => {
    const tenant = await makeTenant(api.orm);
    const mandate = await approvedMandate(tenant);
    await sim().revokeMandate(mandate.gateway_mandate_id);
    const row = await waitFor(
      async () => (await sql(`select * from mandates where id = ? and status = 'cancelled'`, [mandate.id]))[0],
      { what: 'the revocation to reach our mandate', timeoutMs: 20_000 },
    );
    expect(row).toMatchObject({ cancelled_by: 'payer', cancellation_code: 'SLDB' });
    await sim().settleCallbacks();
    const events = await sql(
      `select type from events where organization_id = ? and type like 'mandate.%' order by id`,
      [tenant.org.id],
    );
    expect(events.map((e) => e.type)).toEqual(['mandate.created', 'mandate.approved', 'mandate.cancelled']);
  });

  it('refuses an unsigned webhook; acknowledges one naming no mandate or charge of ours', async () => {
    const unsigned = await api.call('POST', `${BCB}/rec`, { body: { recs: [{ idRec: 'RR123' }] } });
    expect(unsigned.status).toBe(401);
    const rec = await signedPost('/rec', { recs: [{ idRec: 'RR00000000000000000000000000', status: 'APROVADA' }] });
    expect([rec.status, rec.body]).toEqual([200, { received: true }]);
    const cobr = await signedPost('/cobr', { cobsr: [{ txid: 'nonesuch00000000000000000000', status: 'ATIVA' }] });
    expect([cobr.status, cobr.body]).toEqual([200, { received: true }]);
  });
});
