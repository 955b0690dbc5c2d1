import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateAccountKey } from '../../src/operations/account-keys.js';
import { CHANGE_CHECK_INTERVAL_MS } from '../../src/store/sqlite/sqlite-store.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine } from '../importer/import-fixtures.js';

/**
 * The rotation rules (docs/decisions.md#key-rotation): a grace period keeps one previous key at
 * most, `now` (CLI `--now`, admin `?now=true`, the workspace's grace 0) ends every retired key at
 * once, and a running server sees each of these from its next request on, cached keys included.
 */
const TOKEN = 'admin-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const FIRST_KEY = 'rotation-first-key-0123456789';
const GRACE_SECONDS = 3600;

describe.each(TEST_STORES)('key rotation with a grace period (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      configFile: { keyRotationGraceSeconds: GRACE_SECONDS },
      env: { ADMIN_TOKEN: TOKEN },
      lines: [accountLine({ api_key: FIRST_KEY })],
    });
  });
  afterAll(() => t.close());

  const status = async (key: string) =>
    (await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': key } })).statusCode;
  const statuses = (keys: readonly string[]) => Promise.all(keys.map(status));
  const adminRotate = async (query = '') => {
    const response = await t.app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/jdoe/api-key${query}`,
      headers: AUTH,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { username: string; api_key: string; old_key_works_until: string | null };
  };
  /** What `keys` answer once a change made by another process has reached the app (SQLite: 5 ms; PostgreSQL: NOTIFY). */
  const settledStatuses = async (keys: readonly string[], wanted: readonly number[]) => {
    if (kind === 'sqlite') {
      await new Promise((resolve) => setTimeout(resolve, CHANGE_CHECK_INTERVAL_MS + 1));
      return statuses(keys);
    }
    const deadline = Date.now() + 1000;
    for (;;) {
      const found = await statuses(keys);
      if (JSON.stringify(found) === JSON.stringify(wanted) || Date.now() >= deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('keeps one previous key at most: a second rotation ends the key the first one retired, at once', async () => {
    // The workspace's rotation, then the admin API's, as in the security review.
    const first = await rotateAccountKey(t.store, t.keys, 'jdoe', GRACE_SECONDS);
    if (!first) throw new Error('jdoe has no account');
    // Both asked (and so cached) before the second rotation.
    expect(await statuses([FIRST_KEY, first.key])).toEqual([200, 200]);
    const second = await adminRotate();
    expect(second.old_key_works_until).not.toBeNull();
    expect(await statuses([FIRST_KEY, first.key, second.api_key])).toEqual([401, 200, 200]);
  });

  it('ends every old key at once with ?now=true, and refuses a value other than true or false', async () => {
    const previous = await adminRotate();
    const current = await adminRotate();
    expect(await statuses([previous.api_key, current.api_key])).toEqual([200, 200]);
    const now = await adminRotate('?now=true');
    expect(now.old_key_works_until).toBeNull();
    expect(await statuses([previous.api_key, current.api_key, now.api_key])).toEqual([401, 401, 200]);

    const bad = await t.app.inject({ method: 'POST', url: '/admin/v1/accounts/jdoe/api-key?now=yes', headers: AUTH });
    expect({ status: bad.statusCode, body: bad.json() }).toEqual({
      status: 400,
      body: { code: 'malformed_request', message: 'now must be true or false' },
    });
    // Nothing was rotated.
    expect(await status(now.api_key)).toBe(200);
  });

  it('ends every retired key when the workspace rotates with grace 0 (the "end the old key now" choice)', async () => {
    const previous = await adminRotate();
    const current = await adminRotate();
    expect(await statuses([previous.api_key, current.api_key])).toEqual([200, 200]);
    const ended = await rotateAccountKey(t.store, t.keys, 'jdoe', 0);
    if (!ended) throw new Error('jdoe has no account');
    expect(ended.oldKeyWorksUntil).toBeUndefined();
    expect(await statuses([previous.api_key, current.api_key, ended.key])).toEqual([401, 401, 200]);
  });

  it('ends every old key on `keys rotate --now` run in another process, seen by the running server', async () => {
    const previous = await adminRotate();
    const current = await adminRotate();
    expect(await statuses([previous.api_key, current.api_key])).toEqual([200, 200]);
    const env = cleanEnv({ ...t.env });
    const rotated = await runCli(['keys', 'rotate', '--now', 'jdoe'], { cwd: t.dir, env });
    expect([rotated.code, rotated.stderr]).toEqual([
      0,
      'The old key no longer works. Keep this new key safe; see it again with: npm run cli -- keys show jdoe\n',
    ]);
    const newKey = rotated.stdout.trim();
    expect(await settledStatuses([previous.api_key, current.api_key, newKey], [401, 401, 200])).toEqual([
      401, 401, 200,
    ]);

    // Without --now, the configured grace applies: the key just replaced works on, and it alone.
    const graced = await runCli(['keys', 'rotate', 'jdoe'], { cwd: t.dir, env });
    expect(graced.code).toBe(0);
    expect(graced.stderr).toMatch(
      /^The old key works until \d{4}-\d\d-\d\dT[\d:.]+Z\. Keep this new key safe; see it again with: npm run cli -- keys show jdoe\n$/,
    );
    expect(await settledStatuses([current.api_key, newKey, graced.stdout.trim()], [401, 200, 200])).toEqual([
      401, 200, 200,
    ]);
  });
});

describe.each(TEST_STORES)('key rotation without a grace period (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: [accountLine({ api_key: FIRST_KEY })] });
  });
  afterAll(() => t.close());

  it('ends the keys a rotation with a grace period left working (a restart with keyRotationGraceSeconds 0)', async () => {
    // Rotated earlier, under a config with a grace period.
    const first = await rotateAccountKey(t.store, t.keys, 'jdoe', GRACE_SECONDS);
    const second = await rotateAccountKey(t.store, t.keys, 'jdoe', GRACE_SECONDS);
    if (!first || !second) throw new Error('jdoe has no account');
    const status = async (key: string) =>
      (await t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': key } })).statusCode;
    expect(await status(first.key)).toBe(200);
    const third = await rotateAccountKey(t.store, t.keys, 'jdoe', t.config.keyRotationGraceSeconds);
    if (!third) throw new Error('jdoe has no account');
    expect(third.oldKeyWorksUntil).toBeUndefined();
    expect(await Promise.all([FIRST_KEY, first.key, second.key, third.key].map(status))).toEqual([401, 401, 401, 200]);
  });
});
