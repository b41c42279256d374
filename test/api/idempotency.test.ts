import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from 'uuidv7';
import { canonicalJson } from '../../api/plugins/idempotency.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { makeAdminUser, makeTenant, unique, userJwt } from '../helpers/fixtures.ts';
import { heldAtGatesColumns, installGates } from '../helpers/gates.ts';
import { until } from '../helpers/processes.ts';

/** Idempotency-Key on POST, exercised through the real POST /api/v1/customers/ over HTTPS. */
let api: TestApi;
let tenant: Awaited<ReturnType<typeof makeTenant>>;

beforeAll(async () => {
  api = await startApi();
  tenant = await makeTenant(api.orm);
});
afterAll(async () => {
  await api.close();
});

const email = () => `${unique('idem')}@example.com`;

function createCustomer(key: string | undefined, body: unknown, options: { token?: string; on?: TestApi } = {}) {
  return (options.on ?? api).call('POST', '/api/v1/customers/', {
    body,
    token: options.token ?? tenant.oat,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
}

const sql = <T = any>(query: string, params: unknown[] = []) => api.orm.em.getConnection().execute<T[]>(query, params);
const customersWith = async (address: string) =>
  Number((await sql<{ n: string }>('select count(*) as n from customers where email = ?', [address]))[0]!.n);
const keyRows = (key: string) => sql('select scope, state, response_status from idempotency_keys where key = ?', [key]);

describe('replays', () => {
  it('answers a repeated request with the stored status and body, marked Idempotent-Replayed, and runs it once', async () => {
    const key = uuidv7();
    const body = { email: email(), name: 'Ana' };
    const first = await createCustomer(key, body);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await createCustomer(key, body);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);

    expect(await customersWith(body.email)).toBe(1);
    const events = await sql("select count(*) as n from events where type = 'customer.created' and data->>'id' = ?", [
      first.body.id,
    ]);
    expect(Number(events[0].n)).toBe(1);
    expect(await keyRows(key)).toEqual([{ scope: `org:${tenant.org.id}`, state: 'done', response_status: 201 }]);
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const key = uuidv7();
    const address = email();
    const first = await createCustomer(key, { email: address, name: 'Bia', user_metadata: { a: 1, b: 2 } });
    const again = await createCustomer(key, { user_metadata: { b: 2, a: 1 }, name: 'Bia', email: address });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
  });

  it('is shared by the credentials of one organization (scope is the organization)', async () => {
    const key = uuidv7();
    const body = { email: email() };
    const byOat = await createCustomer(key, body);
    const byApiKey = await api.call('POST', '/api/v1/customers/', {
      body,
      headers: { 'idempotency-key': key, 'x-service-api-key': tenant.apiKey },
    });
    expect(byApiKey.status).toBe(201);
    expect(byApiKey.headers['idempotent-replayed']).toBe('true');
    expect(byApiKey.body.id).toBe(byOat.body.id);
  });

  it('keeps keys of different organizations apart', async () => {
    const other = await makeTenant(api.orm);
    const key = uuidv7();
    const body = { email: email() };
    const mine = await createCustomer(key, body);
    const theirs = await createCustomer(key, body, { token: other.oat });
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect((await keyRows(key)).map((r) => r.scope).sort()).toEqual(
      [`org:${other.org.id}`, `org:${tenant.org.id}`].sort(),
    );
  });

  it('stores a 4xx the operation answered and replays it even after the cause went away', async () => {
    const address = email();
    expect((await createCustomer(uuidv7(), { email: address })).status).toBe(201);
    const key = uuidv7();
    const taken = await createCustomer(key, { email: address });
    expect(taken.status).toBe(422);
    expect(taken.body.code).toBe('email_taken');

    await sql('update customers set email = ? where email = ?', [`moved-${address}`, address]);
    const replay = await createCustomer(key, { email: address });
    expect(replay.status).toBe(422);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(taken.body);
    expect(await customersWith(address)).toBe(0);
  });

  it('runs POSTs without the header every time', async () => {
    const first = await createCustomer(undefined, { email: email() });
    const second = await createCustomer(undefined, { email: email() });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
  });

  it('scopes a user JWT by its user', async () => {
    const admin = `${unique('admin')}@example.com`;
    await makeAdminUser(api.orm, admin);
    const jwt = await userJwt(admin);
    const key = uuidv7();
    const body = { name: 'Idem Org', slug: unique('idem-org'), terms: true };
    const first = await api.call('POST', '/api/v1/organizations/', {
      body,
      token: jwt,
      headers: { 'idempotency-key': key },
    });
    expect(first.status).toBe(201);
    const again = await api.call('POST', '/api/v1/organizations/', {
      body,
      token: jwt,
      headers: { 'idempotency-key': key },
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const [user] = await sql<{ id: string }>('select id from users where email = ?', [admin]);
    expect(await keyRows(key)).toEqual([{ scope: `user:${user!.id}`, state: 'done', response_status: 201 }]);
    expect(await sql('select id from organizations where slug = ?', [body.slug])).toHaveLength(1);
  });
});

describe('conflicts', () => {
  it('answers the same key with a different request with 422 idempotency_key_mismatch', async () => {
    const key = uuidv7();
    const first = await createCustomer(key, { email: email() });
    expect(first.status).toBe(201);
    const otherAddress = email();
    const res = await createCustomer(key, { email: otherAddress });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      error: 'Idempotency-Key was used for a different request',
      detail: 'Use a new key for a new request',
      code: 'idempotency_key_mismatch',
    });
    expect(await customersWith(otherAddress)).toBe(0);
  });

  it('answers a replay while the first request is still running with 409', async () => {
    const key = uuidv7();
    const body = { email: email() };
    expect((await createCustomer(key, body)).status).toBe(201);
    // As if the first request had not finished yet.
    await sql(
      `update idempotency_keys set state = 'running', response_status = null, response_body = null where key = ?`,
      [key],
    );
    const res = await createCustomer(key, body);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      error: 'A request with this Idempotency-Key is still in progress',
      detail: 'Retry once it has finished',
      code: 'idempotency_request_in_progress',
    });
    expect(await customersWith(body.email)).toBe(1);
  });

  it('lets exactly one of two simultaneous requests run', async () => {
    const address = `${unique('slow')}@example.com`;
    await withHeldInsert(address, async (held) => {
      const key = uuidv7();
      const first = createCustomer(key, { email: address });
      // The first is inside its insert, which waits at the gate: the second arrives while it runs.
      await held.reached();
      const second = await createCustomer(key, { email: address });
      expect(second.status).toBe(409);
      expect(second.body.code).toBe('idempotency_request_in_progress');
      await held.release();
      expect((await first).status).toBe(201);
      const after = await createCustomer(key, { email: address });
      expect(after.status).toBe(201);
      expect(after.headers['idempotent-replayed']).toBe('true');
    });
    expect(await customersWith(address)).toBe(1);
  });
});

