import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import type { OrganizationCredential } from './credentials.ts';

/** Committed revocations are announced on this channel, so every API process drops its copy at once. */
export const CREDENTIAL_CHANNEL = 'credential_changed';

type UsageTable = 'api_keys' | 'organization_access_tokens';

/**
 * Verified credentials by secret hash, so that a request costs no database round trip for auth.
 * Correctness rests on invalidation: revoking writes `pg_notify(CREDENTIAL_CHANNEL, hash)` in its
 * transaction; each process LISTENs and evicts. If the LISTEN connection drops, the whole cache is
 * cleared and nothing is cached until it is back. Entries also age out after `ttlMs`.
 */
export class CredentialCache {
  private readonly entries = new Map<string, { credential: OrganizationCredential; loadedAt: number }>();
  private readonly usage = new Map<string, { table: UsageTable; id: string; at: Date }>();
  private listener: pg.Client | null = null;
  private listening = false;
  private flushTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private readonly orm: Orm;
  private readonly databaseUrl: string;
  private readonly ttlMs: number;
  private readonly log: FastifyBaseLogger;

  constructor(orm: Orm, databaseUrl: string, ttlMs: number, log: FastifyBaseLogger) {
    this.orm = orm;
    this.databaseUrl = databaseUrl;
    this.ttlMs = ttlMs;
    this.log = log;
  }

  async start(): Promise<void> {
    await this.listen();
    // last_used_at is written in batches: accurate to within this interval, one UPDATE per table.
    this.flushTimer = setInterval(() => void this.flushUsage(), 15_000);
    this.flushTimer.unref();
  }

  get(hash: string): OrganizationCredential | undefined {
    if (!this.listening || this.ttlMs === 0) return undefined;
    const hit = this.entries.get(hash);
    if (!hit) return undefined;
    if (Date.now() - hit.loadedAt > this.ttlMs) {
      this.entries.delete(hash);
      return undefined;
    }
    return hit.credential;
  }

  set(hash: string, credential: OrganizationCredential): void {
    if (this.listening && this.ttlMs > 0) this.entries.set(hash, { credential, loadedAt: Date.now() });
  }

  evict(hash: string): void {
    this.entries.delete(hash);
  }

  recordUse(table: UsageTable, id: string): void {
    this.usage.set(`${table}:${id}`, { table, id, at: new Date() });
  }

  async flushUsage(): Promise<void> {
    if (this.usage.size === 0) return;
    const pending = [...this.usage.values()];
    this.usage.clear();
    for (const table of ['api_keys', 'organization_access_tokens'] as const) {
      const rows = pending.filter((u) => u.table === table);
      if (rows.length === 0) continue;
      try {
        await this.orm.em.getConnection().execute(
          `update ${table} t set last_used_at = greatest(coalesce(t.last_used_at, u.at), u.at)
             from unnest(?::uuid[], ?::timestamptz[]) as u(id, at) where t.id = u.id`,
          [rows.map((r) => r.id), rows.map((r) => r.at.toISOString())],
        );
      } catch (err) {
        this.log.warn({ err }, 'could not record credential usage');
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    await this.flushUsage();
    const client = this.listener;
    this.listener = null;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    const lost = () => {
      if (this.listener !== client) return;
      this.listening = false;
      this.entries.clear();
      this.listener = null;
      if (!this.closed) setTimeout(() => void this.listen().catch((err) => this.log.warn({ err }, 'credential LISTEN retry failed')), 1000).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (msg) => {
      if (msg.payload === '*') this.entries.clear();
      else if (msg.payload) this.entries.delete(msg.payload);
    });
    await client.connect();
    await client.query(`listen ${CREDENTIAL_CHANNEL}`);
    this.listener = client;
    this.listening = true;
  }
}
