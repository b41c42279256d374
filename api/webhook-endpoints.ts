import type { Row, Sql } from '../db/plain-sql.ts';
import { notFound } from '../use-cases/errors.ts';
import { isUuid } from '../use-cases/schemas/common.ts';

/** The webhook endpoints' scopes and lookup, shared by the endpoints' routes and their deliveries' routes. */

export const WEBHOOKS_READ = { oat: ['webhooks:read'], apiKey: 'other' } as const;

export const WEBHOOKS_WRITE = { oat: ['webhooks:write'], apiKey: 'other' } as const;

/** The organization's endpoint (404 for another's, a deleted one or a malformed id); locked with `forUpdate`. */
export async function endpointOf(
  sql: Sql,
  credential: { organizationId: string },
  id: string,
  forUpdate = false,
): Promise<Row> {
  if (!isUuid(id)) throw notFound('Webhook endpoint');
  const [row] = await sql(
    `select * from webhook_endpoints where id = ? and organization_id = ? and deleted_at is null${forUpdate ? ' for update' : ''}`,
    [id, credential.organizationId],
  );
  if (!row) throw notFound('Webhook endpoint');
  return row;
}
