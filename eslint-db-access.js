/**
 * Two ways to the database (docs/decisions/0003-two-ways-to-the-database.md): MikroORM's entities, and
 * our own SQL through db/plain-sql.ts (`plainSql`, `sqlIn`). This rule refuses the others, using the
 * types: a MikroORM method that runs or builds raw SQL (`em.execute`, `getConnection()`, the query
 * builders, the Kysely and pg clients underneath), and an EntityManager handed where a `SqlExecutor`
 * is expected (it would run its raw `execute`). Importing `pg` is refused by `no-restricted-imports`.
 */

/** MikroORM members that reach SQL without entities. */
const RAW = new Set([
  'execute',
  'getConnection',
  'getDriver',
  'getKysely',
  'getKnex',
  'createQueryBuilder',
  'qb',
  'getNativeClient',
  'getTransactionContext',
  'stream',
]);
const FROM_MIKRO_ORM = /[\\/]node_modules[\\/]@mikro-orm[\\/]/;

const fromMikroOrm = (symbol) =>
  (symbol?.getDeclarations() ?? []).some((d) => FROM_MIKRO_ORM.test(d.getSourceFile().fileName));

/** A MikroORM type, or an intersection or union with one (a transaction's EntityManager is `EM & {…}`). */
const typeFromMikroOrm = (type) => [type, ...(type.types ?? [])].some((t) => fromMikroOrm(t.getSymbol()));

const noRawSql = {
  meta: {
    type: 'problem',
    docs: { description: "Reach PostgreSQL through MikroORM's entities or db/plain-sql.ts only" },
    messages: {
      raw: "MikroORM's `{{name}}` reaches SQL outside the two ways: use entities, `plainSql(orm)` or, inside an entity transaction, `sqlIn(tx)` (db/plain-sql.ts).",
      executor:
        'An EntityManager is not a SqlExecutor: pass `executorOf(sqlIn(tx))` (db/plain-sql.ts), so the statements go the one plain-SQL way.',
    },
    schema: [],
  },
  create(context) {
    const services = context.sourceCode.parserServices;
    if (!services?.program) throw new Error('db-access/no-raw-sql needs typed linting (parserOptions.projectService)');
    const checker = services.program.getTypeChecker();
    const tsNode = (node) => services.esTreeNodeToTSNodeMap.get(node);
    return {
      MemberExpression(node) {
        if (node.property.type !== 'Identifier' || !RAW.has(node.property.name)) return;
        if (fromMikroOrm(checker.getSymbolAtLocation(tsNode(node.property)))) {
          context.report({ node: node.property, messageId: 'raw', data: { name: node.property.name } });
        }
      },
      CallExpression(node) {
        const signature = checker.getResolvedSignature(tsNode(node));
        node.arguments.forEach((arg, i) => {
          const param = signature?.getParameters()[i];
          if (!param) return;
          const expected = checker.getTypeOfSymbolAtLocation(param, tsNode(node));
          if (expected.getSymbol()?.getName() !== 'SqlExecutor') return;
          if (typeFromMikroOrm(checker.getTypeAtLocation(tsNode(arg)))) {
            context.report({ node: arg, messageId: 'executor' });
          }
        });
      },
    };
  },
};

export default { rules: { 'no-raw-sql': noRawSql } };
