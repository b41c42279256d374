import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CheckoutLink } from '../../db/entities/index.ts';
import { publicCheckoutView } from '../checkout-public.ts';
import { createCheckout } from '../../use-cases/checkout-creation.ts';
import { notFound } from '../../use-cases/errors.ts';
import { errorResponses, isUuid } from '../../use-cases/schemas/common.ts';
import { publicCheckoutSchema } from '../../use-cases/schemas/checkouts.ts';
import type { RouteDeps } from '../route-deps.ts';

const params = z.object({ checkout_link_id: z.string().max(64) });

/**
 * A checkout link's URL (`{checkout_link_base}/<id>`, by default `{base_url}/checkout/<id>`): each visit
 * opens a fresh checkout for the buyer. Registered without a prefix.
 */
export const checkoutPageRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/checkout/:checkout_link_id',
    {
      schema: {
        tags: ['checkouts (public)'],
        summary: 'Open a checkout link: creates a new checkout for the visitor',
        description:
          'With Accept: application/json the new checkout is returned (201, the public checkout view); otherwise the answer is a 303 to the public checkout read (/api/v1/checkouts/client/<client_secret>).',
        params,
        response: {
          201: publicCheckoutSchema,
          303: z.null().meta({ description: 'Location: the new checkout by client_secret' }),
          ...errorResponses,
          503: errorResponses[400],
        },
      },
    },
    async (request, reply) => {
      const id = request.params.checkout_link_id;
      const em = deps.orm.em.fork();
      const link = isUuid(id) ? await em.findOne(CheckoutLink, { id, isArchived: false }) : null;
      if (!link || link.productIds.length === 0) throw notFound('Checkout link');
      const checkout = await createCheckout(deps, {
        actingOrganizationId: link.organizationId,
        allowSubOrganizations: false,
        // A promotion that has ended does not break the link: the buyer gets the full price.
        discountPolicy: 'when_applicable',
        input: {
          payment_processor: 'gateway',
          product_id: link.productIds[0],
          products: [...link.productIds],
          discount_id: link.discountId ?? undefined,
          allow_discount_codes: link.allowDiscountCodes,
          quantity: 1,
          recurrence_billing: 'gateway',
          require_billing_address: false,
          no_fees_installments: false,
          success_url: link.successUrl ?? undefined,
          cancel_url: link.cancelUrl ?? undefined,
          metadata: link.metadata,
          checkout_link_id: link.id,
        },
      });
      reply.header('cache-control', 'no-store');
      if (wantsJson(request.headers.accept)) {
        return reply.status(201).send(await publicCheckoutView(em, checkout));
      }
      return reply.redirect(`${deps.config.publicBaseUrl}/api/v1/checkouts/client/${checkout.clientSecret}`, 303);
    },
  );
};

function wantsJson(accept: string | undefined): boolean {
  return accept !== undefined && /\bapplication\/json\b/i.test(accept);
}
