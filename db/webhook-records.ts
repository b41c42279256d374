import type { Row } from './plain-sql.ts';

const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());

/** A webhook endpoint as GET /webhooks/{id} answers it (never its secret), and as its events carry it. */
export type WebhookEndpointRecord = {
  id: string;
  organization_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
};

/** The record of a `webhook_endpoints` row read with plain SQL. */
export function webhookRecord(r: Row): WebhookEndpointRecord {
  return {
    id: r.id as string,
    organization_id: r.organization_id as string,
    url: r.url as string,
    description: (r.description as string | null) ?? null,
    event_types: r.event_types as string[],
    enabled: r.enabled as boolean,
    disabled_reason: (r.disabled_reason as string | null) ?? null,
    failing_since: iso(r.failing_since),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}
