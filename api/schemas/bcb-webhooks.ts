import { z } from 'zod';

/**
 * The BCB's Pix Automático webhooks as a PSP (or the simulated gateway) posts them: `{ recs }` to
 * `…/bcb/rec`, `{ cobsr }` to `…/bcb/cobr` (bacen/pix-api openapi.yaml, callbacks of PUT /webhookrec and
 * PUT /webhookcobr). The shapes stay open (the specification's other fields); only what the routes read
 * is named, and nothing of the body is trusted: every rec and cobr named is read back from the gateway.
 */
export const bcbRecWebhookBody = z
  .looseObject({
    recs: z
      .array(z.looseObject({ idRec: z.string().min(1).max(29) }))
      .max(1000)
      .meta({ description: 'The recs that changed (RecNotification); each is read back by its idRec' }),
  })
  .meta({ description: 'The BCB’s webhookrec body' });

export const bcbCobRWebhookBody = z
  .looseObject({
    cobsr: z
      .array(z.looseObject({ txid: z.string().min(1).max(35), idRec: z.string().max(29).optional() }))
      .max(1000)
      .meta({ description: 'The cobrs that changed (CobRNotification); each is read back by its txid' }),
  })
  .meta({ description: 'The BCB’s webhookcobr body' });

export const bcbWebhookResponse = z.object({ received: z.literal(true) });
