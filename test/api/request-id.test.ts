import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorKinds } from '../../src/variants/error-kinds.js';
import { rawExchange } from '../helpers/raw-http.js';
import { createTestApp, type TestApp, VARIANTS } from '../helpers/test-app.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TOKEN = 'admin-token-0123456789abcdef';

describe('X-Request-Id', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ logLevel: 'debug', env: { ADMIN_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  it.each(VARIANTS)('is on every answer in $lang: a new UUID, or the client sane one', async (variant) => {
    for (const url of [`${variant.base}/api/account/details`, `${variant.base}/api/nowhere`, '/healthz', '/readyz']) {
      const fresh = await t.app.inject({ method: 'GET', url });
      expect(fresh.headers['x-request-id']).toMatch(UUID);
      const kept = await t.app.inject({ method: 'GET', url, headers: { 'x-request-id': 'lb-7:abc.DEF_1-2' } });
      expect(kept.headers['x-request-id']).toBe('lb-7:abc.DEF_1-2');
    }
    const wrongMethod = await t.app.inject({
      method: 'PUT',
      url: `${variant.base}/api/items/all`,
      headers: { 'x-request-id': 'r1' },
    });
    expect([wrongMethod.statusCode, wrongMethod.headers['x-request-id'], wrongMethod.headers['x-error-code']]).toEqual([
      405,
      'r1',
      'method_not_allowed',
    ]);
  });

  it('replaces an id that is empty, too long, or holds other characters', async () => {
    for (const given of ['', 'x'.repeat(129), 'has space', 'semi;colon', 'ünï', 'a\tb']) {
      const response = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': given } });
      expect(response.headers['x-request-id']).toMatch(UUID);
    }
    const longest = 'x'.repeat(128);
    const kept = await t.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': longest } });
    expect(kept.headers['x-request-id']).toBe(longest);
  });

  it('is on the admin API answers, and its errors carry their code', async () => {
    const refused = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/metrics',
      headers: { 'x-request-id': 'adm-1' },
    });
    expect([refused.statusCode, refused.headers['x-request-id'], refused.headers['x-error-code']]).toEqual([
      401,
      'adm-1',
      'unauthorized',
    ]);
  });

  it('is in the access log line', async () => {
    await t.app.inject({
      method: 'GET',
      url: '/api/items/all?api_key=secret',
      headers: { 'x-request-id': 'log-me-1' },
    });
    const line = t.logs.find((text) => text.includes('"reqId":"log-me-1"') && text.includes('"msg":"request"'));
    expect(line).toBeDefined();
    expect(JSON.parse(line as string)).toMatchObject({ reqId: 'log-me-1', route: '/api/items/all', status: 401 });
  });

  it('is on the raw-socket 400 for a request Node cannot parse, with X-Error-Code', async () => {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (t.app.server.address() as AddressInfo).port;
    const answer = await rawExchange(port, ['GET /api/items/all HTTP/1.1\r\nHost: localhost\r\nBad Header\r\n\r\n']);
    expect(answer.status).toBe(400);
    expect(answer.headers['x-error-code']).toBe('malformed_request');
    expect(answer.headers['x-request-id']).toMatch(UUID);
    expect(JSON.parse(answer.body)).toEqual({ status: 'error', msg: 'The request is malformed' });
  });
});

describe('the error codes', () => {
  it('are one per kind, stable English snake_case, and each listed in docs/api.md', () => {
    const docs = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const codes = Object.values(errorKinds).map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const [kind, { status, code }] of Object.entries(errorKinds)) {
      expect(code, kind).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(docs, `${kind} in docs/api.md`).toMatch(new RegExp(`\\| ${status} \\| \`${code}\` \\|`));
    }
  });
});
