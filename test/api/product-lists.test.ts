import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { uuidv7 } from 'uuidv7';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeTenant, unique } from '../helpers/fixtures.ts';
import { multipart, png } from '../helpers/uploads.ts';

/**
 * GET /products/<id> reads the prices and media each product carries (db/migrations/0028): whatever
 * writes the tables, through the API or not, concurrently or not, the read shows the tables as they are.
 * The oracle is the tables themselves, read here with their own query.
 */
let dir: string;
let api: TestApi;
let A: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'billing-product-lists-'));
  api = await startApi({ FILES_LOCAL_DIR: dir });
  A = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
  await rm(dir, { recursive: true, force: true });
});

/** The tables as they are (MikroORM's own `execute`, `?` placeholders), on its own or in one transaction. */
const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) =>
  api.orm.em.getConnection().execute<T[]>(query, params);
const inTransaction = <R>(run: (sql: (query: string, params: unknown[]) => Promise<unknown>) => Promise<R>) =>
  api.orm.em.fork().transactional((tx) => run((query, params) => tx.execute(query, params)));

async function uploadedImage(name: string): Promise<{ id: string }> {
  const body = multipart({ filename: name, type: 'image/png', data: png(8, 8) });
  const res = await api.call('POST', '/api/v1/files/', { token: A.oat, raw: body.raw, headers: body.headers });
  expect(res.status).toBe(201);
  return res.body;
}

async function createProduct(medias: string[] = []): Promise<any> {
  const res = await api.call('POST', '/api/v1/products/', {
    token: A.oat,
    body: {
      organization_id: A.org.id,
      name: unique('Poster'),
      prices: [{ currency: 'brl', unit_amount: 990 }],
      medias,
    },
  });
  expect(res.status).toBe(201);
  return res.body;
}

const read = async (id: string) => (await api.call('GET', `/api/v1/products/${id}`, { token: A.oat })).body;

/** The prices and media as the tables hold them, in the order the API shows them. */
async function fromTables(productId: string) {
  const prices = await sql<{ id: string; active: boolean; gateway_recurrence_plan_id: string | null }>(
    'select id, active, gateway_recurrence_plan_id from prices where product_id = ? order by created_at, id',
    [productId],
  );
  const medias = await sql<{ id: string; name: string }>(
    `select f.id, f.name from product_medias m join files f on f.id = m.file_id where m.product_id = ? order by m.position`,
    [productId],
  );
  return { prices, medias };
}

const shown = (product: any) => ({
  prices: product.prices.map((p: any) => ({
    id: p.id,
    active: p.active,
    gateway_recurrence_plan_id: p.gateway_recurrence_plan_id,
  })),
  medias: product.medias.map((m: any) => ({ id: m.id, name: m.name })),
});

describe('GET /api/v1/products/<id> after each write', () => {
  it('shows the prices and media every API write left, in order', async () => {
    const front = await uploadedImage('front.png');
    const back = await uploadedImage('back.png');
    const product = await createProduct([front.id, back.id]);
    expect(shown(await read(product.id))).toEqual(await fromTables(product.id));
    expect((await read(product.id)).medias.map((m: any) => m.id)).toEqual([front.id, back.id]);

    const reordered = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: A.oat,
      body: { medias: [back.id, front.id] },
    });
    expect(reordered.status).toBe(200);
    expect((await read(product.id)).medias.map((m: any) => m.id)).toEqual([back.id, front.id]);

    const patched = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: A.oat,
      body: { medias: [back.id], add_prices: [{ currency: 'brl', unit_amount: 1990 }] },
    });
    expect(patched.status).toBe(200);
    const afterPatch = await read(product.id);
    expect(afterPatch.prices).toHaveLength(2);
    expect(afterPatch.medias.map((m: any) => m.id)).toEqual([back.id]);
    expect(shown(afterPatch)).toEqual(await fromTables(product.id));
    expect(afterPatch.prices).toEqual(patched.body.prices);

    const archived = await api.call('PATCH', `/api/v1/products/${product.id}`, {
      token: A.oat,
      body: {
        add_prices: [{ currency: 'brl', unit_amount: 2990 }],
        archive_price_ids: [afterPatch.prices[1].id],
        medias: [],
      },
    });
    expect(archived.status).toBe(200);
    const last = await read(product.id);
    expect(last.prices.map((p: any) => p.active)).toEqual([true, false, true]);
    expect(last.medias).toEqual([]);
    expect(shown(last)).toEqual(await fromTables(product.id));
  });

  it('shows writes made outside the API: a price’s gateway plan, a file’s new name', async () => {
    const cover = await uploadedImage('cover.png');
    const product = await createProduct([cover.id]);
    await sql('update prices set gateway_recurrence_plan_id = ? where product_id = ?', ['plan_outside', product.id]);
    await sql('update files set name = ? where id = ?', ['renamed.png', cover.id]);
    const after = await read(product.id);
    expect(after.prices[0].gateway_recurrence_plan_id).toBe('plan_outside');
    expect(after.medias[0].name).toBe('renamed.png');
    expect(shown(after)).toEqual(await fromTables(product.id));
  });

  it('keeps both prices when two transactions add one each to the same product at once', async () => {
    const product = await createProduct();
    const insertPrice = (run: (text: string, params: unknown[]) => Promise<unknown>, amount: number) =>
      run(
        `insert into prices (id, product_id, organization_id, type, currency, unit_amount, tax_behavior, created_at)
         values (?, ?, ?, 'one_time', 'brl', ?, 'unspecified', now())`,
        [uuidv7(), product.id, A.org.id, amount],
      );
    let letFirstCommit!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (letFirstCommit = resolve));
    let firstInserted!: () => void;
    const firstHasInserted = new Promise<void>((resolve) => (firstInserted = resolve));
    const first = inTransaction(async (run) => {
      await insertPrice(run, 111);
      firstInserted();
      await firstMayCommit;
    });
    await firstHasInserted;
    // The second waits in its trigger for the product the first holds, then reads what the first committed.
    const second = inTransaction(async (run) => insertPrice(run, 222));
    await waitUntilBlocked();
    letFirstCommit();
    await Promise.all([first, second]);
    const after = await read(product.id);
    expect(after.prices.map((p: any) => p.unit_amount).sort()).toEqual([111, 222, 990]);
    expect(shown(after)).toEqual(await fromTables(product.id));
  });
});

/** Resolves once some session of this database waits on a lock (the second transaction, in its trigger). */
async function waitUntilBlocked(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await sql<{ waiting: number }>(
      `select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (row!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the second transaction never waited on the first');
}
