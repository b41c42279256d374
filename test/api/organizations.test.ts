import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';
import {
  makeAdminUser,
  makeApiKey,
  makeMember,
  makeOat,
  makeOrganization,
  makeTenant,
  unique,
  userJwt,
} from '../helpers/fixtures.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

const ORGS = '/api/v1/organizations';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const newEmail = (label = 'user') => `${unique(label)}@example.com`;
const newSlug = () => unique('acme');

/** A user in the admin registry, with their JWT. */
async function adminUser() {
  const email = newEmail('admin');
  await makeAdminUser(api.orm, email);
  return { email, jwt: await userJwt(email) };
}

async function createOrganization(jwt: string, body: Record<string, unknown> = {}) {
  return api.call('POST', `${ORGS}/`, { token: jwt, body: { name: 'Acme', slug: newSlug(), terms: true, ...body } });
}

async function sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
  return api.orm.em.getConnection().execute<T[]>(query, params);
}

async function events(organizationId: string, type: string) {
  return sql<{ type: string; data: any }>(
    'select type, data from events where organization_id = ? and type = ? order by id',
    [organizationId, type],
  );
}

/** An organization with an owner, an admin, a plain member and an outsider, each with a JWT. */
async function team() {
  const org = await makeOrganization(api.orm);
  const people = {} as Record<'owner' | 'admin' | 'member' | 'outsider', { email: string; jwt: string }>;
  for (const role of ['owner', 'admin', 'member', 'outsider'] as const) {
    const email = newEmail(role);
    if (role !== 'outsider') await makeMember(api.orm, org.id, email, role);
    people[role] = { email, jwt: await userJwt(email) };
  }
  return { org, ...people };
}

