import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './tool-paths.ts';

export const DATA_DIR = path.join(REPO_ROOT, '.data');

/**
 * The embedded defaults of `npm start`: a local HS256 secret kept in .data/ (so minted JWTs survive
 * restarts), certificates in .certs/. Anything already set in the environment wins.
 */
export function devEnv(): NodeJS.ProcessEnv {
  mkdirSync(DATA_DIR, { recursive: true });
  const secretFile = path.join(DATA_DIR, 'dev-jwt-secret');
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return {
    DEPLOYMENT_ENV: 'test',
    JWT_SECRET: readFileSync(secretFile, 'utf8').trim(),
    TLS_CERT_FILE: path.join(REPO_ROOT, '.certs/localhost.crt'),
    TLS_KEY_FILE: path.join(REPO_ROOT, '.certs/localhost.key'),
    ...process.env,
  };
}
