import { describe, expect, it } from '@jest/globals';
import { useApi, type TestApi } from '../helpers/api.ts';
import { makeMember, makeOat, makeOrganization, unique, userJwt } from '../helpers/fixtures.ts';

/**
 * GET /api/v1/dashboard/organizations/:id/members: the members page's list, the spec's member items
 * with each member's role; listed to any member, as the spec's list is, and to nobody else.
 */
let api: TestApi;
useApi(({ api: started }) => (api = started));

const path = (organizationId: string) => `/api/v1/dashboard/organizations/${organizationId}/members`;

describe('GET /api/v1/dashboard/organizations/:id/members', () => {
  it("lists every member's e-mail, joining time and role, in joining order, by pages", async () => {
    const org = await makeOrganization(api.orm);
    const people: { email: string; role: 'owner' | 'admin' | 'member' }[] = [];
    for (const role of ['owner', 'admin', 'member'] as const) {
      const email = `${unique(role)}@example.com`;
      await makeMember(api.orm, org.id, email, role);
      people.push({ email, role });
    }
    const asMember = await userJwt(people[2]!.email);
    const res = await api.call('GET', path(org.id), { token: asMember });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      items: people.map((p) => ({ ...p, avatar_url: null, created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/) })),
      pagination: { total_count: 3, max_page: 1 },
    });
    const second = await api.call('GET', `${path(org.id)}?limit=2&page=2&sorting=-created_at`, { token: asMember });
    expect(second.body.items.map((m: { role: string }) => m.role)).toEqual(['owner']);
    // The spec's list keeps its exact items.
    const spec = await api.call('GET', `/api/v1/organizations/${org.id}/members`, { token: asMember });
    expect(Object.keys(spec.body.items[0]).sort()).toEqual(['avatar_url', 'created_at', 'email']);
  });

  it('is 404 to a user outside the organization or for no organization, and 403 to an organization token', async () => {
    const org = await makeOrganization(api.orm);
    await makeMember(api.orm, org.id, `${unique('owner')}@example.com`, 'owner');
    const outsider = await userJwt(`${unique('outsider')}@example.com`);
    expect((await api.call('GET', path(org.id), { token: outsider })).status).toBe(404);
    expect((await api.call('GET', path('not-a-uuid'), { token: outsider })).status).toBe(404);
    expect((await api.call('GET', path(org.id), { token: await makeOat(api.orm, org.id) })).status).toBe(403);
  });
});