describe('expiry and failures', () => {
  it('treats an expired key as new: the request runs again and the record is overwritten', async () => {
    const key = uuidv7();
    const first = await createCustomer(key, { email: email() });
    await sql(`update idempotency_keys set expires_at = now() - interval '1 second' where key = ?`, [key]);
    const address = email();
    const fresh = await createCustomer(key, { email: address });
    expect(fresh.status).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body.id).not.toBe(first.body.id);
    expect(await customersWith(address)).toBe(1);
    const [row] = await sql(
      `select state, expires_at > now() + interval '23 hours' as renewed from idempotency_keys where key = ?`,
      [key],
    );
    expect(row).toEqual({ state: 'done', renewed: true });
  });

  it('keeps records 24 hours', async () => {
    const key = uuidv7();
    await createCustomer(key, { email: email() });
    const [row] = await sql(
      `select extract(epoch from expires_at - created_at) as seconds from idempotency_keys where key = ?`,
      [key],
    );
    expect(Number(row.seconds)).toBe(24 * 3600);
  });

  it('gives each claim a lease of IDEMPOTENCY_LEASE_MS (a minute by default)', async () => {
    const key = uuidv7();
    await createCustomer(key, { email: email() });
    const [row] = await sql(
      `select extract(epoch from locked_until - created_at) as seconds, claim_id is not null as named
       from idempotency_keys where key = ?`,
      [key],
    );
    expect({ seconds: Number(row.seconds), named: row.named }).toEqual({ seconds: 60, named: true });
  });

  it('frees a key left running by a crashed process once its lease has run out', async () => {
    const key = uuidv7();
    // What a process that died between claiming the key and storing its response leaves behind.
    await sql(
      `insert into idempotency_keys (scope, key, request_hash, state, created_at, expires_at, locked_until, claim_id)
       values (?, ?, 'crashed', 'running', now() - interval '2 minutes', now() + interval '22 hours',
               now() - interval '1 minute', ?)`,
      [`org:${tenant.org.id}`, key, uuidv7()],
    );
    const address = email();
    const res = await createCustomer(key, { email: address });
    expect(res.status).toBe(201);
    expect(res.headers['idempotent-replayed']).toBeUndefined();
    expect(await customersWith(address)).toBe(1);
    const replay = await createCustomer(key, { email: address });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(res.body);
    const [row] = await sql(
      `select state, expires_at > now() + interval '23 hours' as renewed from idempotency_keys where key = ?`,
      [key],
    );
    expect(row).toEqual({ state: 'done', renewed: true });
  });

  it('answers 409 while the lease of a running claim lasts, and runs the request again after it', async () => {
    const key = uuidv7();
    const body = { email: email() };
    expect((await createCustomer(key, body)).status).toBe(201);
    // As if the first request were still running, 30 seconds into its lease.
    await sql(
      `update idempotency_keys set state = 'running', response_status = null, response_body = null,
         locked_until = now() + interval '30 seconds' where key = ?`,
      [key],
    );
    const within = await createCustomer(key, body);
    expect(within.status).toBe(409);
    expect(within.body.code).toBe('idempotency_request_in_progress');

    await sql(`update idempotency_keys set locked_until = now() - interval '1 second' where key = ?`, [key]);
    const after = await createCustomer(key, body);
    // Claimed again, so the operation ran again: the customer it made the first time is there.
    expect(after.status).toBe(422);
    expect(after.body.code).toBe('email_taken');
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(await customersWith(body.email)).toBe(1);
  });

  it('honours a shorter lease from IDEMPOTENCY_LEASE_MS', async () => {
    const short = await startApi({ IDEMPOTENCY_LEASE_MS: '1000' });
    try {
      const key = uuidv7();
      await createCustomer(key, { email: email() }, { on: short });
      const [row] = await sql(
        `select extract(epoch from locked_until - created_at) as seconds from idempotency_keys where key = ?`,
        [key],
      );
      expect(Number(row.seconds)).toBe(1);
    } finally {
      await short.close();
    }
  });

  it('does not store a 5xx: the key is released and a retry runs the operation', async () => {
    const address = `${unique('boom')}@example.com`;
    const key = uuidv7();
    await withFailingInsert(address, async () => {
      const failed = await createCustomer(key, { email: address });
      expect(failed.status).toBe(500);
      expect(failed.body).toEqual({ error: 'Internal server error', code: 'internal_error' });
      expect(await keyRows(key)).toEqual([]);
    });
    const retried = await createCustomer(key, { email: address });
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await customersWith(address)).toBe(1);
  });

  it('leaves no record for a request refused before the operation (auth, validation)', async () => {
    const key = uuidv7();
    const unauthenticated = await createCustomer(key, { email: email() }, { token: 'svc_oat_not-a-token' });
    expect(unauthenticated.status).toBe(401);
    const invalid = await createCustomer(key, { email: 'not-an-email' });
    expect(invalid.status).toBe(400);
    expect(await keyRows(key)).toEqual([]);
    const valid = await createCustomer(key, { email: email() });
    expect(valid.status).toBe(201);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it('sweeps expired records now and then', async () => {
    const stale = uuidv7();
    await sql(
      `insert into idempotency_keys (scope, key, request_hash, state, response_status, response_body, created_at, expires_at)
       values ('org:stale', ?, 'h', 'done', 201, '{}', now() - interval '2 days', now() - interval '1 day')`,
      [stale],
    );
    // A fresh process sweeps on its first claim.
    const other = await startApi();
    try {
      expect((await createCustomer(uuidv7(), { email: email() }, { on: other })).status).toBe(201);
      await until(async () => (await keyRows(stale)).length === 0);
    } finally {
      await other.close();
    }
  });
});

