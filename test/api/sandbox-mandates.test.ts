import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { SimulatedGateway } from '@billing/simulated-gateway';
import { useApi, startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant } from '../helpers/fixtures.ts';
import { subscribeByPixAutomatico } from '../helpers/pix-automatico-buyers.ts';
import { waitFor } from '../helpers/processes.ts';

/**
 * The sandbox's Pix Automático payer and bank through the API (issue 35 §3): a merchant's subscription
 * billed by Pix Automático, seeded as a buyer would (a checkout paid by its mandate's QR code), whose
 * payer then revokes the mandate or sets a maximum in their bank's app. The routes name our mandate, so
 * another organization's is a 404, and the bank settles only the organization's own charges.
 */
let api: TestApi;
useApi((started) => ({ api } = started), { callbacksHere: true });

type Tenant = Awaited<ReturnType<typeof makeTenant>>;
const sql = (q: string, params: unknown[] = []): Promise<any[]> => api.orm.em.getConnection().execute(q, params);

/** A Pix Automático subscription of `tenant` whose journey-3 mandate the buyer approved by paying its QR code. */
async function approvedMandate(tenant: Tenant) {
  const { subscription } = await subscribeByPixAutomatico(api, tenant);
  return waitFor(
    async () => {
      const list = await api.call('GET', `/api/v1/mandates/?subscription_id=${subscription.id}`, { token: tenant.oat });
      return list.body.items?.[0]?.status === 'approved' ? list.body.items[0] : null;
    },
    { what: 'the subscription to adopt its approved mandate', timeoutMs: 20_000 },
  );
}

const mandateEvents = async (tenant: Tenant) =>
  (
    await sql(`select type from events where organization_id = ? and type like 'mandate.%' order by id`, [
      tenant.org.id,
    ])
  ).map((e) => e.type);
const mandateRow = async (id: string) => (await sql('select * from mandates where id = ?', [id]))[0];

describe("the sandbox's Pix Automático payer", () => {
  it('revokes the mandate in their bank’s app: cancelled by the payer (SLDB), with one mandate.cancelled event', async () => {
    const tenant = await makeTenant(api.orm);
    const mandate = await approvedMandate(tenant);

    const revoked = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/revoke`, { token: tenant.oat });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({
      id: mandate.id,
      status: 'cancelled',
      cancellation: { by: 'payer', code: 'SLDB' },
      ended_at: expect.any(String),
    });
    expect(await mandateRow(mandate.id)).toMatchObject({
      status: 'cancelled',
      cancelled_by: 'payer',
      cancellation_code: 'SLDB',
    });
    // Revoked again: the mandate as it is, and no second event (nor one from the workflow's own sight).
    const again = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/revoke`, { token: tenant.oat });
    expect([again.status, again.body.status]).toEqual([200, 'cancelled']);
    await (api.gateway as SimulatedGateway).settleCallbacks();
    expect(await mandateEvents(tenant)).toEqual(['mandate.created', 'mandate.approved', 'mandate.cancelled']);
    // A cancelled mandate takes no maximum: the bank's refusal, in its words.
    const refused = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/payer-maximum`, {
      token: tenant.oat,
      body: { maximum: 1_000 },
    });
    expect([refused.status, refused.body.code, refused.body.detail]).toEqual([
      422,
      'gateway_refused',
      'Cannot change a mandate that is cancelled',
    ]);
  });

  it('sets and lifts their maximum per charge: the row follows the payer’s bank', async () => {
    const tenant = await makeTenant(api.orm);
    const mandate = await approvedMandate(tenant);
    expect(mandate.payer_maximum).toBeNull();

    const lowered = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/payer-maximum`, {
      token: tenant.oat,
      body: { maximum: 2_000 },
    });
    expect([lowered.status, lowered.body.payer_maximum, lowered.body.status]).toEqual([200, 2_000, 'approved']);
    expect(Number((await mandateRow(mandate.id)).payer_maximum)).toBe(2_000);
    // The BCB's receiver API does not show the payer's maximum; the simulator's getMandate does.
    const atGateway = await (api.gateway as SimulatedGateway).getMandate(mandate.gateway_mandate_id);
    expect(atGateway?.payerMaximum).toBe(2_000);

    const lifted = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/payer-maximum`, {
      token: tenant.oat,
      body: { maximum: null },
    });
    expect([lifted.status, lifted.body.payer_maximum]).toEqual([200, null]);
    expect((await mandateRow(mandate.id)).payer_maximum).toBeNull();
    const zero = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/payer-maximum`, {
      token: tenant.oat,
      body: { maximum: 0 },
    });
    expect(zero.status).toBe(400);
    // Answered already: authorizing again returns it as it is; a persona it does not know is a 400.
    const answered = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/authorize`, {
      token: tenant.oat,
      body: { persona: 'rejects_authorization' },
    });
    expect([answered.status, answered.body.status]).toEqual([200, 'approved']);
    const unknown = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/authorize`, {
      token: tenant.oat,
      body: { persona: 'pays_twice' },
    });
    expect(unknown.status).toBe(400);
    expect(await mandateEvents(tenant)).toEqual(['mandate.created', 'mandate.approved']);
  });

  it("answers 404 for another organization's mandate, and changes nothing", async () => {
    const [owner, other] = [await makeTenant(api.orm), await makeTenant(api.orm)];
    const mandate = await approvedMandate(owner);
    for (const [step, body] of [
      ['revoke', undefined],
      ['payer-maximum', { maximum: 1_000 }],
      ['authorize', { persona: 'approves' }],
    ] as const) {
      const res = await api.call('POST', `/api/v1/sandbox/mandates/${mandate.id}/${step}`, { token: other.oat, body });
      expect([step, res.status, res.body.code]).toEqual([step, 404, 'not_found']);
    }
    const unknown = await api.call('POST', '/api/v1/sandbox/mandates/0190a0a0-0000-7000-8000-000000000000/revoke', {
      token: owner.oat,
    });
    expect(unknown.status).toBe(404);
    expect(await mandateRow(mandate.id)).toMatchObject({ status: 'approved', payer_maximum: null });
    const atGateway = await (api.gateway as SimulatedGateway).getMandate(mandate.gateway_mandate_id);
    expect([atGateway?.status, atGateway?.payerMaximum]).toEqual(['approved', null]);
  });
});

