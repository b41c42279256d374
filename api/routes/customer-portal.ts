import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { uuidv7 } from 'uuidv7';
import { hashSecret, newSecret, TOKEN_PREFIX } from '../auth/tokens.ts';
import { badRequest, notFound, unauthorized } from '../../use-cases/errors.ts';
import { customerCredential, organizationCredential } from '../plugins/auth.ts';
import { errorResponses, iso } from '../../use-cases/schemas/common.ts';
import { presentBillingAddress } from '../../use-cases/schemas/customers.ts';
import {
  createCustomerSessionBody,
  customerSessionSchema,
  portalCustomerSchema,
  type PortalCustomer,
} from '../schemas/customer-portal.ts';
import { findCustomerByKey, type CustomerRow } from '../../db/customer/customers.ts';
import { createCustomerSession } from '../../db/customer/sessions.ts';
import { customerPortalSubscriptionsRoutes } from './customer-portal-subscriptions.ts';
import { portalSignInUrl } from '../../use-cases/portal-links.ts';
import type { RouteDeps } from '../route-deps.ts';

/** How long a Customer Session Token is valid: long enough for one visit to the portal. */
const CUSTOMER_SESSION_TTL_MS = 60 * 60 * 1000;

/** The Customer Portal API: the merchant opens a session for a customer; the customer then acts with it. */
export const customerPortalRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.post(
    '/sessions',
    {
      onRequest: app.authenticate({
        oat: ['customer_sessions:write', 'customers:write', 'web:write'],
        apiKey: 'customer-portal-sessions',
      }),
      schema: {
        tags: ['customer-portal'],
        summary: 'Create a Customer Session Token (svc_cst_, valid one hour) for a customer of the organization',
        body: createCustomerSessionBody,
        response: { 201: customerSessionSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId } = organizationCredential(request);
      const { customer_id: customerId, external_customer_id: externalId } = request.body;
      if ((customerId === undefined) === (externalId === undefined)) {
        throw badRequest('Send exactly one of customer_id or external_customer_id');
      }
      const em = deps.orm.em.fork();
      const customer = await findCustomerByKey(
        em,
        organizationId,
        customerId !== undefined ? { id: customerId } : { externalId: externalId! },
      );
      if (!customer) throw notFound('Customer');

      const token = newSecret(TOKEN_PREFIX.customerSession);
      const now = new Date();
      const session = createCustomerSession(em, {
        id: uuidv7(),
        organizationId,
        customerId: customer.id,
        tokenHash: hashSecret(token),
        createdAt: now,
        expiresAt: new Date(now.getTime() + CUSTOMER_SESSION_TTL_MS),
      });
      await em.flush();
      return reply.status(201).send({
        id: session.id,
        token,
        expires_at: iso(session.expiresAt)!,
        customer_id: customer.id,
        customer_portal_url: portalSignInUrl(deps.config.publicBaseUrl, token),
      });
    },
  );

  app.get(
    '/customer',
    {
      onRequest: app.authenticate({ customer: true }),
      schema: {
        tags: ['customer-portal'],
        summary: 'The customer of the session token',
        response: { 200: portalCustomerSchema, ...errorResponses },
      },
    },
    async (request) => {
      const credential = customerCredential(request);
      const em = deps.orm.em.fork();
      const customer = await findCustomerByKey(em, credential.organizationId, { id: credential.customerId });
      // The customer was deleted after the session was opened: the session identifies no one.
      if (!customer) throw unauthorized('Invalid customer session token');
      return portalCustomer(customer);
    },
  );

  await app.register(customerPortalSubscriptionsRoutes, { ...deps, prefix: '/subscriptions' });
};

function portalCustomer(c: CustomerRow): PortalCustomer {
  return {
    id: c.id,
    email: c.email,
    name: c.name ?? null,
    avatar_url: c.avatarUrl ?? null,
    organization_id: c.organizationId,
    tax_id: c.taxId?.number ?? null,
    billing_address: presentBillingAddress(c.billingAddress),
    created_at: iso(c.createdAt)!,
    updated_at: iso(c.updatedAt)!,
  };
}
