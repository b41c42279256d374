import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startApi, type TestApi } from '../helpers/api.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api.close();
});

describe('health', () => {
  it('answers /healthz', async () => {
    const res = await api.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('is ready when PostgreSQL and Temporal answer', async () => {
    const res = await api.call('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', temporal: 'ok' } });
  });

  it('is not ready when Temporal is unreachable', async () => {
    const down = await startApi({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const res = await down.call('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.body.checks.database).toBe('ok');
      expect(res.body.checks.temporal).toMatch(/^unavailable/);
    } finally {
      await down.close();
    }
  });
});

describe('index', () => {
  it('answers GET /api/v1/ (the address `npm start` prints) with the docs URL', async () => {
    const res = await api.call('GET', '/api/v1/');
    expect(res.status).toBe(200);
    expect(res.body.docs_url).toMatch(/^https?:\/\/.+\/docs$/);
    expect(res.body.openapi_url).toMatch(/\/openapi\.json$/);
  });
});

describe('conventions', () => {
  it('answers unknown routes with the error body', async () => {
    const res = await api.call('GET', '/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Route not found', detail: 'GET /api/v1/nothing-here', code: 'route_not_found' });
  });
});
