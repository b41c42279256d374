import { z } from 'zod';

/**
 * Mercado Pago's notification (webhook), as it posts it: `?data.id=<payment id>&type=payment`, a JSON
 * body that repeats them, and the x-signature / x-request-id headers. The fields are Mercado Pago's, so
 * the shapes stay open; only what the route reads is named. Nothing of the body is trusted: the route
 * reads the payment from Mercado Pago.
 */

const dataId = z.union([z.string().max(200), z.number().int()]);

export const mercadoPagoNotificationQuery = z.object({
  'data.id': z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'The payment id; the signature covers it', example: '123456789' }),
  type: z.string().max(100).optional().meta({
    description: '`payment`, or `automatic-payments` (Card Updater); another type is acknowledged and ignored',
    example: 'payment',
  }),
  topic: z
    .string()
    .max(100)
    .optional()
    .meta({ description: 'An IPN notice (unsigned, older form): acknowledged and ignored', example: 'payment' }),
  id: z.string().max(200).optional().meta({ description: 'The resource of an IPN notice; never read' }),
});

// Open (loose): a header schema's parsed value replaces request.headers, which must keep the others.
export const mercadoPagoNotificationHeaders = z.looseObject({
  'x-signature': z.string().max(500).optional().meta({
    description:
      '`ts=<unix seconds or milliseconds>,v1=<hex HMAC-SHA256>`; required: without a valid one the answer is 401',
    example: 'ts=1768050000,v1=0f3c9d2e8a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5',
  }),
  'x-request-id': z.string().max(200).optional().meta({ description: 'Signed with the payment id and `ts`' }),
});

export const mercadoPagoNotificationBody = z
  .object({
    action: z
      .string()
      .max(100)
      .optional()
      .meta({ description: '`card.updated` in a Card Updater notice', example: 'payment.updated' }),
    type: z.string().max(100).optional().meta({ description: 'Read when the query has no `type`' }),
    data: z
      .object({
        id: dataId.optional().meta({ description: 'Read when the query has no `data.id`' }),
        customer_id: dataId.optional().meta({ description: 'Card Updater (`card.updated`): the card’s customer' }),
        old_card_id: dataId.optional().meta({ description: 'Card Updater: the kept card replaced' }),
        new_card_id: dataId.optional().meta({ description: 'Card Updater: its replacement' }),
      })
      .optional(),
  })
  .meta({ description: 'Mercado Pago’s notice; its other fields are ignored' });

export const mercadoPagoNotificationResponse = z.object({ received: z.literal(true) });
