import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { uuidv7 } from 'uuidv7';
import { z } from 'zod';
import { DEFAULT_NOTIFICATION_SETTINGS, DEFAULT_SUBSCRIPTION_SETTINGS } from '../../domain/organizations.ts';
import { recordEvent } from '../../db/events.ts';
import {
  addMember,
  memberByEmail,
  organizationIdsOf,
  ownerCount,
  removeMember,
} from '../../db/organization/members.ts';
import {
  createOrganization,
  findOrganization,
  lockOrganization,
  organizationPage,
  slugTaken as slugInUse,
} from '../../db/organization/organizations.ts';
import { findOrCreateUserByEmail, isAdminUser } from '../../db/organization/users.ts';
import type { Credential } from '../auth/credentials.ts';
import { ApiError, forbidden, notFound, unprocessable } from '../../use-cases/errors.ts';
import { userCredential } from '../plugins/auth.ts';
import {
  errorResponses,
  iso,
  listQuery,
  orderBy,
  pageOf,
  pageOffset,
  paginated,
} from '../../use-cases/schemas/common.ts';
import {
  addedMemberSchema,
  addMemberBody,
  createOrganizationBody,
  memberParams,
  memberSchema,
  organizationParams,
  organizationSchema,
  updateOrganizationBody,
} from '../schemas/organizations.ts';
import {
  applyUpdate,
  checkParent,
  checkSubscriptionSettings,
  mayManage,
  memberPage,
  roleOf,
  toOrganizationBody,
} from '../organization-records.ts';
import type { RouteApp, RouteDeps } from '../route-deps.ts';
import { ownMediaFiles } from '../product-medias.ts';

const READ_SCOPES = ['organizations:read', 'web:read'];
const WRITE_SCOPES = ['organizations:write', 'web:write'];
const ORGANIZATION_SORTING = { created_at: 'createdAt', name: 'name', slug: 'slug' };

function callerOf(request: FastifyRequest): Credential {
  if (!request.credential) throw new ApiError(500, 'internal_error', 'Route is missing its auth rule');
  return request.credential;
}

const alreadyMember = (email: string) =>
  unprocessable('already_member', 'Already a member', `${email} is already a member of this organization`);
const slugTaken = (slug: string) =>
  unprocessable('slug_taken', 'Slug already exists', `An organization with slug "${slug}" already exists`);

export const organizationsRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  creationRoutes(app, deps);
  readRoutes(app, deps);
  updateRoutes(app, deps);
  memberListRoutes(app, deps);
  memberAdditionRoutes(app, deps);
  memberRemovalRoutes(app, deps);
};

/** POST /: an organization, its caller its owner. */
function creationRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/',
    {
      onRequest: app.authenticate({ user: true }),
      // Before body validation: a user who may not create organizations learns nothing about the body.
      preValidation: async (request) => {
        const { email } = userCredential(request);
        if (!(await isAdminUser(deps.orm.em.fork(), email)))
          throw forbidden('User may not create organizations', 'Only registered admin users may create organizations');
      },
      schema: {
        tags: ['organizations'],
        summary: 'Create an organization (the caller becomes its owner)',
        body: createOrganizationBody,
        response: { 201: organizationSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = userCredential(request);
      const body = request.body;
      checkSubscriptionSettings(body.subscription_settings);
      const em = deps.orm.em.fork();
      if (await slugInUse(em, body.slug)) throw slugTaken(body.slug);
      try {
        const created = await em.transactional(async (tx) => {
          if (body.parent_organization_id) await checkParent(tx, body.parent_organization_id, user.userId);
          const now = new Date();
          const org = createOrganization(tx, {
            id: uuidv7(),
            parentOrganizationId: body.parent_organization_id ?? null,
            name: body.name,
            slug: body.slug,
            avatarUrl: body.avatar_url ?? null,
            bio: body.bio ?? null,
            email: body.email ?? null,
            website: body.website ?? null,
            company: body.company ?? null,
            blog: body.blog ?? null,
            location: body.location ?? null,
            socialUsername: body.social_username ?? null,
            status: 'created',
            nextReviewThreshold: 0,
            customerInvoicePrefix: body.slug.toUpperCase(),
            customerInvoiceNextNumber: 1,
            profileSettings: body.profile_settings ?? {},
            featureSettings: body.feature_settings ?? {},
            subscriptionSettings: { ...DEFAULT_SUBSCRIPTION_SETTINGS, ...body.subscription_settings },
            notificationSettings: { ...DEFAULT_NOTIFICATION_SETTINGS, ...body.notification_settings },
            socials: body.socials ?? [],
            details: {},
            createdAt: now,
            modifiedAt: null,
            onboardedAt: null,
          });
          // A logo must be a file of the organization, so a new one's is always unknown (as an update's would be).
          const logo = body.profile_settings?.logo_file_id;
          if (logo) await ownMediaFiles(tx, org.id, [logo], 'profile_settings.logo_file_id');
          // The organization row first: the membership and the event reference it (no ORM relations order them).
          await tx.flush();
          addMember(tx, { organizationId: org.id, userId: user.userId, role: 'owner', createdAt: now });
          recordEvent(tx, org.id, 'organization.created', toOrganizationBody(org));
          return org;
        });
        return reply.status(201).send(toOrganizationBody(created));
      } catch (err) {
        // Two creates with one slug can both pass the check above; the unique index decides.
        if (err instanceof UniqueConstraintViolationException && err.message.includes('slug'))
          throw slugTaken(body.slug);
        throw err;
      }
    },
  );
}

