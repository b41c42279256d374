/**
 * The Temporal dev server (`temporal server start-dev`) of `npm start`, the tests and the benchmarks:
 * started with our search attributes and dynamic config, or an already running one reused.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isPortOpen, waitForExit } from './processes.ts';
import {
  cliEnv,
  listCustomSearchAttributes,
  registerMissingSearchAttributes,
  SEARCH_ATTRIBUTES,
} from './temporal-cli.ts';
import { requireTemporalCli, TOOLS_DIR } from './tool-paths.ts';

/**
 * Dynamic config for the dev server. Note: `frontend.enableExecuteMultiOperation`
 * no longer exists in Temporal Server 1.32 (CLI 1.9.1) — multi-operation (update-with-start)
 * is always on — and the dev server silently ignores unknown keys, so it is not passed.
 */
const DEV_SERVER_DYNAMIC_CONFIG = [
  'frontend.enableUpdateWorkflowExecution=true',
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted=true',
];

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

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

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
  const args = devServerArgs(opts, ui);
  const server = spawnDevServer(cli, args, logFile);

  const fail = async (reason: string, ErrorType: new (message: string) => Error = Error): Promise<never> => {
    await server.stop();
    throw new ErrorType(
      `Temporal dev server on ${address} ${reason}.\nCommand: ${cli} ${args.join(' ')}\nLog (${logFile}), last lines:\n${tailOfFile(logFile)}`,
    );
  };

  await waitUntilReady(cli, address, opts.port, server, fail);
  return { address, uiUrl: ui ? `http://${HOST}:${opts.uiPort}` : null, pid: server.child.pid, stop: server.stop };
}

/** `temporal server start-dev`'s arguments: address, UI or headless, storage, search attributes, dynamic config. */
function devServerArgs(opts: TemporalDevServerOptions, ui: boolean): string[] {
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
  return args;
}

/** The server's process, writing to `logFile`; killed with this process when nobody stops it. */
function spawnDevServer(cli: string, args: string[], logFile: string) {
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
  return { child, stop, spawnError: (): Error | null => spawnError };
}

/** Waits for the gRPC port and our search attributes; `fail` stops the server and throws. */
async function waitUntilReady(
  cli: string,
  address: string,
  port: number,
  server: ReturnType<typeof spawnDevServer>,
  fail: (reason: string, ErrorType?: new (message: string) => Error) => Promise<never>,
): Promise<void> {
  const { child } = server;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = 'gRPC port not open yet';
  for (;;) {
    const spawnError = server.spawnError();
    if (spawnError) return fail(`could not be spawned: ${spawnError.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      return fail(
        `exited before becoming ready (code ${child.exitCode}, signal ${child.signalCode})`,
        DevServerExitedEarly,
      );
    }
    if (Date.now() > deadline)
      return fail(`did not become ready within ${READY_TIMEOUT_MS / 1000}s (last error: ${lastError})`);
    if (await isPortOpen(HOST, port)) {
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
