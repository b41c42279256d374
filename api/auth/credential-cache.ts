import type { FastifyBaseLogger } from 'fastify';
import type { EntityManager } from '@mikro-orm/postgresql';
import { listen, type Listener } from '../../db/listen.ts';
import type { Orm } from '../../db/orm.ts';
import { announceOnCommit, recordCredentialUse } from '../../db/organization/credentials.ts';
import type { OrganizationCredential } from './credentials.ts';

/** Committed revocations are announced on this channel, so every API process drops its copy at once. */
export const CREDENTIAL_CHANNEL = 'credential_changed';

type UsageTable = 'api_keys' | 'organization_access_tokens';

/** How long a revoking request waits to hear its own announcement before it answers anyway. */
const ANNOUNCEMENT_WAIT_MS = 2000;

export interface CredentialCacheOptions {
  /** How long a verified credential is kept; 0 disables caching. */
  ttlMs: number;
  /** How often last_used_at is written. */
  usageFlushMs?: number;
  /** How long opening the LISTEN connection may take before it is retried. */
  connectTimeoutMs?: number;
}

/**
 * Verified credentials by secret hash, so that a request costs no database round trip for auth.
 * Correctness rests on invalidation: revoking writes `pg_notify(CREDENTIAL_CHANNEL, hash)` in its
 * transaction; each process LISTENs and evicts. If the LISTEN connection drops, the whole cache is
 * cleared and nothing is cached until it is back. Entries also age out after `ttlMs`.
 */
export class CredentialCache {
  private readonly entries = new Map<string, { credential: OrganizationCredential; loadedAt: number }>();
  private readonly usage = new Map<string, { table: UsageTable; id: string; at: Date }>();
  /** Revoking requests of this process waiting to hear their announcement, by hash. */
  private readonly awaitingAnnouncement = new Map<string, Set<() => void>>();
  /** Announcements heard lately (hash → when), for a revoking request whose echo came before it waited. */
  private readonly recentlyHeard = new Map<string, number>();
  /**
   * Counts invalidations. A credential read from the database before an invalidation may be stale, so
   * `set` refuses it: without this, a request that read a key just before its revocation committed
   * could cache it after the eviction and keep it alive until the TTL.
   */
  private invalidations = 0;
  private listener: Listener | null = null;
  private listening = false;
  private reconnecting = false;
  private flushTimer: NodeJS.Timeout | null = null;
  private closed = false;

  private readonly orm: Orm;
  private readonly databaseUrl: string;
  private readonly ttlMs: number;
  private readonly usageFlushMs: number;
  private readonly connectTimeoutMs: number | undefined;
  private readonly log: FastifyBaseLogger;

  constructor(
    orm: Orm,
    databaseUrl: string,
    { ttlMs, usageFlushMs = 15_000, connectTimeoutMs }: CredentialCacheOptions,
    log: FastifyBaseLogger,
  ) {
    this.orm = orm;
    this.databaseUrl = databaseUrl;
    this.ttlMs = ttlMs;
    this.usageFlushMs = usageFlushMs;
    this.connectTimeoutMs = connectTimeoutMs;
    this.log = log;
  }

  /** Whether revocations are being heard (and so whether credentials are cached). */
  get isListening(): boolean {
    return this.listening;
  }

