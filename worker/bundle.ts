import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, type Logger } from '@temporalio/worker';

export const workflowsPath = new URL('../workflows/index.ts', import.meta.url).pathname;
/** The workflows' interceptors: the actor of each step (workflows/actor-interceptors.ts). */
export const workflowInterceptorModules = [new URL('../workflows/actor-interceptors.ts', import.meta.url).pathname];

/** The bundler's progress lines are noise in the worker's log; its warnings and errors are not. */
const quiet: Logger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message, meta) => console.warn(message, meta ?? ''),
  error: (message, meta) => console.error(message, meta ?? ''),
};

/**
 * The workflows' bundle, built by a short-lived child process: webpack's peak (about 200 MB above the
 * process's own) then never lands in the long-running worker's resident memory.
 */
export async function bundleInChild(): Promise<{ code: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'billing-workflows-'));
  const out = path.join(dir, 'bundle.js');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [new URL(import.meta.url).pathname, out], { stdio: 'inherit' });
      child.once('error', reject);
      child.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`bundling the workflows failed (exit ${code})`)),
      );
    });
    return { code: await readFile(out, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Run as a script (by bundleInChild): writes the bundle to the file named.
if (process.argv[1] === new URL(import.meta.url).pathname && process.argv[2]) {
  const { writeFile } = await import('node:fs/promises');
  const bundle = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules, logger: quiet });
  await writeFile(process.argv[2], bundle.code);
}
