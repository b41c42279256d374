import { readFile } from 'node:fs/promises';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The baseline: bare Fastify over HTTPS plus one pg query, the same single-row read the API's
 * GET /api/v1/products/<id> needs at its core. No auth, no validation, no serialization schema.
 */
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({
  https: { cert: await readFile(process.env.TLS_CERT_FILE!), key: await readFile(process.env.TLS_KEY_FILE!) },
});
app.get('/products/:id', async (request) => {
  const { rows } = await pool.query('select * from products where id = $1', [(request.params as { id: string }).id]);
  return rows[0];
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
