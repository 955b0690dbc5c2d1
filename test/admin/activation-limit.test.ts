import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountLine, itemLine, purchaseLine } from '../api/store-lines.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

/** An item's activation limit set by the admin API and by the CLI (the same operation), on both stores. */

const TOKEN = 'admin-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const KEY = 'limit-key-0123456789abcdef';

describe.each(TEST_STORES)('an item’s activation limit (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      env: { ADMIN_TOKEN: TOKEN },
      lines: [accountLine('ana', KEY), itemLine(801, 'ana'), purchaseLine('LIMIT-CODE-1', 801)],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const put = (id: string, payload: unknown, headers: Record<string, string> = AUTH) =>
    t.app.inject({ method: 'PUT', url: `/admin/v1/items/${id}/activation-limit`, headers, payload: payload as object });
  const answer = (response: { statusCode: number; body: string; headers: Record<string, unknown> }) => ({
    status: response.statusCode,
    body: JSON.parse(response.body),
    code: response.headers['x-error-code'],
  });

  it('PUT /admin/v1/items/{id}/activation-limit sets it, null clears it; the API then keeps it', async () => {
    expect(answer(await put('801', { activation_limit: 1 }))).toEqual({
      status: 200,
      body: { item_id: 801, activation_limit: 1 },
      code: undefined,
    });
    expect(await t.store.activations().activationLimit(801)).toBe(1);
    const activate = (instance: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/purchases/activations',
        headers: { 'x-api-key': KEY },
        payload: { purchase_code: 'LIMIT-CODE-1', instance },
      });
    expect((await activate('one')).statusCode).toBe(201);
    expect((await activate('two')).statusCode).toBe(409);
    expect(answer(await put('801', { activation_limit: null }))).toEqual({
      status: 200,
      body: { item_id: 801, activation_limit: null },
      code: undefined,
    });
    expect((await activate('two')).statusCode).toBe(201);
  });

  it('refuses a bad limit (400), an unknown item (404), and a request without the token (401)', async () => {
    for (const payload of [{ activation_limit: 0 }, { activation_limit: 1.5 }, { activation_limit: '3' }, {}]) {
      expect(answer(await put('801', payload))).toEqual({
        status: 400,
        body: {
          code: 'malformed_request',
          message: 'activation_limit must be a whole number from 1 to 1000000, or none (null)',
        },
        code: 'malformed_request',
      });
    }
    for (const id of ['999', 'abc']) {
      expect(answer(await put(id, { activation_limit: 2 }))).toEqual({
        status: 404,
        body: { code: 'item_not_found', message: 'No item has this id' },
        code: 'item_not_found',
      });
    }
    expect((await put('801', { activation_limit: 2 }, {})).statusCode).toBe(401);
    const wrongMethod = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/items/801/activation-limit',
      headers: AUTH,
    });
    expect([wrongMethod.statusCode, wrongMethod.headers.allow]).toEqual([405, 'PUT']);
  });

  it('npm run cli -- items set-activation-limit ITEM_ID N|none', async () => {
    const env = cleanEnv({ ...t.env });
    const set = await runCli(['items', 'set-activation-limit', '801', '4'], { cwd: t.dir, env });
    expect([set.code, set.stdout, set.stderr]).toEqual([0, 'item 801: activation limit 4\n', '']);
    expect(await t.store.activations().activationLimit(801)).toBe(4);
    const none = await runCli(['items', 'set-activation-limit', '801', 'none'], { cwd: t.dir, env });
    expect([none.code, none.stdout]).toEqual([0, 'item 801: activation limit none\n']);
    expect(await t.store.activations().activationLimit(801)).toBeNull();
    const bad = await runCli(['items', 'set-activation-limit', '801', 'zero'], { cwd: t.dir, env });
    expect([bad.code, bad.stderr]).toEqual([
      1,
      'the limit must be a whole number from 1 to 1000000, or none, not "zero"\n',
    ]);
    const missing = await runCli(['items', 'set-activation-limit', '999', '2'], { cwd: t.dir, env });
    expect([missing.code, missing.stderr]).toEqual([1, 'no item with the id 999\n']);
  });
});
