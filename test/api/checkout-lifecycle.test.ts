import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { transitionCheckout, updateOpenCheckout } from '../../db/checkout/lifecycle.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';

/**
 * The checkout's state changes go through one guarded update (db/checkout/lifecycle.ts): a change
 * from a status its state machine does not take it from changes nothing, and says so.
 */

let api: TestApi;
let A: Awaited<ReturnType<typeof makeTenant>>;
let productId: string;

const sql = <T = any>(text: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(text, params);
const statusOf = async (id: string) => (await sql('select status from checkouts where id = ?', [id]))[0].status;

beforeAll(async () => {
  api = await startApi();
  A = await makeTenant(api.orm);
  productId = uuidv7();
  const priceId = uuidv7();
  await sql(
    `insert into products (id, organization_id, name, description, is_archived, default_price_id, created_at)
     values (?, ?, ?, 'A fine thing', false, null, now())`,
    [productId, A.org.id, unique('product')],
  );
  await sql(
    `insert into prices (id, product_id, organization_id, type, currency, unit_amount, active, created_at)
     values (?, ?, ?, 'one_time', 'brl', 4990, true, now())`,
    [priceId, productId, A.org.id],
  );
  await sql('update products set default_price_id = ? where id = ?', [priceId, productId]);
});
afterAll(async () => {
  await api.close();
});

async function openCheckout(): Promise<string> {
  const res = await api.call('POST', '/api/v1/checkouts/', { token: A.oat, body: { product_id: productId } });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

describe('the checkout state machine guard', () => {
  it('refuses a change from a status the change does not leave, and writes nothing', async () => {
    const id = await openCheckout();
    const em = api.orm.em.fork();
    for (const change of ['pay', 'fail', 'refuse'] as const) {
      expect(await transitionCheckout(em, id, change, { declineReason: 'x' })).toBeNull();
    }
    expect(await sql('select status, decline_reason from checkouts where id = ?', [id])).toEqual([
      { status: 'open', decline_reason: null },
    ]);

    const confirmed = await transitionCheckout(em, id, 'confirm', { paymentMethod: 'pix' });
    expect(confirmed).toMatchObject({ id, status: 'confirmed', paymentMethod: 'pix' });
    expect(await transitionCheckout(em, id, 'confirm')).toBeNull();
    expect(await transitionCheckout(em, id, 'expire')).toBeNull();
    expect(await updateOpenCheckout(em, id, { customerName: 'Late' })).toBeNull();
    expect(await statusOf(id)).toBe('confirmed');
    expect(await transitionCheckout(em, id, 'pay')).toMatchObject({ status: 'succeeded' });
    expect(await transitionCheckout(em, id, 'fail')).toBeNull();
    expect(await statusOf(id)).toBe('succeeded');
  });

  it('takes an open checkout past its expiry as not open: no confirmation, no update, but its expiry', async () => {
    const id = await openCheckout();
    await sql(`update checkouts set expires_at = now() - interval '1 minute' where id = ?`, [id]);
    const em = api.orm.em.fork();
    expect(await transitionCheckout(em, id, 'confirm')).toBeNull();
    expect(await updateOpenCheckout(em, id, { customerName: 'Late' })).toBeNull();
    expect(await statusOf(id)).toBe('open');
    expect(await transitionCheckout(em, id, 'expire')).toMatchObject({ status: 'expired' });
  });
});
