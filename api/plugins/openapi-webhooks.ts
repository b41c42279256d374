import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../../db/events.ts';
import { customerSchema } from '../../use-cases/schemas/customers.ts';
import { checkoutSchema } from '../../use-cases/schemas/checkouts.ts';
import { priceSchema, productSchema } from '../schemas/catalog.ts';
import { checkoutLinkSchema } from '../schemas/checkout-links.ts';
import { accessTokenSchema, apiKeySchema } from '../schemas/credentials.ts';
import { discountSchema } from '../schemas/discounts.ts';
import { eventSchema } from '../schemas/events.ts';
import { invoiceRecordSchema } from '../schemas/invoices.ts';
import { mandateChargeSchema, mandateSchema } from '../schemas/mandates.ts';
import { addedMemberSchema, organizationSchema } from '../schemas/organizations.ts';
import { reconciliationSchema } from '../schemas/reconciliations.ts';
import { refundSchema, saleSchema } from '../schemas/sales.ts';
import { subscriptionRecordSchema } from '../schemas/subscriptions.ts';
import { webhookSchema } from '../schemas/webhooks.ts';
import { pascal } from './openapi-operation-ids.ts';

/**
 * The events a webhook endpoint receives, in the document's `webhooks` (OpenAPI 3.1): one entry per
 * event type of db/events.ts, each the envelope `{ id, type, created_at, organization_id, actor, data }`
 * (the `Event` component, GET /events/{id}'s answer) with its `type` fixed and its `data` the record
 * it is about, as that record's GET answers it: a `$ref` to the record's named component, which the
 * operations answering that record refer to as well (a subscription's and an invoice's answers add
 * `workflow_url`, the API's link to the Temporal UI, and a checkout's add `url`, its hosted page, which
 * their events leave out). A few events carry fields of their own beside the record (EXTRAS). So a
 * receiver generates its types from the same document as a client (examples/webhook-receiver).
 */

/** The records events are about, by component name: `<resource>.<change>` is about `pascal(resource)`. */
export const RECORD_SCHEMAS = {
  Organization: organizationSchema,
  OrganizationMember: addedMemberSchema,
  ApiKey: apiKeySchema,
  AccessToken: accessTokenSchema,
  Customer: customerSchema,
  Product: productSchema,
  Price: priceSchema,
  Discount: discountSchema,
  CheckoutLink: checkoutLinkSchema,
  Checkout: checkoutSchema,
  Sale: saleSchema,
  Subscription: subscriptionRecordSchema,
  Invoice: invoiceRecordSchema,
  Refund: refundSchema,
  Reconciliation: reconciliationSchema,
  Mandate: mandateSchema,
  MandateCharge: mandateChargeSchema,
  WebhookEndpoint: webhookSchema,
} as const;
export type RecordName = keyof typeof RECORD_SCHEMAS;

/** What some events carry beside their record: `data` is then the record and these (allOf). */
const EXTRAS: Partial<Record<EventType, z.ZodObject>> = {
  'customer.updated': z.object({
    changed_fields: z.array(z.string()).describe('The fields this change set, by their names in the record'),
  }),
  'subscription.updated': z.object({
    previous_price_id: z.string().optional().describe('A price change: the price it had'),
    proration: z
      .object({
        behavior: z.enum(['prorate', 'invoice', 'none']),
        amount: z.number().int(),
        charged: z.number().int(),
        to_balance: z.number().int(),
      })
      .optional()
      .describe("A price change: how the period's difference was settled, in cents"),
    upgrade: z
      .object({ checkout_id: z.string(), credit: z.number().int() })
      .optional()
      .describe('An upgrade paid by a checkout: that checkout and the credit of the unused period, in cents'),
  }),
  ...Object.fromEntries(
    (['organization_member.added', 'organization_member.removed'] as const).map((type) => [
      type,
      z.object({ organization_id: z.string().describe('The organization the member joined or left') }),
    ]),
  ),
  ...Object.fromEntries(
    (['sale.created', 'sale.paid'] as const).map((type) => [
      type,
      z.object({ invoice_id: z.string().optional().describe('The extra-charge invoice this sale pays') }),
    ]),
  ),
};