/**
 * GET / and GET /:id: the caller's organizations (a token's: its own and its direct
 * sub-organizations).
 */
function readRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/',
    {
      onRequest: app.authenticate({ user: true, oat: READ_SCOPES }),
      schema: {
        tags: ['organizations'],
        summary: "List the caller's organizations (a token: its own and its direct sub-organizations)",
        querystring: listQuery(['created_at', 'name', 'slug']),
        response: { 200: paginated(organizationSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { page, limit, sorting } = request.query;
      const order = orderBy(sorting, ORGANIZATION_SORTING, '-created_at');
      const credential = callerOf(request);
      const em = deps.orm.em.fork();
      const where =
        credential.kind === 'user'
          ? { id: { $in: await organizationIdsOf(em, credential.userId) } }
          : { $or: [{ id: credential.organizationId }, { parentOrganizationId: credential.organizationId }] };
      const [rows, total] = await organizationPage(em, where, {
        orderBy: order,
        limit,
        offset: pageOffset({ page, limit }),
      });
      return pageOf(rows.map(toOrganizationBody), total, limit);
    },
  );

  app.get(
    '/:id',
    {
      onRequest: app.authenticate({ user: true, oat: READ_SCOPES }),
      schema: {
        tags: ['organizations'],
        summary: 'Get an organization',
        params: organizationParams,
        response: { 200: organizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const credential = callerOf(request);
      const em = deps.orm.em.fork();
      const org = await findOrganization(em, request.params.id);
      if (!org) throw notFound('Organization');
      const visible =
        credential.kind === 'user'
          ? (await roleOf(em, org.id, credential.userId)) !== null
          : credential.organizationId === org.id || credential.organizationId === org.parentOrganizationId;
      if (!visible) throw notFound('Organization');
      return toOrganizationBody(org);
    },
  );
}

/** PATCH /:id: the organization's fields; its settings objects are merged. */
function updateRoutes(app: RouteApp, deps: RouteDeps): void {
  app.patch(
    '/:id',
    {
      onRequest: app.authenticate({ user: true, oat: WRITE_SCOPES }),
      schema: {
        tags: ['organizations'],
        summary: 'Update an organization (settings objects are merged)',
        params: organizationParams,
        body: updateOrganizationBody,
        response: { 200: organizationSchema, ...errorResponses },
      },
    },
    async (request) => {
      const credential = callerOf(request);
      const em = deps.orm.em.fork();
      const updated = await em.transactional(async (tx) => {
        // Locked: settings are merged over the current ones, so concurrent updates must not interleave.
        const org = await lockOrganization(tx, request.params.id);
        if (!org) throw notFound('Organization');
        if (credential.kind === 'user') {
          const role = await roleOf(tx, org.id, credential.userId);
          if (!role) throw notFound('Organization');
          if (role === 'member') throw forbidden('Only owners and admins may update the organization');
        } else if (credential.organizationId !== org.id) {
          // A parent's token already sees its sub-organizations, so a 403 confirms nothing new.
          if (credential.organizationId === org.parentOrganizationId) {
            throw forbidden("A parent organization's token may not update a sub-organization");
          }
          throw notFound('Organization');
        }
        checkSubscriptionSettings(request.body.subscription_settings);
        const logo = request.body.profile_settings?.logo_file_id;
        if (logo) await ownMediaFiles(tx, org.id, [logo], 'profile_settings.logo_file_id');
        if (!applyUpdate(org, request.body)) return org;
        org.modifiedAt = new Date();
        recordEvent(tx, org.id, 'organization.updated', toOrganizationBody(org));
        return org;
      });
      return toOrganizationBody(updated);
    },
  );
}

/** GET /:id/members: the members, to any member. */
function memberListRoutes(app: RouteApp, deps: RouteDeps): void {
  app.get(
    '/:id/members',
    {
      onRequest: app.authenticate({ user: true }),
      schema: {
        tags: ['organizations'],
        summary: 'List the members of an organization the caller belongs to',
        params: organizationParams,
        querystring: listQuery(['created_at', 'email']),
        response: { 200: paginated(memberSchema), ...errorResponses },
      },
    },
    async (request) => {
      const user = userCredential(request);
      const organizationId = request.params.id;
      if (!(await roleOf(deps.orm.em.fork(), organizationId, user.userId))) throw notFound('Organization');
      const { rows, total } = await memberPage(deps.orm.em.fork(), organizationId, request.query);
      // The spec's item: no role (the dashboard's own list, api/routes/dashboard-members.ts, has it).
      const items = rows.map(({ email, avatar_url, created_at }) => ({ email, avatar_url, created_at }));
      return pageOf(items, total, request.query.limit);
    },
  );
}

/** POST /:id/members: a member by email (owners add admins and members; admins add members). */
function memberAdditionRoutes(app: RouteApp, deps: RouteDeps): void {
  app.post(
    '/:id/members',
    {
      onRequest: app.authenticate({ user: true }),
      schema: {
        tags: ['organizations'],
        summary: 'Add a member by email (owners add admins and members; admins add members)',
        params: organizationParams,
        body: addMemberBody,
        response: { 201: addedMemberSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = userCredential(request);
      const email = request.body.email.toLowerCase();
      const role = request.body.role;
      const em = deps.orm.em.fork();
      try {
        const added = await em.transactional(async (tx) => {
          const org = await lockOrganization(tx, request.params.id);
          const actorRole = org ? await roleOf(tx, org.id, actor.userId) : null;
          if (!org || !actorRole) throw notFound('Organization');
          if (!mayManage(actorRole, role)) throw forbidden(`A ${actorRole} may not add a member with role ${role}`);
          const user = await findOrCreateUserByEmail(tx, email);
          if (await roleOf(tx, org.id, user.id)) throw alreadyMember(email);
          const member = { organizationId: org.id, userId: user.id, role, createdAt: new Date() };
          addMember(tx, member);
          const body = { email, avatar_url: user.avatarUrl, created_at: iso(member.createdAt)!, role };
          recordEvent(tx, org.id, 'organization_member.added', { organization_id: org.id, ...body });
          return body;
        });
        return reply.status(201).send(added);
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw alreadyMember(email);
        throw err;
      }
    },
  );
}

/** DELETE /:id/members/:email: a member leaves; the last owner stays. */
function memberRemovalRoutes(app: RouteApp, deps: RouteDeps): void {
  app.delete(
    '/:id/members/:email',
    {
      onRequest: app.authenticate({ user: true }),
      schema: {
        tags: ['organizations'],
        summary: 'Remove a member by email (the last owner stays)',
        params: memberParams,
        response: { 204: z.null().describe('Removed'), ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = userCredential(request);
      const email = request.params.email.toLowerCase();
      const em = deps.orm.em.fork();
      await em.transactional(async (tx) => {
        // The organization row serializes membership changes, so two owners cannot remove each other at once.
        const org = await lockOrganization(tx, request.params.id);
        const actorRole = org ? await roleOf(tx, org.id, actor.userId) : null;
        if (!org || !actorRole) throw notFound('Organization');
        if (actorRole === 'member') throw forbidden('Only owners and admins may remove members');
        const target = await memberByEmail(tx, org.id, email);
        if (!target) throw notFound('Member');
        if (!mayManage(actorRole, target.role))
          throw forbidden(`A ${actorRole} may not remove a member with role ${target.role}`);
        if (target.role === 'owner') {
          const owners = await ownerCount(tx, org.id);
          if (owners <= 1)
            throw unprocessable('last_owner', 'The last owner cannot be removed', 'Make another member an owner first');
        }
        await removeMember(tx, org.id, target.userId);
        // The member as its addition answered it, with its organization (as organization_member.added).
        const removed = {
          email,
          avatar_url: target.avatarUrl ?? null,
          created_at: iso(target.createdAt)!,
          role: target.role,
        };
        recordEvent(tx, org.id, 'organization_member.removed', { organization_id: org.id, ...removed });
      });
      return reply.status(204).send(null);
    },
  );
}
