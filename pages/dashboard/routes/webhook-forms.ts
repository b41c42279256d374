import type { FastifyReply, FastifyRequest } from 'fastify';
import { shownOnce } from './shown-once.ts';
import { z } from 'zod';
import { webhooksPath, type EndpointValues } from '../webhooks.ts';
import { unchecked, type RequestBody } from '../api-client.ts';
import { formList, organizationParams } from './forms.ts';

export const endpointParams = organizationParams.extend({ id: z.string().max(64) });
export const csrfOnly = z.object({ csrf: z.string().max(200).optional() });

/** The add and edit forms: URL, description, event types (checkboxes), enabled (a checkbox). */
export const endpointForm = z.object({
  csrf: z.string().max(200).optional(),
  url: z.string().max(4096).optional(),
  description: z.string().max(1000).optional(),
  event_types: formList,
  enabled: z.string().max(10).optional(),
});
export type EndpointForm = z.infer<typeof endpointForm>;

/** The form as the API's body (description: left blank, none), and as the form's values after a refusal. */
export function endpointBody(form: EndpointForm) {
  const description = form.description?.trim() ? form.description : null;
  const body = {
    url: form.url ?? '',
    description,
    event_types: unchecked<RequestBody<'/api/v1/webhooks', 'post'>['event_types']>(form.event_types),
    enabled: form.enabled === 'true',
  };
  const values: EndpointValues = {
    url: form.url,
    description: form.description,
    event_types: form.event_types,
    enabled: body.enabled,
  };
  return { body, values };
}

/**
 * A signing secret's one showing, from the post that made it (creation or rotation) to the endpoint's
 * page after the redirect (shown-once.ts).
 */
interface ShownSecret {
  endpoint_id: string;
  secret: string;
}
const shownSecret = (organizationId: string) =>
  shownOnce<ShownSecret>('dashboard_webhook_secret', webhooksPath(organizationId));

export function putSecret(reply: FastifyReply, organizationId: string, shown: ShownSecret): void {
  shownSecret(organizationId).put(reply, shown);
}

/** The secret just made for endpoint `endpointId`, once; the cookie is cleared whichever endpoint it was for. */
export function takeSecret(
  request: FastifyRequest,
  reply: FastifyReply,
  organizationId: string,
  endpointId: string,
): string | undefined {
  const shown = shownSecret(organizationId).take(request, reply);
  return shown?.endpoint_id === endpointId && typeof shown.secret === 'string' ? shown.secret : undefined;
}
