import { describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import type { HttpGateway } from '../../gateway/http-adapter.ts';
import { offersChargebacks, offersKeptCardLookup } from '../../gateway/capabilities.ts';
import { capturedCardCharge, sandboxCall, useGatewayServer } from '../helpers/gateway-server.ts';
import { unique } from '../helpers/fixtures.ts';

/**
 * After the sale over HTTP (decision 0079): the HTTP adapter reads the standalone simulated server's
 * chargebacks and kept cards, which the server's sandbox controls open, decide and replace; the
 * server is backed by a real SimulatedGateway on the test database.
 */
const API_KEY = 'gw_test_key_after_sale_0123';
let baseUrl: string;
let gateway: HttpGateway;
useGatewayServer(API_KEY, (started) => {
  ({ baseUrl, http: gateway } = started);
});

const charge = () => capturedCardCharge('after-sale');

const sandbox = (path: string, body: unknown) => sandboxCall(baseUrl, API_KEY, path, body);

/** The standalone server's own answer to `GET /v1/transactions/:id`: the payment's status on the wire. */
async function wireStatus(transactionId: string) {
  const res = await request(`${baseUrl}/v1/transactions/${transactionId}`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  expect(res.statusCode).toBe(200);
  return ((await res.body.json()) as { status: string }).status;
}

describe('the HTTP adapter after the sale', () => {
  it('offers chargebacks and kept-card look-ups', () => {
    expect(offersChargebacks(gateway)).toBe(true);
    expect(offersKeptCardLookup(gateway)).toBe(true);
  });

  it('reads a chargeback the sandbox opened and decided, and knows no other', async () => {
    const t = await gateway.chargeCard(charge(), unique('key'));
    const opened = await sandbox(`/transactions/${t.id}/chargebacks`, { amount: 4_000 });
    expect(opened).toMatchObject({ status: 200, body: { transaction_id: t.id, amount: 4_000, status: 'opened' } });
    const id = opened.body.id as string;
    expect(await gateway.getChargeback(id)).toEqual({
      id,
      transactionId: t.id,
      amount: 4_000,
      currency: 'BRL',
      status: 'opened',
    });
    // The payment shows its dispute, through the adapter and on the wire (Mercado Pago's in_mediation).
    expect((await gateway.getTransaction(t.id))?.status).toBe('dispute');
    expect(await wireStatus(t.id)).toBe('dispute');
    // Held: only what the dispute leaves can be refunded meanwhile.
    await expect(gateway.refund(t.id, 6_001, unique('key'))).rejects.toThrow('refund exceeds captured amount');
    expect((await sandbox(`/chargebacks/${id}/decide`, { outcome: 'lost' })).body.status).toBe('lost');
    expect(await gateway.getChargeback(id)).toMatchObject({ status: 'lost' });
    expect((await gateway.getTransaction(t.id))?.status).toBe('charged_back');
    expect(await wireStatus(t.id)).toBe('charged_back');
    expect((await sandbox(`/chargebacks/${id}/decide`, { outcome: 'won' })).status).toBe(422);
    expect(await gateway.getChargeback('chb_unknown')).toBeNull();
  });

  it('reads a payment whose dispute was won as it was before the dispute', async () => {
    const t = await gateway.chargeCard(charge(), unique('key'));
    const opened = await sandbox(`/transactions/${t.id}/chargebacks`, {});
    expect(await wireStatus(t.id)).toBe('dispute');
    expect((await sandbox(`/chargebacks/${opened.body.id}/decide`, { outcome: 'won' })).body.status).toBe('won');
    expect((await gateway.getTransaction(t.id))?.status).toBe('succeeded');
    expect(await wireStatus(t.id)).toBe('succeeded');
  });

  it('reads a kept card as the card updater replaced it', async () => {
    const card = await gateway.tokenizeCard(charge().card as never, unique('key'));
    const updated = await sandbox(`/cards/tokens/${card.id}/update`, {
      last4: '4242',
      expiration_month: '03',
      expiration_year: '2034',
    });
    expect(updated.status).toBe(200);
    expect(await gateway.keptCard(updated.body.id)).toMatchObject({ last4: '4242', expirationYear: '2034' });
    expect(await gateway.keptCard('card_unknown')).toBeNull();
    expect((await sandbox(`/cards/tokens/${card.id}/update`, { last4: '42' })).status).toBe(422);
  });
});
