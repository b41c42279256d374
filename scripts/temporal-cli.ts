/** The Temporal CLI's operator commands the dev-server start needs: our custom search attributes. */
import { run } from './processes.ts';

export const SEARCH_ATTRIBUTES = {
  OrganizationId: 'Keyword',
  CustomerId: 'Keyword',
  SubscriptionId: 'Keyword',
  CheckoutId: 'Keyword',
  /** Set on a billing run an operator must look at (e.g. a capture given back because its sale could not be recorded). */
  PaymentIssue: 'Keyword',
} as const;

/** Env for CLI children without TEMPORAL_* connection settings (we always pass --address). */
export function cliEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('TEMPORAL_')) env[k] = v;
  }
  return env;
}

function cliConnectionArgs(address: string): string[] {
  return ['--address', address, '--namespace', 'default', '--disable-config-file', '--disable-config-env'];
}

/** Names of custom search attributes on the `default` namespace; throws if the server is not answering. */
export async function listCustomSearchAttributes(cli: string, address: string): Promise<Set<string>> {
  const res = await run(
    cli,
    ['operator', 'search-attribute', 'list', ...cliConnectionArgs(address), '--command-timeout', '5s', '-o', 'json'],
    { timeoutMs: 10_000, env: cliEnv() },
  );
  if (res.code !== 0)
    throw new Error(`temporal operator search-attribute list failed (exit ${res.code}): ${res.output.trim()}`);
  const parsed = JSON.parse(res.output) as { customAttributes?: Record<string, string> };
  return new Set(Object.keys(parsed.customAttributes ?? {}));
}

export async function registerMissingSearchAttributes(cli: string, address: string): Promise<string[]> {
  const existing = await listCustomSearchAttributes(cli, address);
  const created: string[] = [];
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) {
    if (existing.has(name)) continue;
    // One call per attribute: with several --name flags and one --type, CLI 1.9.1 registers only the first.
    const res = await run(
      cli,
      [
        'operator',
        'search-attribute',
        'create',
        '--name',
        name,
        '--type',
        type,
        ...cliConnectionArgs(address),
        '--command-timeout',
        '10s',
      ],
      { timeoutMs: 20_000, env: cliEnv() },
    );
    if (res.code !== 0)
      throw new Error(`Failed to register search attribute ${name} on ${address}: ${res.output.trim()}`);
    created.push(name);
  }
  return created;
}
