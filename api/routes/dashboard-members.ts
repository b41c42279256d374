import { notFound } from '../../use-cases/errors.ts';
import { errorResponses, isUuid, listQuery, pageOf, paginated } from '../../use-cases/schemas/common.ts';
import { userCredential } from '../plugins/auth.ts';
import { memberPage, roleOf } from '../organization-records.ts';
import { organizationParams } from '../schemas/credentials.ts';
import { dashboardMemberSchema } from '../schemas/organizations.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';

/**
 * The members with their roles, for the dashboard's members page: the spec's member list
 * (GET /organizations/:id/members) has exactly email, avatar_url and created_at, and a page that
 * manages members must show who is an owner or an admin. The same rule: any member lists, others get 404.
 */
export function dashboardMemberRoutes(
  app: RouteApp,
  deps: RouteDeps,
  asUser: { onRequest: ReturnType<RouteApp['authenticate']> },
): void {
  app.get(
    '/organizations/:organization_id/members',
    {
      ...asUser,
      schema: {
        tags: ['dashboard'],
        summary: 'List the members of an organization the caller belongs to, with their roles',
        params: organizationParams,
        querystring: listQuery(['created_at', 'email']),
        response: { 200: paginated(dashboardMemberSchema), ...errorResponses },
      },
    },
    async (request) => {
      const organizationId = request.params.organization_id;
      const { userId } = userCredential(request);
      if (!isUuid(organizationId) || !(await roleOf(deps.orm.em.fork(), organizationId, userId)))
        throw notFound('Organization');
      const { rows, total } = await memberPage(deps.orm.em.fork(), organizationId, request.query);
      return pageOf(rows, total, request.query.limit);
    },
  );
}
