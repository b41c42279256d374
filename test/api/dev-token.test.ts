import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { jwtVerify } from 'jose';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';
import { startApi, type TestApi } from '../helpers/api.ts';
import { TEST_DATABASE_URL, TEST_JWT_SECRET } from '../helpers/env.ts';
import { unique } from '../helpers/fixtures.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

function devToken(args: string[]) {
  return spawnSync(process.execPath, [path.join(REPO_ROOT, 'scripts/dev-token.ts'), ...args], {
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, JWT_SECRET: TEST_JWT_SECRET },
    encoding: 'utf8',
  });
}

describe('npm run dev:token', () => {
  it('mints a user JWT for the local secret and, with --admin, registers the admin user', async () => {
    const email = `${unique('dev')}@Example.com`;
    const run = devToken(['--email', email, '--admin']);
    expect(run.status).toBe(0);
    const token = run.stdout.trim();
    const { payload } = await jwtVerify(token, new TextEncoder().encode(TEST_JWT_SECRET));
    expect(payload.email).toBe(email.toLowerCase());
    const rows = await api.orm.em
      .getConnection()
      .execute('select email from admin_users where email = ?', [email.toLowerCase()]);
    expect(rows).toHaveLength(1);

    // The API accepts it: an admin user may create an organization.
    const slug = unique('devorg');
    const res = await api.call('POST', '/api/v1/organizations/', {
      token,
      body: { name: 'Dev Org', slug, terms: true },
    });
    expect(res.status).toBe(201);
    expect(res.body.slug).toBe(slug);
  });

  it('without --admin the user is not an admin', async () => {
    const email = `${unique('dev')}@example.com`;
    const run = devToken(['--email', email]);
    expect(run.status).toBe(0);
    const rows = await api.orm.em.getConnection().execute('select email from admin_users where email = ?', [email]);
    expect(rows).toHaveLength(0);
    const res = await api.call('POST', '/api/v1/organizations/', {
      token: run.stdout.trim(),
      body: { name: 'X', slug: unique('x'), terms: true },
    });
    expect(res.status).toBe(403);
  });

  it('explains its usage when --email is missing', () => {
    const run = devToken([]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: npm run dev:token -- --email');
  });
});
