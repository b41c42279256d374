import { Migration } from '@mikro-orm/migrations';

/**
 * An Idempotency-Key claim is a lease: `locked_until` says how long the request that claimed it may
 * still be running. A claim whose process crashed (it never stored a response nor released the key)
 * is claimable again once the lease ends, instead of answering 409 for the key's 24 hours.
 * `claim_id` names the claim, so a request that outlived its lease cannot overwrite the next claim.
 */
export class Migration0005IdempotencyLease extends Migration {
  override up(): void {
    this.addSql(`
alter table idempotency_keys add column locked_until timestamptz, add column claim_id uuid;
-- Claims already running get the default lease (a minute) from when they were taken.
update idempotency_keys set locked_until = created_at + interval '1 minute' where state = 'running';
`);
  }
}