describe('key format', () => {
  it.each([
    ['longer than 255 characters', 'k'.repeat(256)],
    ['empty', ''],
  ])('answers a key %s with 400', async (_label, key) => {
    const res = await createCustomer(key, { email: email() });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Invalid Idempotency-Key header',
      detail: 'Use 1 to 255 printable ASCII characters, e.g. a UUID',
      code: 'invalid_idempotency_key',
    });
  });

  it('accepts 255 printable characters', async () => {
    const key = `${uuidv7()}~!@#$%^&*() ${'x'.repeat(255)}`.slice(0, 255);
    expect((await createCustomer(key, { email: email() })).status).toBe(201);
  });
});

describe('across processes', () => {
  it('replays on another API process and after a restart (records live in PostgreSQL)', async () => {
    const key = uuidv7();
    const body = { email: email() };
    const b = await startApi();
    let first;
    try {
      first = await createCustomer(key, body, { on: b });
      expect(first.status).toBe(201);
      const onA = await createCustomer(key, body);
      expect(onA.headers['idempotent-replayed']).toBe('true');
      expect(onA.body).toEqual(first.body);
    } finally {
      await b.close();
    }
    const restarted = await startApi();
    try {
      const after = await createCustomer(key, body, { on: restarted });
      expect(after.headers['idempotent-replayed']).toBe('true');
      expect(after.body).toEqual(first.body);
    } finally {
      await restarted.close();
    }
    expect(await customersWith(body.email)).toBe(1);
  });
});

