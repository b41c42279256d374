import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { productWithLists } from '../../db/catalog/products.ts';
import { completeClaim, claimKey, keyRecord } from '../../db/idempotency/keys.ts';
import { kyselyOf } from '../../db/kysely.ts';
import { apiKeyByHash } from '../../db/organization/credentials.ts';
import { countRequests } from '../../db/rate-limit/counters.ts';
import { hashSecret } from '../../api/auth/tokens.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeApiKey, makeTenant, unique } from '../helpers/fixtures.ts';

/**
 * db/kysely.ts `prepared`: a statement built once from the typed builder and sent by name answers
 * what the same statement answers through `kyselyOf` (property names, values converted as the entity
 * says), with its arguments in their places and its own constants kept.
 */
let api: TestApi;
let A: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  api = await startApi();
  A = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
});

describe('prepared statements', () => {
  it("read a product's row as kyselyOf reads it, and nothing of another organization", async () => {
    const created = await api.call('POST', '/api/v1/products/', {
      token: A.oat,
      body: {
        organization_id: A.org.id,
        name: unique('Prepared'),
        prices: [{ currency: 'brl', unit_amount: 990 }],
      },
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;
    const expected = await kyselyOf(api.orm.em.fork())
      .selectFrom('products')
      .select([
        'id',
        'organizationId',
        'name',
        'description',
        'metadata',
        'isArchived',
        'isTaxApplicable',
        'defaultPriceId',
        'createdAt',
        'modifiedAt',
        'priceList',
        'mediaList',
      ])
      .where('id', '=', id)
      .execute();
    // Twice: the first call prepares the statement on its connection, the next ones only bind.
    for (let i = 0; i < 2; i++) expect(await productWithLists(api.orm.em, id, A.org.id)).toEqual(expected);
    expect(expected[0]!.createdAt).toBeInstanceOf(Date);
    expect(expected[0]!.priceList).toHaveLength(1);
    expect(await productWithLists(api.orm.em, id, uuidv7())).toEqual([]);
  });

  it('convert arrays and timestamps as the entity says', async () => {
    const { key } = await makeApiKey(api.orm, A.org.id);
    const row = await apiKeyByHash(api.orm.em, hashSecret(key));
    expect(row).toEqual({
      id: expect.any(String),
      organizationId: A.org.id,
      scopes: expect.arrayContaining([expect.any(String)]),
      expiresAt: null,
      revokedAt: null,
      deletedAt: null,
    });
    expect(await apiKeyByHash(api.orm.em, hashSecret(`${key}x`))).toBeUndefined();
  });

  it('keep the constants the builder wrote, and each argument in its place', async () => {
    const key = `test:${uuidv7()}`;
    expect(await countRequests(api.orm.em, key, 2, 60_000)).toEqual({ count: 2, ttl: expect.any(Number) });
    const again = await countRequests(api.orm.em, key, 3, 60_000);
    expect(again!.count).toBe(5);
    expect(again!.ttl).toBeGreaterThan(50_000);
    expect(again!.ttl).toBeLessThanOrEqual(60_000);

    const claim = { scope: `test:${uuidv7()}`, key: 'k', id: uuidv7() };
    expect(await claimKey(api.orm.em, claim.scope, claim.key, 'hash', 60_000, claim.id)).toEqual({ claimId: claim.id });
    expect(await claimKey(api.orm.em, claim.scope, claim.key, 'hash', 60_000, uuidv7())).toBeUndefined();
    expect(await keyRecord(api.orm.em, claim.scope, claim.key)).toEqual({
      requestHash: 'hash',
      state: 'running',
      responseStatus: null,
      responseBody: null,
      lapsed: false,
    });
    await completeClaim(api.orm.em, claim.scope, claim.key, claim.id, 201, '{}');
    expect(await keyRecord(api.orm.em, claim.scope, claim.key)).toMatchObject({ state: 'done', responseStatus: 201 });
  });
});
