/**
 * One owner per table (issue 32, §1): each business object's tables are written, and named in SQL,
 * only by its repository in `db/<object>/`. Everything else calls that repository, the object's
 * use-case or its workflow. The rule reports, outside the owner's folder:
 * - a table named in SQL, in a string or template literal (`… from checkouts …`, `update subscriptions`);
 * - a table named to Kysely (`selectFrom('checkouts')`, `insertInto`, `updateTable`, `deleteFrom`), or
 *   joined by it (`innerJoin('prices as pr', …)`, `leftJoin`, `rightJoin`, `fullJoin`, `crossJoin` and
 *   the lateral joins), so a repository cannot read another object's table through a join;
 * - an entity of another object handed to an EntityManager write (`em.create(Checkout, …)`, `upsert`,
 *   `insert`, `nativeUpdate`, `nativeDelete`), which is how an entity of theirs gets flushed here.
 * Code written before the owners existed is listed in the backlog (file → tables it may still name);
 * an entry that is no longer needed is reported too, so the backlog only shrinks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Each business object and the tables it owns; its repository lives in `db/<object>/`. */
export const TABLE_OWNERS = {
  organization: [
    'organizations',
    'organization_members',
    'organization_access_tokens',
    'api_keys',
    'users',
    'admin_users',
  ],
  idempotency: ['idempotency_keys'],
  catalog: ['products', 'prices', 'product_medias', 'discounts', 'discount_redemptions', 'checkout_links'],
  customer: ['customers', 'customer_sessions'],
  checkout: ['checkouts', 'transactions', 'gateway_callbacks'],
  sale: ['sales', 'refunds', 'disputes'],
  subscription: ['subscriptions', 'subscription_charges'],
  invoice: ['subscription_invoices'],
  event: [
    'events',
    'webhook_endpoints',
    'webhook_deliveries',
    'webhook_attempts',
    'webhook_relay',
    'notifications',
    'notification_jobs',
  ],
  file: ['files'],
  reconciliation: ['reconciliations', 'reconciliation_lines'],
  mandate: ['mandates', 'mandate_charges'],
  deployment: ['deployment'],
};

const OWNER_OF = new Map(Object.entries(TABLE_OWNERS).flatMap(([object, tables]) => tables.map((t) => [t, object])));
const TABLES = [...OWNER_OF.keys()].sort((a, b) => b.length - a.length);
/** A table after the SQL words that name one; `[.\w]` after the name keeps `gateway_sim.checkouts` and `checkouts_x` out. */
const SQL_TABLE = new RegExp(
  `\\b(?:from|join|into|update|table|truncate)\\s+(?:only\\s+)?(?<![.\\w])"?(${TABLES.join('|')})"?(?![.\\w])`,
  'gi',
);
/** Text that reads as SQL (a statement or a fragment of one), so prose such as "an index into prices" is not. */
const SQL_WORDS = /\b(?:select|insert|update|delete|truncate|where|set|returning|values|on)\b/i;
const KYSELY_TABLE_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'crossJoin',
  'innerJoinLateral',
  'leftJoinLateral',
  'crossJoinLateral',
]);
const ENTITY_WRITES = new Set([
  'create',
  'upsert',
  'upsertMany',
  'insert',
  'insertMany',
  'nativeUpdate',
  'nativeDelete',
]);

/** Entity name → table, read from the `defineEntity` calls in db/entities. */
export function entityTables(entitiesDir) {
  const tables = new Map();
  for (const file of readdirSync(entitiesDir).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(path.join(entitiesDir, file), 'utf8');
    for (const m of text.matchAll(/export const (\w+) = defineEntity\(\{\s*name: '\w+',\s*tableName: '(\w+)'/g)) {
      tables.set(m[1], m[2]);
    }
  }
  return tables;
}

/** The tables named in one piece of SQL text. */
export function tablesInSql(text) {
  if (!SQL_WORDS.test(text)) return [];
  return [...text.matchAll(SQL_TABLE)].map((m) => m[1].toLowerCase());
}

const ownerOnly = {
  meta: {
    type: 'problem',
    docs: { description: "Only a table's owner (db/<object>/) names it in SQL or flushes its entities" },
    messages: {
      foreign:
        "`{{table}}` belongs to the {{object}} object: only db/{{object}}/ names it in SQL or writes its entities. Call that repository, the object's use-case or its workflow.",
      stale: 'The table-owner backlog lists `{{table}}` for this file, which no longer names it: remove the entry.',
    },
    schema: [
      {
        type: 'object',
        properties: {
          entitiesDir: { type: 'string' },
          backlog: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
        },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { entitiesDir = 'db/entities', backlog = {} } = context.options[0] ?? {};
    const file = path.relative(context.cwd, context.filename).split(path.sep).join('/');
    const allowed = new Set(backlog[file] ?? []);
    const seen = new Set();
    const entities = entityTables(path.resolve(context.cwd, entitiesDir));
    const check = (node, table) => {
      const object = OWNER_OF.get(table);
      if (!object || file.startsWith(`db/${object}/`) || file.startsWith('db/migrations/')) return;
      seen.add(table);
      if (!allowed.has(table)) context.report({ node, messageId: 'foreign', data: { table, object } });
    };
    const checkSql = (node, text) => tablesInSql(text).forEach((table) => check(node, table));
    /** The table of an entity imported from db/entities, by the name it was exported as. */
    const entityTable = (node) => {
      if (node?.type !== 'Identifier') return undefined;
      const variable = context.sourceCode.getScope(node).references.find((r) => r.identifier === node)?.resolved;
      const def = variable?.defs[0];
      if (def?.type !== 'ImportBinding' || !/\/entities(\/|\.ts|')/.test(`${def.parent.source.value}'`))
        return undefined;
      return entities.get(def.node.imported?.name ?? node.name);
    };
    return {
      Literal(node) {
        if (typeof node.value === 'string') checkSql(node, node.value);
      },
      TemplateLiteral(node) {
        checkSql(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(' $ '));
      },
      CallExpression(node) {
        const method = node.callee.type === 'MemberExpression' ? node.callee.property.name : undefined;
        const [first] = node.arguments;
        if (KYSELY_TABLE_METHODS.has(method) && first?.type === 'Literal' && typeof first.value === 'string') {
          check(first, first.value.split(/\s+as\s+/i)[0].trim());
        }
        if (ENTITY_WRITES.has(method)) {
          const table = entityTable(first);
          if (table) check(first, table);
        }
      },
      'Program:exit'(node) {
        for (const table of allowed) {
          if (!seen.has(table)) context.report({ node, messageId: 'stale', data: { table } });
        }
      },
    };
  },
};

export default { rules: { 'owner-only': ownerOnly } };