  async start(): Promise<void> {
    // PostgreSQL down at start-up does not stop the API: it answers 503 and this keeps trying.
    await this.listen().catch((err: unknown) => {
      this.log.warn({ err }, 'credential LISTEN connection failed; retrying every second');
      this.reconnectLater();
    });
    // last_used_at is written in batches: accurate to within this interval, one UPDATE per table.
    this.flushTimer = setInterval(() => void this.flushUsage(), this.usageFlushMs);
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

  /** Take a mark before reading a credential from the database; hand it to `set`. */
  mark(): number {
    return this.invalidations;
  }

  /** Caches a credential read after `mark`, unless an invalidation arrived since. */
  set(hash: string, credential: OrganizationCredential, mark: number): void {
    if (mark !== this.invalidations) return;
    if (this.listening && this.ttlMs > 0) this.entries.set(hash, { credential, loadedAt: Date.now() });
  }

  evict(hash: string): void {
    this.invalidations++;
    this.entries.delete(hash);
  }

  /**
   * Inside the revoking transaction: announces that the credential with this hash is no longer valid.
   * PostgreSQL delivers the notice to every listening process when (and only if) the transaction
   * commits. After the commit, call `revoked(hash)`.
   */
  async announceRevocation(tx: EntityManager, hash: string): Promise<void> {
    await announceOnCommit(tx, CREDENTIAL_CHANNEL, hash);
  }

  /**
   * After the revoking transaction committed: drops this process's copy at once, then waits (briefly)
   * until this process hears its own announcement: PostgreSQL signals every listener at the same
   * moment, so when the revoking request answers, the other processes have the notice too.
   */
  async revoked(hash: string): Promise<void> {
    this.evict(hash);
    if (!this.listening || this.recentlyHeard.has(hash)) return;
    let waiters = this.awaitingAnnouncement.get(hash);
    if (!waiters) this.awaitingAnnouncement.set(hash, (waiters = new Set()));
    const set = waiters;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ANNOUNCEMENT_WAIT_MS);
      timer.unref();
      set.add(done);
      function done() {
        clearTimeout(timer);
        set.delete(done);
        resolve();
      }
    });
    if (set.size === 0 && this.awaitingAnnouncement.get(hash) === set) this.awaitingAnnouncement.delete(hash);
  }

  recordUse(table: UsageTable, id: string): void {
    this.usage.set(`${table}:${id}`, { table, id, at: new Date() });
  }

  async flushUsage(): Promise<void> {
    if (this.usage.size === 0) return;
    const pending = [...this.usage.values()];
    this.usage.clear();
    for (const table of ['api_keys', 'organization_access_tokens'] as const) {
      const uses = pending.filter((u) => u.table === table);
      if (uses.length === 0) continue;
      try {
        await recordCredentialUse(this.orm.em.fork(), table, uses);
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
    this.releaseWaiters();
    await client?.close();
  }

  private heard(payload: string): void {
    this.invalidations++;
    if (payload === '*') this.entries.clear();
    else this.entries.delete(payload);
    const now = Date.now();
    this.recentlyHeard.delete(payload);
    this.recentlyHeard.set(payload, now);
    // Oldest first (insertion order): forget what is older than the longest wait.
    for (const [hash, at] of this.recentlyHeard) {
      if (now - at <= ANNOUNCEMENT_WAIT_MS) break;
      this.recentlyHeard.delete(hash);
    }
    const waiters = this.awaitingAnnouncement.get(payload);
    if (waiters) {
      this.awaitingAnnouncement.delete(payload);
      for (const done of waiters) done();
    }
  }

  private releaseWaiters(): void {
    for (const waiters of this.awaitingAnnouncement.values()) for (const done of waiters) done();
    this.awaitingAnnouncement.clear();
  }

  private async listen(): Promise<void> {
    const listener: Listener = await listen(this.databaseUrl, CREDENTIAL_CHANNEL, {
      connectTimeoutMs: this.connectTimeoutMs,
      applicationName: 'billing-api:listen',
      onNotification: (payload) => {
        if (payload) this.heard(payload);
      },
      onLost: (err) => {
        if (this.listener !== listener) return;
        this.log.warn({ err }, 'credential LISTEN connection lost; credentials are not cached until it is back');
        this.listening = false;
        this.invalidations++;
        this.entries.clear();
        this.releaseWaiters();
        this.listener = null;
        this.reconnectLater();
      },
    });
    if (this.closed) {
      await listener.close();
      return;
    }
    this.listener = listener;
    // Reads that began while nobody listened may have missed a revocation: they must not be cached.
    this.invalidations++;
    this.listening = true;
    if (this.reconnecting) this.log.info('credential LISTEN connection is back');
    this.reconnecting = false;
  }

  private reconnectLater(): void {
    if (this.closed) return;
    this.reconnecting = true;
    setTimeout(() => {
      if (this.closed) return;
      this.listen().catch((err: unknown) => {
        // Once per outage is enough: the retry runs every second until PostgreSQL is back.
        this.log.debug({ err }, 'credential LISTEN retry failed');
        this.reconnectLater();
      });
    }, 1000).unref();
  }
}