describe('POST /api/v1/organizations/', () => {
  it('creates the complete organization record with the spec defaults and makes the caller its owner', async () => {
    const admin = await adminUser();
    const slug = newSlug();
    const res = await api.call('POST', `${ORGS}/`, {
      token: admin.jwt,
      body: { name: 'Acme Ltda', slug, terms: true },
    });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      parent_organization_id: null,
      name: 'Acme Ltda',
      slug,
      avatar_url: null,
      bio: null,
      company: null,
      blog: null,
      location: null,
      email: null,
      website: null,
      social_username: null,
      status: 'created',
      next_review_threshold: 0,
      customer_invoice_prefix: slug.toUpperCase(),
      customer_invoice_next_number: 1,
      profile_settings: {},
      feature_settings: {},
      subscription_settings: {
        allow_multiple_subscriptions: false,
        allow_customer_updates: true,
        proration_behavior: 'prorate',
        dunning_retry_days: [1, 3, 5, 7],
        dunning_exhausted_status: 'unpaid',
        chargeback_subscription_action: 'past_due',
      },
      notification_settings: { new_sale: true, new_subscription: true },
      socials: [],
      details: {},
      created_at: expect.stringMatching(ISO),
      modified_at: null,
      onboarded_at: null,
    });

    const members = await sql(
      `select u.email, m.role from organization_members m join users u on u.id = m.user_id where m.organization_id = ?`,
      [res.body.id],
    );
    expect(members).toEqual([{ email: admin.email, role: 'owner' }]);
    const created = await events(res.body.id, 'organization.created');
    expect(created).toHaveLength(1);
    expect(created[0]!.data).toEqual(res.body);
  });

  it('stores the optional profile fields and merges sent settings over the defaults', async () => {
    const admin = await adminUser();
    const res = await createOrganization(admin.jwt, {
      bio: 'We sell things',
      company: 'Acme Comércio Ltda',
      blog: 'https://blog.acme.example',
      location: 'São Paulo',
      email: 'billing@acme.example',
      website: 'https://acme.example',
      avatar_url: 'https://acme.example/logo.png',
      social_username: 'acme',
      profile_settings: { description: 'Shop' },
      feature_settings: { issue_funding_enabled: false },
      subscription_settings: {
        proration_behavior: 'invoice',
        dunning_retry_days: [2, 4],
        dunning_exhausted_status: 'canceled',
        chargeback_subscription_action: 'cancel',
      },
      notification_settings: { new_sale: false },
      socials: [{ platform: 'x', url: 'https://x.com/acme' }],
    });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      bio: 'We sell things',
      company: 'Acme Comércio Ltda',
      blog: 'https://blog.acme.example',
      location: 'São Paulo',
      email: 'billing@acme.example',
      website: 'https://acme.example',
      avatar_url: 'https://acme.example/logo.png',
      social_username: 'acme',
      profile_settings: { description: 'Shop' },
      feature_settings: { issue_funding_enabled: false },
      subscription_settings: {
        allow_multiple_subscriptions: false,
        allow_customer_updates: true,
        proration_behavior: 'invoice',
        dunning_retry_days: [2, 4],
        dunning_exhausted_status: 'canceled',
        chargeback_subscription_action: 'cancel',
      },
      notification_settings: { new_sale: false, new_subscription: true },
      socials: [{ platform: 'x', url: 'https://x.com/acme' }],
    });
    const [row] = await sql('select subscription_settings, notification_settings from organizations where id = ?', [
      res.body.id,
    ]);
    expect(row.subscription_settings).toEqual({
      allow_multiple_subscriptions: false,
      allow_customer_updates: true,
      proration_behavior: 'invoice',
      dunning_retry_days: [2, 4],
      dunning_exhausted_status: 'canceled',
      chargeback_subscription_action: 'cancel',
    });
    expect(row.notification_settings).toEqual({ new_sale: false, new_subscription: true });
  });

  it.each([
    ['name is missing', { name: undefined }, 'body.name'],
    ['name is blank', { name: '   ' }, 'body.name'],
    ['slug is missing', { slug: undefined }, 'body.slug'],
    ['terms are missing', { terms: undefined }, 'body.terms'],
    ['terms are false', { terms: false }, 'body.terms'],
    ['the slug has upper-case letters', { slug: 'Acme-Shop' }, 'body.slug'],
    ['the slug is shorter than 3', { slug: 'ab' }, 'body.slug'],
    ['the slug is longer than 64', { slug: 'a'.repeat(65) }, 'body.slug'],
    ['the slug has spaces', { slug: 'acme shop' }, 'body.slug'],
    ['the slug starts with a hyphen', { slug: '-acme' }, 'body.slug'],
    [
      'proration_behavior is unknown',
      { subscription_settings: { proration_behavior: 'later' } },
      'body.subscription_settings.proration_behavior',
    ],
    [
      'a dunning retry is more than 60 days out',
      { subscription_settings: { dunning_retry_days: [61] } },
      'body.subscription_settings.dunning_retry_days.0',
    ],
    [
      'dunning ends in an unknown status',
      { subscription_settings: { dunning_exhausted_status: 'paused' } },
      'body.subscription_settings.dunning_exhausted_status',
    ],
    [
      'notification_settings has an unknown key',
      { notification_settings: { new_refund: true } },
      'body.notification_settings',
    ],
    ['email is not an email', { email: 'not-an-email' }, 'body.email'],
  ])('is 400 when %s, naming the field', async (_case, override, field) => {
    const admin = await adminUser();
    const slug = newSlug();
    const res = await api.call('POST', `${ORGS}/`, {
      token: admin.jwt,
      body: { name: 'Acme', slug, terms: true, ...override },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_error');
    expect(res.body.detail).toContain(field);
    expect(await sql('select 1 from organizations where slug = ?', [slug])).toHaveLength(0);
  });

  it('is 422 for a dunning schedule that is not increasing (a rule JSON Schema cannot state), on create and update', async () => {
    const admin = await adminUser();
    const slug = newSlug();
    const bad = { subscription_settings: { dunning_retry_days: [3, 1] } };
    const created = await api.call('POST', `${ORGS}/`, {
      token: admin.jwt,
      body: { name: 'Acme', slug, terms: true, ...bad },
    });
    expect(created.status).toBe(422);
    expect(created.body).toMatchObject({ code: 'invalid_dunning_schedule', error: 'Invalid dunning schedule' });
    expect(await sql('select 1 from organizations where slug = ?', [slug])).toHaveLength(0);
    const ok = await api.call('POST', `${ORGS}/`, { token: admin.jwt, body: { name: 'Acme', slug, terms: true } });
    expect(ok.status).toBe(201);
    const updated = await api.call('PATCH', `${ORGS}/${ok.body.id}`, { token: admin.jwt, body: { ...bad } });
    expect(updated.status).toBe(422);
    const [row] = await sql('select subscription_settings from organizations where id = ?', [ok.body.id]);
    expect(row.subscription_settings.dunning_retry_days).toEqual([1, 3, 5, 7]);
  });

  it('is 422 for a logo file at creation: a new organization has no files, so none is its own', async () => {
    const admin = await adminUser();
    const slug = newSlug();
    const logo = '01900000-0000-7000-8000-000000000000';
    const created = await createOrganization(admin.jwt, { slug, profile_settings: { logo_file_id: logo } });
    expect(created.status).toBe(422);
    expect(created.body).toMatchObject({
      code: 'invalid_media',
      detail: `profile_settings.logo_file_id: no file ${logo} in this organization`,
    });
    expect(await sql('select 1 from organizations where slug = ?', [slug])).toHaveLength(0);
  });

  it('accepts the longest and shortest slugs', async () => {
    const admin = await adminUser();
    const long = `${uniqueDigits()}${'a'.repeat(64)}`.slice(0, 64);
    expect((await createOrganization(admin.jwt, { slug: long })).status).toBe(201);
    expect((await createOrganization(admin.jwt, { slug: `${uniqueDigits()}`.slice(0, 3) })).status).toBe(201);
  });

  it('is 403 for a user who is not in the admin registry, even with a valid body', async () => {
    const jwt = await userJwt(newEmail('plain'));
    const slug = newSlug();
    const res = await api.call('POST', `${ORGS}/`, { token: jwt, body: { name: 'Acme', slug, terms: true } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      error: 'User may not create organizations',
      detail: expect.any(String),
      code: 'forbidden',
    });
    expect(await sql('select 1 from organizations where slug = ?', [slug])).toHaveLength(0);
  });

  it('is 401 without a token and 403 with an organization token or API key', async () => {
    const tenant = await makeTenant(api.orm);
    expect((await api.call('POST', `${ORGS}/`, { body: { name: 'A', slug: newSlug(), terms: true } })).status).toBe(
      401,
    );
    expect(
      (await api.call('POST', `${ORGS}/`, { token: tenant.oat, body: { name: 'A', slug: newSlug(), terms: true } }))
        .status,
    ).toBe(403);
    const byKey = await api.call('POST', `${ORGS}/`, {
      headers: { 'x-service-api-key': tenant.apiKey },
      body: { name: 'A', slug: newSlug(), terms: true },
    });
    expect(byKey.status).toBe(403);
  });

  it('is 422 slug_taken for a slug that already exists', async () => {
    const admin = await adminUser();
    const first = await createOrganization(admin.jwt);
    const again = await createOrganization(admin.jwt, { slug: first.body.slug, name: 'Other' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({
      error: 'Slug already exists',
      detail: expect.stringContaining(first.body.slug),
      code: 'slug_taken',
    });
  });

  it('creates exactly one organization when several requests race for one slug', async () => {
    const admins = await Promise.all([adminUser(), adminUser(), adminUser(), adminUser(), adminUser()]);
    const slug = newSlug();
    const results = await Promise.all(admins.map((a) => createOrganization(a.jwt, { slug })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 422, 422, 422, 422]);
    for (const lost of results.filter((r) => r.status === 422)) expect(lost.body.code).toBe('slug_taken');
    const rows = await sql<{ id: string }>('select id from organizations where slug = ?', [slug]);
    expect(rows).toHaveLength(1);
    expect(await sql('select 1 from organization_members where organization_id = ?', [rows[0]!.id])).toHaveLength(1);
  });

  describe('sub-organizations', () => {
    it('lets an owner or admin of the parent create one', async () => {
      const { org, owner, admin } = await team();
      await makeAdminUser(api.orm, owner.email);
      await makeAdminUser(api.orm, admin.email);
      const byOwner = await createOrganization(owner.jwt, { parent_organization_id: org.id });
      expect(byOwner.status).toBe(201);
      expect(byOwner.body.parent_organization_id).toBe(org.id);
      const byAdmin = await createOrganization(admin.jwt, { parent_organization_id: org.id });
      expect(byAdmin.status).toBe(201);
      const [row] = await sql('select parent_organization_id from organizations where id = ?', [byAdmin.body.id]);
      expect(row.parent_organization_id).toBe(org.id);
    });

    it('is 403 for a plain member of the parent and 404 for an outsider or an unknown parent', async () => {
      const { org, member, outsider } = await team();
      await makeAdminUser(api.orm, member.email);
      await makeAdminUser(api.orm, outsider.email);
      const byMember = await createOrganization(member.jwt, { parent_organization_id: org.id });
      expect(byMember.status).toBe(403);
      const byOutsider = await createOrganization(outsider.jwt, { parent_organization_id: org.id });
      expect(byOutsider.status).toBe(404);
      expect(byOutsider.body).toEqual({ error: 'Parent organization not found', code: 'not_found' });
      const unknown = await createOrganization(outsider.jwt, {
        parent_organization_id: '0190a000-0000-7000-8000-000000000000',
      });
      expect(unknown.status).toBe(404);
      expect(await sql('select 1 from organizations where parent_organization_id = ?', [org.id])).toHaveLength(0);
    });

    it('is 422 when the parent is itself a sub-organization (one level deep)', async () => {
      const admin = await adminUser();
      const parent = await createOrganization(admin.jwt);
      const child = await createOrganization(admin.jwt, { parent_organization_id: parent.body.id });
      expect(child.status).toBe(201);
      const grandchild = await createOrganization(admin.jwt, { parent_organization_id: child.body.id });
      expect(grandchild.status).toBe(422);
      expect(grandchild.body.code).toBe('nested_sub_organization');
    });
  });
});

describe('GET /api/v1/organizations/', () => {
  it("lists only the user's organizations, newest first by default, paginated", async () => {
    const admin = await adminUser();
    const a = await createOrganization(admin.jwt, { name: 'Bravo' });
    const b = await createOrganization(admin.jwt, { name: 'Alpha' });
    const c = await createOrganization(admin.jwt, { name: 'Charlie' });
    await makeOrganization(api.orm); // someone else's

    const all = await api.call('GET', `${ORGS}/`, { token: admin.jwt });
    expect(all.status).toBe(200);
    expect(all.body.items.map((o: any) => o.id)).toEqual([c.body.id, b.body.id, a.body.id]);
    expect(all.body.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(all.body.items[0]).toEqual(c.body);

    const byName = await api.call('GET', `${ORGS}/?sorting=name&limit=2&page=1`, { token: admin.jwt });
    expect(byName.body.items.map((o: any) => o.name)).toEqual(['Alpha', 'Bravo']);
    expect(byName.body.pagination).toEqual({ total_count: 3, max_page: 2 });
    const page2 = await api.call('GET', `${ORGS}/?sorting=name&limit=2&page=2`, { token: admin.jwt });
    expect(page2.body.items.map((o: any) => o.name)).toEqual(['Charlie']);
  });

  it('is an empty page for a user without organizations and 400 for an unknown sorting field', async () => {
    const jwt = await userJwt(newEmail('lonely'));
    const res = await api.call('GET', `${ORGS}/`, { token: jwt });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], pagination: { total_count: 0, max_page: 1 } });
    const bad = await api.call('GET', `${ORGS}/?sorting=status`, { token: jwt });
    expect(bad.status).toBe(400);
    // An empty value is sent, not absent: outside the enum like any other (issue 33 §7).
    const empty = await api.call('GET', `${ORGS}/?sorting=`, { token: jwt });
    expect([empty.status, empty.body]).toEqual([400, bad.body]);
    expect(empty.body).toMatchObject({ error: 'Invalid sorting', code: 'invalid_request' });
  });

  it("gives an organization token its own organization and its direct sub-organizations, nobody else's", async () => {
    const parent = await makeOrganization(api.orm);
    const child1 = await makeOrganization(api.orm, { parentId: parent.id });
    const child2 = await makeOrganization(api.orm, { parentId: parent.id });
    const otherChild = await makeOrganization(api.orm, { parentId: (await makeOrganization(api.orm)).id });

    const parentOat = await makeOat(api.orm, parent.id, ['organizations:read']);
    const res = await api.call('GET', `${ORGS}/?sorting=created_at`, { token: parentOat });
    expect(res.status).toBe(200);
    expect(res.body.items.map((o: any) => o.id)).toEqual([parent.id, child1.id, child2.id]);
    expect(res.body.items.map((o: any) => o.id)).not.toContain(otherChild.id);

    const childOat = await makeOat(api.orm, child1.id, ['web:read']);
    const own = await api.call('GET', `${ORGS}/`, { token: childOat });
    expect(own.body.items.map((o: any) => o.id)).toEqual([child1.id]);
  });

  it('is 403 for a token without an organizations or web scope, and for an API key', async () => {
    const org = await makeOrganization(api.orm);
    const oat = await makeOat(api.orm, org.id, ['products:read']);
    expect((await api.call('GET', `${ORGS}/`, { token: oat })).status).toBe(403);
    const { key } = await makeApiKey(api.orm, org.id);
    expect((await api.call('GET', `${ORGS}/`, { headers: { 'x-service-api-key': key } })).status).toBe(403);
  });
});

