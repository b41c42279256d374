/**
 * `npm run openapi [-- <file>]`: the app's OpenAPI document, as `/openapi.json` serves it, written
 * to the file (or printed). Built from the routes themselves, so it needs only a PostgreSQL server to
 * connect to (no migrated database, no Temporal): `DATABASE_URL`, else the server's `postgres` database.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildApp } from '../api/app.ts';
import { loadConfig } from '../config/env.ts';
import { openOrm } from '../db/orm.ts';
import { createGateway } from '../gateway/index.ts';
import { createTemporalClient } from '../temporal/client.ts';

/** A fixed address and environment, so the document (and what is generated from it) is the same everywhere. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const config = loadConfig({
    DEPLOYMENT_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    JWT_SECRET: 'openapi-document-only-never-verifies-anything',
    PUBLIC_BASE_URL: 'https://127.0.0.1:8443',
    CREDENTIAL_CACHE_TTL_MS: '0',
  });
  const orm = await openOrm(config.DATABASE_URL, 1);
  const temporal = createTemporalClient(config);
  try {
    const app = await buildApp({ config, orm, temporal, gateway: await createGateway(config, orm) });
    await app.ready();
    const document = app.swagger() as unknown as Record<string, unknown>;
    await app.close();
    return document;
  } finally {
    await temporal.connection.close();
    await orm.close();
  }
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
  const text = `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
  const file = process.argv[2];
  if (file) {
    await mkdir(path.dirname(path.resolve(file)), { recursive: true });
    await writeFile(file, text);
  } else process.stdout.write(text);
}
