import { Migration } from '@mikro-orm/migrations';

/**
 * Disputes (chargebacks) of a sale's payment, as the gateway reports them (decision 0072): one row
 * per gateway dispute, `opened` until the gateway says it was `won` or `lost`. `lost_amount` is the
 * money a lost dispute took back (0 otherwise), and the sale's `charged_back_amount` their sum, kept
 * in the same transaction, so that the sale's net is read from its row.
 */
export class Migration0030Disputes extends Migration {
  override up(): void {
    this.addSql(`create table disputes (
  id uuid primary key,
  organization_id uuid not null references organizations(id),
  sale_id uuid not null references sales(id),
  transaction_id uuid not null references transactions(id),
  gateway_dispute_id text not null unique,
  status text not null check (status in ('opened', 'won', 'lost')),
  amount bigint not null check (amount >= 0),
  lost_amount bigint not null default 0 check (lost_amount >= 0 and lost_amount <= amount),
  currency text not null,
  opened_at timestamptz not null,
  closed_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);`);
    this.addSql(`create index disputes_sale_idx on disputes(sale_id, created_at);`);
    this.addSql(`create index disputes_org_idx on disputes(organization_id, created_at desc);`);
    this.addSql(`alter table sales add column charged_back_amount bigint not null default 0
      check (charged_back_amount >= 0 and charged_back_amount <= amount);`);
  }
}
