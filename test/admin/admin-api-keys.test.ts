import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';

/** `/admin/v1/accounts/{username}/api-keys`: named keys made, listed (never their secret) and revoked. */
const TOKEN = 'admin-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const MAIN_KEY = 'admin-named-keys-main-0123456789';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(TEST_STORES)('admin API named keys (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      env: { ADMIN_TOKEN: TOKEN },
      lines: [accountLine({ api_key: MAIN_KEY }), itemLine(), purchaseLine()],
    });
  });
  afterAll(() => t.close());

  const admin = (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) =>
    t.app.inject({ method, url: `/admin/v1${path}`, headers: AUTH, ...(payload ? { payload } : {}) });
  const answer = (response: Awaited<ReturnType<typeof admin>>) => ({
    status: response.statusCode,
    code: response.headers['x-error-code'],
    body: response.json() as unknown,
  });

  it('makes a key (201, its secret once), lists it without the secret, and revokes it at once', async () => {
    const made = await admin('POST', '/accounts/jdoe/api-keys', { name: ' Installer ', scope: 'validate' });
    expect(made.statusCode).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    const body = made.json() as { id: string; name: string; scope: string; key: string };
    expect(Object.keys(body)).toEqual(['id', 'name', 'scope', 'key']);
    expect(body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-f]{16}$/),
      name: 'Installer',
      scope: 'validate',
      key: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const details = await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': body.key } });
    expect([details.statusCode, details.headers['x-error-code']]).toEqual([403, 'key_scope']);

    const listed = await admin('GET', '/accounts/jdoe/api-keys');
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(body.key);
    const list = listed.json() as { api_keys: Record<string, unknown>[] };
    expect(Object.keys(list)).toEqual(['api_keys']);
    expect(list.api_keys).toEqual([
      { id: body.id, name: 'Installer', scope: 'validate', created_at: expect.stringMatching(ISO), last_used_at: null },
    ]);
    expect(Object.keys(list.api_keys[0] as object)).toEqual(['id', 'name', 'scope', 'created_at', 'last_used_at']);

    const revoked = await admin('DELETE', `/accounts/jdoe/api-keys/${body.id}`);
    expect(answer(revoked)).toEqual({ status: 200, code: undefined, body: { id: body.id, revoked: true } });
    const after = await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': body.key } });
    expect([after.statusCode, after.body]).toEqual([401, '{"status":"error","msg":"Invalid request"}']);
    expect(answer(await admin('GET', '/accounts/jdoe/api-keys')).body).toEqual({ api_keys: [] });
  });

  it('answers 404 for an unknown account or key, 400 for a bad name or scope', async () => {
    expect(answer(await admin('POST', '/accounts/nobody/api-keys', { name: 'x', scope: 'full' }))).toEqual({
      status: 404,
      code: 'account_not_found',
      body: { code: 'account_not_found', message: 'No account has this username' },
    });
    expect(answer(await admin('GET', '/accounts/nobody/api-keys'))).toEqual({
      status: 404,
      code: 'account_not_found',
      body: { code: 'account_not_found', message: 'No account has this username' },
    });
    expect(answer(await admin('DELETE', '/accounts/nobody/api-keys/key_0000000000000000'))).toEqual({
      status: 404,
      code: 'account_not_found',
      body: { code: 'account_not_found', message: 'No account has this username' },
    });
    expect(answer(await admin('DELETE', '/accounts/jdoe/api-keys/key_0000000000000000'))).toEqual({
      status: 404,
      code: 'api_key_not_found',
      body: { code: 'api_key_not_found', message: 'The account has no API key with this id' },
    });
    const badScope = { code: 'malformed_request', message: 'scope must be "validate" or "full"' };
    const badName = {
      code: 'malformed_request',
      message: 'name must be a text of 1 to 64 characters, without control characters',
    };
    for (const [payload, body] of [
      [{ name: 'x', scope: 'read' }, badScope],
      [{ name: 'x' }, badScope],
      [{ scope: 'full' }, badName],
      [{ name: '   ', scope: 'full' }, badName],
      [{ name: 'x'.repeat(65), scope: 'full' }, badName],
      [{ name: 'a\u0007b', scope: 'full' }, badName],
      [{ name: 7, scope: 'full' }, badName],
    ] as const) {
      expect(answer(await admin('POST', '/accounts/jdoe/api-keys', payload))).toEqual({
        status: 400,
        code: 'malformed_request',
        body,
      });
    }
    const wrongMethod = await admin('DELETE', '/accounts/jdoe/api-keys');
    expect([wrongMethod.statusCode, wrongMethod.headers.allow]).toEqual([405, 'GET, HEAD, POST']);
    expect(answer(await admin('GET', '/accounts/jdoe/api-keys')).body).toEqual({ api_keys: [] });
  });
});