describe('canonical JSON', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });
});

/** A real database failure for one email: the insert raises, so the API answers 500. */
async function withFailingInsert(address: string, run: () => Promise<void>) {
  const name = `fail_${uuidv7().replaceAll('-', '')}`;
  await sql(`create function ${name}() returns trigger language plpgsql as $$
    begin if new.email = '${address}' then raise exception 'simulated failure'; end if; return new; end $$`);
  await sql(`create trigger ${name} before insert on customers for each row execute function ${name}()`);
  try {
    await run();
  } finally {
    await sql(`drop trigger ${name} on customers`);
    await sql(`drop function ${name}()`);
  }
}

/**
 * Holds the insert of a customer with this email at a gate (an advisory lock the test holds) until
 * `release`; `reached` waits until an insert waits there.
 */
async function withHeldInsert(
  address: string,
  run: (held: { reached: () => Promise<void>; release: () => Promise<void> }) => Promise<void>,
) {
  const gates = await installGates<'insert'>(api.config.DATABASE_URL, 'idempotency', tenant.org.id, (waitAt) => ({
    insert: { on: 'before insert on customers', when: `new.email = '${address}'`, body: waitAt('insert') },
  }));
  const waiting = async () =>
    (await sql(`select ${heldAtGatesColumns('idempotency', tenant.org.id, ['insert'])}`))[0].insert > 0;
  try {
    await gates.insert.close();
    await run({
      reached: () => until(waiting, 10_000, 'the insert to wait at its gate'),
      release: () => gates.insert.open(),
    });
  } finally {
    await gates.remove();
  }
}
