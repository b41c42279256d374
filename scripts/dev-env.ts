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
  return {
    DEPLOYMENT_ENV: 'test',
    // A secret from the environment (a container's) wins, and .data/ (not writable in the image) is left alone.
    JWT_SECRET: process.env.JWT_SECRET ?? localJwtSecret(),
    TLS_CERT_FILE: path.join(REPO_ROOT, '.certs/localhost.crt'),
    TLS_KEY_FILE: path.join(REPO_ROOT, '.certs/localhost.key'),
    ...process.env,
  };
}

function localJwtSecret(): string {
  mkdirSync(DATA_DIR, { recursive: true });
  const secretFile = path.join(DATA_DIR, 'dev-jwt-secret');
  if (!existsSync(secretFile)) writeFileSync(secretFile, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(secretFile, 'utf8').trim();
}
