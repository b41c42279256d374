import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startApi, type TestApi } from '../helpers/api.ts';

/** /openapi.json is generated from the routes' zod schemas; these tests keep it complete and valid. */
let api: TestApi;
let doc: any;

beforeAll(async () => {
  api = await startApi();
  const res = await api.call('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await api.close();
});

/** Serving the document and its page is not part of the API it describes. */
const NOT_DOCUMENTED = /^\/(docs|openapi\.json)([/*]|$)/;
/** The probes answer the orchestrator with their own body and are exempt from rate limits. */
const PROBES = new Set(['/healthz', '/readyz']);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function operations(): { method: string; path: string; op: any }[] {
  return Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] })),
  );
}

/**
 * Every route the app serves, as "METHOD /path/:param", read from Fastify's own route tree
 * (`printRoutes` draws one node per line; a node's full path is its ancestors' segments joined).
 */
function servedRoutes(): string[] {
  const tree = api.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (.+?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    for (const method of (match[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS')) {
      routes.push(`${method} ${stack.join('')}`);
    }
  }
  return routes;
}

const normalize = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1').replace(/(.)\/$/, '$1');

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3 document', async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeTruthy();
    // The validator does reject a broken document.
    await expect(
      SwaggerParser.validate({ ...structuredClone(doc), paths: { '/x': { get: { responses: 'none' } } } }),
    ).rejects.toThrow();
  });

  it('documents every route the app serves, and nothing else', async () => {
    const served = [
      ...new Set(
        servedRoutes()
          .filter((r) => !NOT_DOCUMENTED.test(r.split(' ')[1]!))
          .map(normalize),
      ),
    ];
    const documented = operations().map(({ method, path }) => `${method.toUpperCase()} ${normalize(path)}`);
    // Sanity: the route tree was read (the probes and a core resource are there).
    expect(served).toEqual(expect.arrayContaining(['GET /healthz', 'POST /api/v1/customers']));
    expect(documented.filter((r) => !served.includes(r))).toEqual([]);
    // A served route may stay out of the document only when it is a web page, not an API operation.
    const undocumented: string[] = [];
    for (const route of served.filter((r) => !documented.includes(r))) {
      const [method, url] = route.split(' ') as [string, string];
      const page = method === 'GET' && !url.includes(':') ? await api.call('GET', url) : undefined;
      if (!String(page?.headers['content-type'] ?? '').startsWith('text/html')) undocumented.push(route);
    }
    expect(undocumented).toEqual([]);
  });

  it('gives every API operation tags, a summary and the error responses with the error body', () => {
    const incomplete: string[] = [];
    for (const { method, path, op } of operations()) {
      if (PROBES.has(path)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!op.tags?.length) incomplete.push(`${where}: no tags`);
      if (!op.summary) incomplete.push(`${where}: no summary`);
      // Any request can be malformed, unauthenticated or over the rate limit.
      for (const status of ['400', '401', '429']) if (!op.responses[status]) incomplete.push(`${where}: no ${status}`);
      for (const [status, response] of Object.entries<any>(op.responses)) {
        if (Number(status) < 400) continue;
        const schema = response.content?.['application/json']?.schema;
        const isErrorBody =
          schema?.properties?.error?.type === 'string' &&
          schema?.properties?.code?.type === 'string' &&
          schema.required?.includes('code');
        if (!isErrorBody) incomplete.push(`${where}: ${status} is not the error body`);
      }
    }
    expect(incomplete).toEqual([]);
  });

  it('lists the optional Idempotency-Key header on every POST, and on nothing else', () => {
    for (const { method, path, op } of operations()) {
      const header = (op.parameters ?? []).find(
        (p: any) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
      );
      if (method === 'post')
        expect({ path, header: header && { required: header.required, max: header.schema.maxLength } }).toEqual({
          path,
          header: { required: false, max: 255 },
        });
      else expect({ path, method, header }).toEqual({ path, method, header: undefined });
    }
  });

  it('declares both credential schemes', () => {
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKey: { type: 'apiKey', in: 'header', name: 'X-Service-Api-Key' },
    });
  });
});

describe('the interactive documentation', () => {
  it('is served at /docs as an HTML page that loads the document', async () => {
    const page = await api.call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toMatch(/<html/i);
    const spec = await api.call('GET', '/docs/json');
    expect(spec.status).toBe(200);
    expect(spec.body.paths).toEqual(doc.paths);
  });
});
