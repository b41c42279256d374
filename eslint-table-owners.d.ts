import type { Rule } from 'eslint';

/** Types of eslint-table-owners.js, for the backlog script and the rule's tests. */
export declare const TABLE_OWNERS: Record<string, string[]>;
export declare function tablesInSql(text: string): string[];
export declare function entityTables(entitiesDir: string): Map<string, string>;
declare const plugin: { rules: { 'owner-only': Rule.RuleModule } };
export default plugin;
