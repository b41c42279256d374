import { z } from 'zod';

/**
 * Efí's notices, as it posts them: the BCB's `{ pix }`, `{ recs }`, `{ cobsr }` (JSON), or the charges
 * API's `notification=<token>` (form-encoded), with the secret chosen at registration as `?hmac=`.
 * The shapes stay open (Efí's fields); only what the route reads is named, and nothing of the body is
 * trusted: every object it names is read back from Efí.
 */

export const efiNotificationQuery = z.object({
  hmac: z
    .string()
    .max(200)
    .optional()
    .meta({ description: 'The secret registered with the webhook URL (EFI_WEBHOOK_HMAC); required' }),
  kind: z
    .enum(['charge'])
    .optional()
    .meta({ description: '`charge`: a boleto notice of the charges API (its token in the body)' }),
  ignorar: z
    .string()
    .max(20)
    .optional()
    .meta({ description: 'Where Efí’s appended `/pix`, `/rec` or `/cobr` lands; ignored' }),
});

const named = z.looseObject({ txid: z.string().max(35).optional() });

export const efiNotificationBody = z
  .looseObject({
    pix: z
      .array(named.extend({ endToEndId: z.string().max(32).optional() }))
      .max(1000)
      .optional(),
    recs: z
      .array(z.looseObject({ idRec: z.string().max(29).optional() }))
      .max(1000)
      .optional(),
    cobsr: z
      .array(named.extend({ idRec: z.string().max(29).optional() }))
      .max(1000)
      .optional(),
    notification: z.string().max(200).optional().meta({ description: 'A charges-API notice’s token' }),
  })
  .meta({ description: 'Efí’s notice; its other fields are ignored' });

export const efiNotificationResponse = z.object({ received: z.literal(true) });