describe('GET /api/v1/organizations/:id', () => {
  it('returns the organization to each of its members', async () => {
    const { org, owner, member } = await team();
    for (const who of [owner, member]) {
      const res = await api.call('GET', `${ORGS}/${org.id}`, { token: who.jwt });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        id: org.id,
        slug: org.slug,
        status: 'created',
        customer_invoice_prefix: org.slug.toUpperCase(),
      });
    }
  });

  it('is 404 for a user outside it and for an unknown id; 400 for a malformed id', async () => {
    const { org, outsider } = await team();
    const res = await api.call('GET', `${ORGS}/${org.id}`, { token: outsider.jwt });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Organization not found', code: 'not_found' });
    expect(
      (await api.call('GET', `${ORGS}/0190a000-0000-7000-8000-000000000000`, { token: outsider.jwt })).status,
    ).toBe(404);
    expect((await api.call('GET', `${ORGS}/not-a-uuid`, { token: outsider.jwt })).status).toBe(400);
  });

  it("serves a token of the organization and of its parent; another organization's token gets 404", async () => {
    const parent = await makeOrganization(api.orm);
    const child = await makeOrganization(api.orm, { parentId: parent.id });
    const stranger = await makeOrganization(api.orm);
    const parentOat = await makeOat(api.orm, parent.id, ['organizations:read']);
    const childOat = await makeOat(api.orm, child.id, ['web:read']);
    const strangerOat = await makeOat(api.orm, stranger.id, ['web:write']);

    expect((await api.call('GET', `${ORGS}/${child.id}`, { token: childOat })).body.id).toBe(child.id);
    const viaParent = await api.call('GET', `${ORGS}/${child.id}`, { token: parentOat });
    expect(viaParent.status).toBe(200);
    expect(viaParent.body.parent_organization_id).toBe(parent.id);
    // A child's token does not reach its parent, and a stranger reaches neither.
    expect((await api.call('GET', `${ORGS}/${parent.id}`, { token: childOat })).status).toBe(404);
    expect((await api.call('GET', `${ORGS}/${parent.id}`, { token: strangerOat })).status).toBe(404);
    expect((await api.call('GET', `${ORGS}/${child.id}`, { token: strangerOat })).status).toBe(404);
  });
});