describe("the sandbox's Pix Automático bank", () => {
  it('settles by a calendar day only', async () => {
    const tenant = await makeTenant(api.orm);
    for (const asOf of ['2026-02-30', 'tomorrow', '']) {
      const res = await api.call('POST', '/api/v1/sandbox/mandate-charges/settle', {
        token: tenant.oat,
        body: { as_of: asOf },
      });
      expect([asOf, res.status]).toEqual([asOf, 400]);
    }
    // An organization with no mandate has nothing to settle.
    const none = await api.call('POST', '/api/v1/sandbox/mandate-charges/settle', {
      token: tenant.oat,
      body: { as_of: '2030-01-01' },
    });
    expect([none.status, none.body]).toEqual([200, { items: [] }]);
  });
});

describe("the sandbox's Pix Automático bank, with a charge due", () => {
  it("settles the organization's own charges only", async () => {
    const [owner, other] = [await makeTenant(api.orm), await makeTenant(api.orm)];
    const mandate = await approvedMandate(owner);
    // The cycle's charge, sent to the gateway four days before it is due (as the subscription's workflow
    // does when its clock reaches the window), on the simulator's clock.
    const sim = api.gateway as SimulatedGateway;
    const dueDate = mandate.start_date as string;
    const now = sim.now;
    sim.now = () => new Date(Date.parse(`${dueDate}T12:00:00Z`) - 4 * 86_400_000);
    const charge = await sim
      .createMandateCharge(
        { mandateId: mandate.gateway_mandate_id, reference: `test:${mandate.id}`, dueDate, amount: 3_990 },
        `test:settle:${mandate.id}`,
      )
      .finally(() => {
        sim.now = now;
      });
    const settle = (tenant: Tenant) =>
      api.call('POST', '/api/v1/sandbox/mandate-charges/settle', { token: tenant.oat, body: { as_of: '2100-01-01' } });

    const others = await settle(other);
    expect([others.status, others.body.items]).toEqual([200, []]);
    expect((await sim.getMandateCharge(charge.id))?.status).toBe('active');

    const ours = await settle(owner);
    expect(ours.status).toBe(200);
    expect(ours.body.items.map((c: any) => [c.id, c.mandate_id, c.status])).toEqual([
      [charge.id, mandate.gateway_mandate_id, 'completed'],
    ]);
  });
});

describe('outside a sandbox deployment', () => {
  let live: TestApi;
  beforeAll(async () => {
    live = await startApi({
      DEPLOYMENT_ENV: 'live',
      GATEWAY: 'simulator',
      GATEWAY_CALLBACK_SECRET: 'live-callback-secret-0123456789',
    });
  });
  afterAll(async () => live?.close());

  it('has no such routes', async () => {
    const tenant = await makeTenant(live.orm);
    const res = await live.call('POST', '/api/v1/sandbox/mandate-charges/settle', {
      token: tenant.oat,
      body: { as_of: '2030-01-01' },
    });
    expect([res.status, res.body.code]).toEqual([404, 'not_found']);
  });
});
