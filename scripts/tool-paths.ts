/**
 * Where the local tools are: the Temporal CLI (dev server), the Java time-skipping test server and
 * moto_server, looked up in the environment, on PATH and in the project-local, git-ignored venv
 * `.tools/venv` that scripts/install-tools.ts fills.
 */
import fs from 'node:fs';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '..');
export const TOOLS_DIR = path.join(REPO_ROOT, '.tools');
export const VENV_DIR = path.join(TOOLS_DIR, 'venv');
export const VENV_BIN = path.join(VENV_DIR, 'bin');

export function isExecutableFile(file: string): boolean {
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

export function requireTemporalCli(): string {
  const cli = temporalCliPath();
  if (!cli) {
    throw new Error(
      'Temporal CLI not found (checked $TEMPORAL_CLI_PATH, `temporal` on PATH and .tools/venv/bin/temporal). ' +
        'Run `node scripts/install-tools.ts` first.',
    );
  }
  return cli;
}