/** The records events carry beside fields of their own: their component does not close its fields. */
const OPEN_RECORDS = new Set(Object.keys(EXTRAS).map((type) => recordOf(type as EventType)));

/** The named components: the records and the event envelope. */
const NAMED: Record<string, z.ZodType> = { ...RECORD_SCHEMAS, Event: eventSchema };

/** The record an event type is about: `subscription.past_due` → `Subscription`; `mandate.charge_*` → `MandateCharge`. */
export function recordOf(type: EventType): RecordName {
  if (type.startsWith('mandate.charge_')) return 'MandateCharge';
  const name = pascal(type.split('.')[0]!);
  if (!(name in RECORD_SCHEMAS)) throw new Error(`${type}: no record schema named ${name} (RECORD_SCHEMAS)`);
  return name as RecordName;
}

/**
 * Names the record schemas in zod's registry (keeping their metadata), so the document makes each a
 * component and refers to it wherever a route answers it. Call before the document is built.
 */
export function nameRecordSchemas(): void {
  for (const [id, schema] of Object.entries(NAMED)) {
    const meta = z.globalRegistry.get(schema);
    if (meta?.id === id) continue;
    z.globalRegistry.add(schema, { ...meta, id });
  }
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** Standard Webhooks' headers, as every delivery carries them (activities/webhook-deliveries.ts). */
const DELIVERY_HEADERS = [
  ['webhook-id', "The event's id: the same on every attempt and redelivery, the receiver's key to handle it once"],
  ['webhook-timestamp', 'When this attempt was signed, in seconds since the epoch'],
  ['webhook-signature', 'v1,<base64 HMAC-SHA256> per secret, space-separated (two while a rotated secret overlaps)'],
].map(([name, description]) => ({ in: 'header', name, required: true, description, schema: { type: 'string' } }));

type JsonObject = Record<string, unknown> & { properties?: Record<string, unknown> };

/** An event's `data`: its record, and the fields of its own when it has some. */
function dataOf(type: EventType): Record<string, unknown> {
  const extras = EXTRAS[type];
  if (!extras) return ref(recordOf(type));
  const {
    $schema: _,
    additionalProperties: __,
    ...own
  } = z.toJSONSchema(extras, {
    target: 'draft-2020-12',
    io: 'output',
  }) as JsonObject;
  return { allOf: [ref(recordOf(type)), own] };
}

/** The `webhooks` object: one POST per event type, its body the envelope around the record. */
export function describeWebhooks(envelope: JsonObject): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const record = recordOf(type);
      const body = {
        ...envelope,
        properties: { ...envelope.properties, type: { type: 'string', const: type }, data: dataOf(type) },
      };
      const operation = {
        operationId: `on${type.split(/[._]/).map(pascal).join('')}`,
        tags: ['webhooks'],
        summary: `${type}: data is the ${record}`,
        security: [],
        parameters: DELIVERY_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: body } } },
        responses: {
          '204': { description: 'Handled (any 2xx): the delivery is done' },
          '400': { description: 'Not handled (any other answer, or none in time): the delivery is tried again' },
        },
      };
      return [type, { post: operation }];
    }),
  );
}

/**
 * Adds `webhooks` to the document and keeps of the named components those it refers to (zod's
 * registry makes an input and an output component of each named schema; a record is only answered).
 */
export function addWebhooks(document: Record<string, unknown>): Record<string, unknown> {
  const components = document.components as { schemas: Record<string, JsonObject> };
  const webhooks = describeWebhooks(components.schemas.Event!);
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        const name = value.split('/').at(-1)!;
        if (!used.has(name)) {
          used.add(name);
          visit(components.schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(document.paths);
  visit(webhooks);
  const schemas = Object.fromEntries(
    Object.entries(components.schemas)
      .filter(([name]) => used.has(name))
      .map(([name, schema]) => {
        if (!OPEN_RECORDS.has(name as RecordName)) return [name, schema];
        const { additionalProperties: _, ...open } = schema;
        return [name, open];
      }),
  );
  return { ...document, components: { ...components, schemas }, webhooks };
}
