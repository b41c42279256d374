/**
 * One way to the database (docs/decisions/0003-one-way-to-the-database.md): MikroORM's entities and
 * its typed Kysely, opened by db/kysely.ts (`kyselyOf`, `prepared`). This rule refuses the others,
 * using the types: a MikroORM method that runs or builds raw SQL (`em.execute`, `getConnection()`, the
 * query builders, the untyped Kysely and the pg client underneath). Importing `pg` or `kysely` is
 * refused by `no-restricted-imports`.
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

const noRawSql = {
  meta: {
    type: 'problem',
    docs: { description: "Reach PostgreSQL through MikroORM's entities or its typed Kysely (db/kysely.ts) only" },
    messages: {
      raw: "MikroORM's `{{name}}` reaches SQL outside the one way: use entities, or the typed Kysely of db/kysely.ts (`kyselyOf(em)`, `prepared`) in the table owner's repository.",
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
    };
  },
};

export default { rules: { 'no-raw-sql': noRawSql } };
