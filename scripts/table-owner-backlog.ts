/**
 * Writes db/table-owner-backlog.json: for each file outside its tables' owners, the tables it still
 * names (eslint-table-owners.js). Run it only when a file moves; moving code to its owner shrinks the
 * backlog by itself, since the rule reports an entry that is no longer needed.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ESLint } from 'eslint';
import { format, resolveConfig } from 'prettier';
import tseslint from 'typescript-eslint';
import { APPLICATION } from '../eslint.config.js';
import tableOwners from '../eslint-table-owners.js';
import { REPO_ROOT } from './tool-paths.ts';

const BACKLOG = path.join(REPO_ROOT, 'db/table-owner-backlog.json');
const FOREIGN = /^`(\w+)` belongs to the/;

await writeFile(BACKLOG, '{}\n');
// Only this rule, without type information: the rest of the lint has nothing to say here.
const eslint = new ESLint({
  cwd: REPO_ROOT,
  overrideConfigFile: true,
  overrideConfig: [
    { ignores: ['node_modules/', '.tools/'] },
    {
      files: APPLICATION,
      languageOptions: { parser: tseslint.parser },
      plugins: { 'table-owners': tableOwners },
      rules: { 'table-owners/owner-only': 'error' },
    },
  ],
});
const results = await eslint.lintFiles(APPLICATION);
const backlog: Record<string, string[]> = {};
for (const result of results) {
  const tables = result.messages
    .filter((m) => m.ruleId === 'table-owners/owner-only')
    .map((m) => FOREIGN.exec(m.message)?.[1])
    .filter((t): t is string => t !== undefined);
  if (tables.length === 0) continue;
  const file = path.relative(REPO_ROOT, result.filePath).split(path.sep).join('/');
  backlog[file] = [...new Set(tables)].sort();
}
const sorted = Object.fromEntries(Object.entries(backlog).sort(([a], [b]) => a.localeCompare(b)));
await writeFile(
  BACKLOG,
  await format(JSON.stringify(sorted), { ...(await resolveConfig(BACKLOG)), filepath: BACKLOG }),
);
const count = Object.values(sorted).reduce((n, tables) => n + tables.length, 0);
console.log(`table-owner backlog: ${Object.keys(sorted).length} files naming ${count} tables of other owners`);
