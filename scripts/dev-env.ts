import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/env.ts';
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

/**
 * The port `npm start` gives the Temporal UI: the one TEMPORAL_UI_URL names (default 8233), so every
 * `workflow_url` points where the UI listens, whatever TEMPORAL_ADDRESS is. It may not be the API's
 * port or Temporal's own: that is a configuration error, said at once.
 */
export function temporalUiPort(config: { TEMPORAL_UI_URL: string; TEMPORAL_ADDRESS: string; PORT: number }): number {
  const url = new URL(config.TEMPORAL_UI_URL);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const temporalPort = Number(config.TEMPORAL_ADDRESS.split(':').at(-1));
  if (port === config.PORT || port === temporalPort) {
    const taken = port === config.PORT ? `the API's PORT` : 'the port of TEMPORAL_ADDRESS';
    throw new ConfigError(
      `TEMPORAL_UI_URL (${config.TEMPORAL_UI_URL}) names port ${port}, ${taken}: give the UI a port of its own`,
    );
  }
  return port;
}