describe('PATCH /api/v1/organizations/:id', () => {
  it('updates fields, merges settings, sets modified_at and records organization.updated', async () => {
    const admin = await adminUser();
    const created = await createOrganization(admin.jwt, {
      bio: 'old bio',
      subscription_settings: { allow_multiple_subscriptions: true },
    });
    const id = created.body.id;

    const res = await api.call('PATCH', `${ORGS}/${id}`, {
      token: admin.jwt,
      body: {
        name: 'Acme Renamed',
        bio: null,
        website: 'https://acme.example',
        subscription_settings: { proration_behavior: 'none' },
        notification_settings: { new_subscription: false },
        profile_settings: { theme: 'dark' },
        socials: [{ platform: 'github', url: 'https://github.com/acme' }],
        details: { about: 'Shop', monthly_volume: 1000 },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...created.body,
      name: 'Acme Renamed',
      bio: null,
      website: 'https://acme.example',
      subscription_settings: {
        allow_multiple_subscriptions: true,
        allow_customer_updates: true,
        proration_behavior: 'none',
        dunning_retry_days: [1, 3, 5, 7],
        dunning_exhausted_status: 'unpaid',
        chargeback_subscription_action: 'past_due',
      },
      notification_settings: { new_sale: true, new_subscription: false },
      profile_settings: { theme: 'dark' },
      socials: [{ platform: 'github', url: 'https://github.com/acme' }],
      details: { about: 'Shop', monthly_volume: 1000 },
      modified_at: expect.stringMatching(ISO),
    });
    const [row] = await sql('select name, bio, subscription_settings, modified_at from organizations where id = ?', [
      id,
    ]);
    expect(row.name).toBe('Acme Renamed');
    expect(row.bio).toBeNull();
    expect(row.subscription_settings.proration_behavior).toBe('none');
    expect(row.modified_at).not.toBeNull();
    const updated = await events(id, 'organization.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data).toEqual(res.body);

    // The slug and the invoice prefix derived from it do not move.
    expect(res.body.slug).toBe(created.body.slug);
    expect(res.body.customer_invoice_prefix).toBe(created.body.slug.toUpperCase());
  });

  it('leaves the record untouched for an empty body', async () => {
    const { org, owner } = await team();
    const res = await api.call('PATCH', `${ORGS}/${org.id}`, { token: owner.jwt, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.modified_at).toBeNull();
    expect(await events(org.id, 'organization.updated')).toHaveLength(0);
  });

  it.each([
    ['the slug is sent', { slug: 'new-slug' }, 'body.slug'],
    [
      'proration_behavior is unknown',
      { subscription_settings: { proration_behavior: 'sometimes' } },
      'body.subscription_settings.proration_behavior',
    ],
    [
      'a setting has the wrong type',
      { notification_settings: { new_sale: 'yes' } },
      'body.notification_settings.new_sale',
    ],
    ['the name is null', { name: null }, 'body.name'],
  ])('is 400 when %s', async (_case, body, field) => {
    const { org, owner } = await team();
    const res = await api.call('PATCH', `${ORGS}/${org.id}`, { token: owner.jwt, body });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain(field);
  });

  it('allows owners and admins; a member gets 403 and an outsider 404', async () => {
    const { org, owner, admin, member, outsider } = await team();
    expect((await api.call('PATCH', `${ORGS}/${org.id}`, { token: owner.jwt, body: { bio: 'by owner' } })).status).toBe(
      200,
    );
    expect((await api.call('PATCH', `${ORGS}/${org.id}`, { token: admin.jwt, body: { bio: 'by admin' } })).status).toBe(
      200,
    );
    const byMember = await api.call('PATCH', `${ORGS}/${org.id}`, { token: member.jwt, body: { bio: 'by member' } });
    expect(byMember.status).toBe(403);
    const byOutsider = await api.call('PATCH', `${ORGS}/${org.id}`, {
      token: outsider.jwt,
      body: { bio: 'by outsider' },
    });
    expect(byOutsider.status).toBe(404);
    const [row] = await sql('select bio from organizations where id = ?', [org.id]);
    expect(row.bio).toBe('by admin');
  });

  it("accepts the organization's own writing token only", async () => {
    const parent = await makeOrganization(api.orm);
    const child = await makeOrganization(api.orm, { parentId: parent.id });
    const stranger = await makeOrganization(api.orm);

    const own = await api.call('PATCH', `${ORGS}/${child.id}`, {
      token: await makeOat(api.orm, child.id, ['organizations:write']),
      body: { bio: 'own' },
    });
    expect(own.status).toBe(200);
    expect(own.body.bio).toBe('own');
    const readOnly = await api.call('PATCH', `${ORGS}/${child.id}`, {
      token: await makeOat(api.orm, child.id, ['organizations:read']),
      body: { bio: 'x' },
    });
    expect(readOnly.status).toBe(403);
    const viaParent = await api.call('PATCH', `${ORGS}/${child.id}`, {
      token: await makeOat(api.orm, parent.id, ['web:write']),
      body: { bio: 'x' },
    });
    expect(viaParent.status).toBe(403);
    const byStranger = await api.call('PATCH', `${ORGS}/${child.id}`, {
      token: await makeOat(api.orm, stranger.id, ['web:write']),
      body: { bio: 'x' },
    });
    expect(byStranger.status).toBe(404);
    const [row] = await sql('select bio from organizations where id = ?', [child.id]);
    expect(row.bio).toBe('own');
  });

  it('keeps both changes when two settings updates race', async () => {
    const { org, owner } = await team();
    const [a, b] = await Promise.all([
      api.call('PATCH', `${ORGS}/${org.id}`, {
        token: owner.jwt,
        body: { subscription_settings: { allow_multiple_subscriptions: true } },
      }),
      api.call('PATCH', `${ORGS}/${org.id}`, {
        token: owner.jwt,
        body: { subscription_settings: { proration_behavior: 'invoice' } },
      }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const [row] = await sql('select subscription_settings from organizations where id = ?', [org.id]);
    expect(row.subscription_settings).toEqual({
      allow_multiple_subscriptions: true,
      allow_customer_updates: true,
      proration_behavior: 'invoice',
      dunning_retry_days: [1, 3, 5, 7],
      dunning_exhausted_status: 'unpaid',
      chargeback_subscription_action: 'past_due',
    });
  });
});

describe('GET /api/v1/organizations/:id/members', () => {
  it('lists email, avatar_url and joining time of every member, in joining order, to a member', async () => {
    const { org, owner, admin, member } = await team();
    const res = await api.call('GET', `${ORGS}/${org.id}/members`, { token: member.jwt });
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ total_count: 3, max_page: 1 });
    expect(res.body.items).toEqual(
      [owner, admin, member].map((p) => ({ email: p.email, avatar_url: null, created_at: expect.stringMatching(ISO) })),
    );
    for (const item of res.body.items) expect(Object.keys(item).sort()).toEqual(['avatar_url', 'created_at', 'email']);

    const page = await api.call('GET', `${ORGS}/${org.id}/members?limit=2&page=2`, { token: owner.jwt });
    expect(page.body.items.map((i: any) => i.email)).toEqual([member.email]);
    expect(page.body.pagination).toEqual({ total_count: 3, max_page: 2 });
  });

  it('is 404 for a user outside the organization and 403 for an organization token', async () => {
    const { org, outsider } = await team();
    const res = await api.call('GET', `${ORGS}/${org.id}/members`, { token: outsider.jwt });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
    const oat = await makeOat(api.orm, org.id, ['web:write']);
    expect((await api.call('GET', `${ORGS}/${org.id}/members`, { token: oat })).status).toBe(403);
  });
});

describe('POST /api/v1/organizations/:id/members', () => {
  it('lets an owner add an existing user, who then sees the organization', async () => {
    const { org, owner } = await team();
    const newcomer = { email: newEmail('newcomer'), jwt: '' };
    newcomer.jwt = await userJwt(newcomer.email);
    await api.call('GET', `${ORGS}/`, { token: newcomer.jwt }); // signs in once: the users row exists
    expect((await api.call('GET', `${ORGS}/${org.id}`, { token: newcomer.jwt })).status).toBe(404);

    const res = await api.call('POST', `${ORGS}/${org.id}/members`, {
      token: owner.jwt,
      body: { email: newcomer.email, role: 'member' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      email: newcomer.email,
      avatar_url: null,
      created_at: expect.stringMatching(ISO),
      role: 'member',
    });
    expect((await api.call('GET', `${ORGS}/${org.id}`, { token: newcomer.jwt })).status).toBe(200);
    const added = await events(org.id, 'organization_member.added');
    expect(added.map((e) => e.data)).toEqual([{ organization_id: org.id, ...res.body }]);
  });

  it('adds someone who has never signed in under a placeholder user', async () => {
    const { org, owner } = await team();
    const email = newEmail('invitee');
    const res = await api.call('POST', `${ORGS}/${org.id}/members`, {
      token: owner.jwt,
      body: { email: email.toUpperCase() },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email, role: 'member' });
    const users = await sql('select subject, email from users where email = ?', [email]);
    expect(users).toEqual([{ subject: `invited|${email}`, email }]);
    const list = await api.call('GET', `${ORGS}/${org.id}/members`, { token: owner.jwt });
    expect(list.body.items.map((i: any) => i.email)).toContain(email);
  });

  it('gives the invitee the membership when they first sign in', async () => {
    const { org, owner } = await team();
    const email = newEmail('invitee');
    expect((await api.call('POST', `${ORGS}/${org.id}/members`, { token: owner.jwt, body: { email } })).status).toBe(
      201,
    );
    const jwt = await userJwt(email, `idp|${unique('sub')}`);
    const res = await api.call('GET', `${ORGS}/${org.id}`, { token: jwt });
    expect(res.status).toBe(200);
    const users = await sql('select subject from users where email = ?', [email]);
    expect(users).toHaveLength(1);
    expect(users[0].subject).toMatch(/^idp\|/);
  });

  it('lets owners add admins, admins add members only, and members nobody', async () => {
    const { org, owner, admin, member, outsider } = await team();
    const add = (jwt: string, role: string) =>
      api.call('POST', `${ORGS}/${org.id}/members`, { token: jwt, body: { email: newEmail(role), role } });
    expect((await add(owner.jwt, 'admin')).status).toBe(201);
    expect((await add(admin.jwt, 'member')).status).toBe(201);
    expect((await add(admin.jwt, 'admin')).status).toBe(403);
    expect((await add(member.jwt, 'member')).status).toBe(403);
    expect((await add(outsider.jwt, 'member')).status).toBe(404);
    expect((await add(owner.jwt, 'owner')).status).toBe(400);
    const [count] = await sql('select count(*)::int as n from organization_members where organization_id = ?', [
      org.id,
    ]);
    expect(count.n).toBe(5);
  });

  it('is 422 already_member for someone already in the organization', async () => {
    const { org, owner, member } = await team();
    const res = await api.call('POST', `${ORGS}/${org.id}/members`, {
      token: owner.jwt,
      body: { email: member.email, role: 'admin' },
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('already_member');
    const [row] = await sql(
      'select m.role from organization_members m join users u on u.id = m.user_id where m.organization_id = ? and u.email = ?',
      [org.id, member.email],
    );
    expect(row.role).toBe('member');
  });
});

describe('DELETE /api/v1/organizations/:id/members/:email', () => {
  const remove = (orgId: string, email: string, jwt: string) =>
    api.call('DELETE', `${ORGS}/${orgId}/members/${encodeURIComponent(email)}`, { token: jwt });

  it('lets an owner remove a member, who then loses access', async () => {
    const { org, owner, member } = await team();
    const res = await remove(org.id, member.email, owner.jwt);
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect((await api.call('GET', `${ORGS}/${org.id}`, { token: member.jwt })).status).toBe(404);
    const removed = await events(org.id, 'organization_member.removed');
    // The member as its addition answered it (no avatar here), with its organization.
    expect(removed.map((e) => e.data)).toEqual([
      {
        organization_id: org.id,
        email: member.email,
        avatar_url: null,
        created_at: expect.stringMatching(ISO),
        role: 'member',
      },
    ]);
  });

  it('lets an admin remove members but not admins or owners; members remove nobody', async () => {
    const { org, owner, admin, member, outsider } = await team();
    expect((await remove(org.id, admin.email, member.jwt)).status).toBe(403);
    expect((await remove(org.id, owner.email, admin.jwt)).status).toBe(403);
    expect((await remove(org.id, admin.email, admin.jwt)).status).toBe(403);
    expect((await remove(org.id, member.email, outsider.jwt)).status).toBe(404);
    expect((await remove(org.id, member.email, admin.jwt)).status).toBe(204);
    expect((await remove(org.id, admin.email, owner.jwt)).status).toBe(204);
  });

  it('is 404 for an email that is not a member', async () => {
    const { org, owner, outsider } = await team();
    const res = await remove(org.id, outsider.email, owner.jwt);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Member not found', code: 'not_found' });
  });

  it('never removes the last owner, even when two owners remove each other at once', async () => {
    const { org, owner } = await team();
    const last = await remove(org.id, owner.email, owner.jwt);
    expect(last.status).toBe(422);
    expect(last.body.code).toBe('last_owner');

    const second = { email: newEmail('owner2'), jwt: '' };
    await makeMember(api.orm, org.id, second.email, 'owner');
    second.jwt = await userJwt(second.email);
    const results = await Promise.all([
      remove(org.id, second.email, owner.jwt),
      remove(org.id, owner.email, second.jwt),
    ]);
    // Serialized by the lock: the second request's caller is no longer a member.
    expect(results.map((r) => r.status).sort()).toEqual([204, 404]);
    const owners = await sql("select 1 from organization_members where organization_id = ? and role = 'owner'", [
      org.id,
    ]);
    expect(owners).toHaveLength(1);
  });
});

let counter = 0;
/** Digits unique within the run, for slugs whose exact length matters. */
function uniqueDigits(): string {
  counter += 1;
  return `${Date.now()}${counter}`.split('').reverse().join('');
}
