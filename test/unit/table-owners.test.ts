import { describe, expect, it } from '@jest/globals';
import { ESLint, RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import tableOwners, { TABLE_OWNERS, tablesInSql } from '../../eslint-table-owners.js';
import { REPO_ROOT } from '../../scripts/tool-paths.ts';

/**
 * The table-ownership lint (issue 32, §1): a statement planted outside a table's owner goes red, the
 * owner's own folder and the migrations stay green, and the backlog of code written before the owners
 * existed can only shrink.
 */
RuleTester.describe = describe;
RuleTester.it = it;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const rule = tableOwners.rules['owner-only'];
const entityImport = "import { Checkout } from '../db/entities/index.ts';\n";

tester.run('table-owners/owner-only', rule, {
  valid: [
    { filename: 'db/checkout/records.ts', code: "sql('update checkouts set status = ? where id = ?');" },
    {
      filename: 'db/migrations/0099-more.ts',
      code: "sql('alter table subscriptions add column x int; update subscriptions set x = 1');",
    },
    { filename: 'api/routes/products.ts', code: "z.number().meta({ description: '0-based index into prices' });" },
    { filename: 'api/routes/products.ts', code: "z.string().meta({ description: 'Select one price' });" },
    { filename: 'db/subscription/writes.ts', code: "db.updateTable('subscriptions').set({ status: 'active' });" },
    { filename: 'db/checkout/records.ts', code: `${entityImport}em.create(Checkout, {});` },
    // The owner joins its own tables.
    {
      filename: 'db/checkout/records.ts',
      code: "db.selectFrom('checkouts as c').innerJoin('transactions as t', 't.checkoutId', 'c.id');",
    },
    // A table of the simulator's own schema is not ours.
    { filename: 'activities/x.ts', code: "sql('select * from gateway_sim.checkouts where id = ?');" },
    {
      filename: 'activities/old.ts',
      code: "sql('update subscriptions set status = ? where id = ?');",
      options: [{ backlog: { 'activities/old.ts': ['subscriptions'] } }],
    },
  ],
  invalid: [
    {
      filename: 'activities/planted.ts',
      code: "sql('update subscriptions set status = ? where id = ?');",
      errors: [{ messageId: 'foreign', data: { table: 'subscriptions', object: 'subscription' } }],
    },
    {
      filename: 'api/routes/refunds.ts',
      code: 'sql(`select r.* from ${schema}.x join refunds r on r.sale_id = $1`);',
      errors: [{ messageId: 'foreign', data: { table: 'refunds', object: 'sale' } }],
    },
    {
      filename: 'pages/portal/reads.ts',
      code: "db.selectFrom('checkouts as c').selectAll();",
      errors: [{ messageId: 'foreign', data: { table: 'checkouts', object: 'checkout' } }],
    },
    {
      // A repository may not join another object's table: it asks that object's repository instead.
      filename: 'db/checkout/confirmations.ts',
      code: "db.selectFrom('checkouts as c').innerJoin('prices as p', 'p.id', 'c.productPriceId').leftJoin('customers', 'customers.id', 'c.customerId');",
      errors: [
        { messageId: 'foreign', data: { table: 'prices', object: 'catalog' } },
        { messageId: 'foreign', data: { table: 'customers', object: 'customer' } },
      ],
    },
    {
      filename: 'db/sale/records.ts',
      code: "db.selectFrom('sales').rightJoin('products as p', 'p.id', 'sales.productId').fullJoin('transactions', 'x', 'y').crossJoin('refunds');",
      errors: [
        { messageId: 'foreign', data: { table: 'products', object: 'catalog' } },
        { messageId: 'foreign', data: { table: 'transactions', object: 'checkout' } },
      ],
    },
    {
      // The subscription's repository may not write a checkout's entity.
      filename: 'db/subscription/writes.ts',
      code: `${entityImport}em.create(Checkout, {}); em.nativeUpdate(Checkout, {}, {});`,
      errors: [{ messageId: 'foreign' }, { messageId: 'foreign' }],
    },
    {
      // A backlogged file that names a table it was not listed for.
      filename: 'activities/old.ts',
      code: "sql('update subscriptions set status = ?'); sql('delete from invoices_x; delete from sales where id = ?');",
      options: [{ backlog: { 'activities/old.ts': ['subscriptions'] } }],
      errors: [{ messageId: 'foreign', data: { table: 'sales', object: 'sale' } }],
    },
    {
      filename: 'activities/moved.ts',
      code: "export const nothing = 'left here';",
      options: [{ backlog: { 'activities/moved.ts': ['checkouts'] } }],
      errors: [{ messageId: 'stale', data: { table: 'checkouts' } }],
    },
  ],
});

describe('the owner map', () => {
  it('names every table of the migrations once', async () => {
    const owned = Object.values(TABLE_OWNERS).flat();
    expect(new Set(owned).size).toBe(owned.length);
    const { readdirSync, readFileSync } = await import('node:fs');
    const dir = `${REPO_ROOT}/db/migrations`;
    const created = readdirSync(dir)
      .flatMap((f) => [
        ...readFileSync(`${dir}/${f}`, 'utf8').matchAll(/create table (?:if not exists )?"?(\w+)"?\s*\(/gi),
      ])
      .map((m) => m[1]!.toLowerCase());
    expect([...new Set(created)].sort()).toEqual([...owned].sort());
  });

  it('reads the tables a statement names, and none in prose', () => {
    expect(tablesInSql('insert into sales (id) select id from checkouts c join customers on true')).toEqual([
      'sales',
      'checkouts',
      'customers',
    ]);
    expect(tablesInSql('Refunds come from sales only')).toEqual([]);
  });

  it('is on, as an error, for the application code', async () => {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const config = await eslint.calculateConfigForFile('activities/checkout-sale.ts');
    expect(config.rules['table-owners/owner-only'][0]).toBe(2);
  });
});
