import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';

/**
 * Named keys with a scope (docs/api.md, "Keys and scopes"): a `validate` key made by the CLI
 * validates purchase codes and reads nothing else (403 `key_scope` in the variant's envelope and
 * language); revoked, it is an unknown key (401) on the next requests of a running server; its
 * last use and budgets are its own.
 */
const MAIN_KEY = 'named-keys-main-key-0123456789';
const CODE = 'ABC-123_x';
/** Each CLI run is a process of its own (a few seconds each, more on a busy machine). */
const CLI_TIMEOUT_MS = 180_000;
const SCOPE_MESSAGES = {
  en: { status: 'error', msg: 'This API key may not call this endpoint' },
  pt: { status: 'Erro', msg: 'Esta chave de API não pode chamar este endpoint' },
} as const;
const INVALID = {
  en: { status: 'error', msg: 'Invalid request' },
  pt: { status: 'Erro', msg: 'Solicitação Inválida' },
} as const;

describe.each(TEST_STORES)('named keys with a scope (%s)', (kind) => {
  let t: TestApp;
  let validateKey: string;
  let validateId: string;
  const cli = (args: readonly string[]) => runCli(args, { cwd: t.dir, env: cleanEnv({ ...t.env }) });

  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [accountLine({ api_key: MAIN_KEY }), itemLine(), purchaseLine({ code: CODE })],
    });
    const made = await cli(['keys', 'create', 'jdoe', '--name', 'Installer 2.x', '--scope', 'validate']);
    expect(made.code, made.stderr).toBe(0);
    validateKey = made.stdout.trim();
    expect(validateKey).toMatch(/^[0-9a-f]{64}$/);
    const id = /Key (key_[0-9a-f]{16}) \("Installer 2\.x", scope validate\) made\./.exec(made.stderr)?.[1];
    if (id === undefined) throw new Error(`no key id in ${made.stderr}`);
    validateId = id;
  }, CLI_TIMEOUT_MS);
  afterAll(() => t.close());

  const get = (url: string, key: string) => t.app.inject({ url, headers: { 'x-api-key': key } });
  const validate = (base: string, key: string) =>
    t.app.inject({
      method: 'POST',
      url: `${base}/api/purchases/validation`,
      headers: { 'x-api-key': key },
      payload: { purchase_code: CODE },
    });

  it.each([
    ['en', ''],
    ['pt', '/pt'],
  ] as const)('refuses the account and its items to a validate key, 403 key_scope (%s)', async (lang, base) => {
    for (const path of ['/api/account/details', '/api/items/all', '/api/items/item?item_id=101']) {
      const response = await get(`${base}${path}`, validateKey);
      expect({
        path,
        status: response.statusCode,
        body: response.body,
        code: response.headers['x-error-code'],
      }).toEqual({
        path,
        status: 403,
        body: JSON.stringify(SCOPE_MESSAGES[lang]),
        code: 'key_scope',
      });
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    }
    const activity = await get(`${base}/api/purchases/activity?purchase_code=${CODE}`, validateKey);
    expect([activity.statusCode, activity.body]).toEqual([403, JSON.stringify(SCOPE_MESSAGES[lang])]);
  });

  it.each([
    ['en', ''],
    ['pt', '/pt'],
  ] as const)('validates with a validate key as with the main key (%s)', async (_lang, base) => {
    const withNamed = await validate(base, validateKey);
    const withMain = await validate(base, MAIN_KEY);
    expect(withNamed.statusCode).toBe(200);
    expect(withNamed.body).toBe(withMain.body);
  });

  it(
    'keeps the main key full, and a full named key opens everything',
    async () => {
      expect((await get('/api/account/details', MAIN_KEY)).statusCode).toBe(200);
      const made = await cli(['keys', 'create', 'jdoe', '--name', 'Back office', '--scope', 'full']);
      expect(made.code, made.stderr).toBe(0);
      const full = made.stdout.trim();
      const details = await get('/api/account/details', full);
      expect(details.body).toBe((await get('/api/account/details', MAIN_KEY)).body);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'lists keys without their secrets, with their last use once written',
    async () => {
      // A use of the validate key (the tests above made several), written as the minute's flush writes it.
      await t.app.inject({
        method: 'POST',
        url: '/api/purchases/validation',
        headers: { 'x-api-key': validateKey },
        payload: { purchase_code: CODE },
      });
      await t.app.close();
      const listed = await cli(['keys', 'list', 'jdoe']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).not.toContain(validateKey);
      const keys = JSON.parse(listed.stdout) as Record<string, unknown>[];
      expect(keys.map((key) => Object.keys(key))).toEqual([
        ['id', 'name', 'scope', 'created_at', 'last_used_at'],
        ['id', 'name', 'scope', 'created_at', 'last_used_at'],
      ]);
      expect(keys[0]).toMatchObject({ id: validateId, name: 'Installer 2.x', scope: 'validate' });
      expect(keys[0]?.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(keys[1]).toMatchObject({ name: 'Back office', scope: 'full' });
      // Each key's own last use: the full key was used by the test above.
      expect(keys[1]?.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    },
    CLI_TIMEOUT_MS,
  );
});

describe.each(TEST_STORES)('a revoked named key (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [accountLine({ api_key: MAIN_KEY }), itemLine(), purchaseLine({ code: CODE })],
    });
  });
  afterAll(() => t.close());

  /** Asks until the running app answers `wanted`, for at most the contract's second (SQLite's check interval, PostgreSQL's NOTIFY). */
  const statusOnceSettled = async (url: string, key: string, wanted: number) => {
    const deadline = Date.now() + 1000;
    for (;;) {
      const response = await t.app.inject({ url, headers: { 'x-api-key': key } });
      if (response.statusCode === wanted || Date.now() >= deadline) return response;
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

  it.each([
    ['en', ''],
    ['pt', '/pt'],
  ] as const)(
    'answers 401 as an unknown key once revoked by the CLI, cached or not (%s)',
    async (lang, base) => {
      const env = cleanEnv({ ...t.env });
      const made = await runCli(['keys', 'create', 'jdoe', '--name', `ci-${lang}`, '--scope', 'validate'], {
        cwd: t.dir,
        env,
      });
      const key = made.stdout.trim();
      const id = /Key (key_[0-9a-f]{16})/.exec(made.stderr)?.[1] as string;
      const url = `${base}/api/account/details`;
      // Known to the running app (and so cached) before it is revoked.
      expect((await statusOnceSettled(url, key, 403)).statusCode).toBe(403);
      const revoked = await runCli(['keys', 'revoke', 'jdoe', id], { cwd: t.dir, env });
      expect([revoked.code, revoked.stdout]).toEqual([0, `${id}: revoked\n`]);
      const response = await statusOnceSettled(url, key, 401);
      expect([response.statusCode, response.body, response.headers['x-error-code']]).toEqual([
        401,
        JSON.stringify(INVALID[lang]),
        'invalid_api_key',
      ]);
      const validation = await t.app.inject({
        method: 'POST',
        url: `${base}/api/purchases/validation`,
        headers: { 'x-api-key': key },
        payload: { purchase_code: CODE },
      });
      expect([validation.statusCode, validation.body]).toEqual([401, JSON.stringify(INVALID[lang])]);
      // The main key is untouched.
      expect((await t.app.inject({ url, headers: { 'x-api-key': MAIN_KEY } })).statusCode).toBe(200);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses a revoke of an unknown key or account, and bad create options, with exit codes',
    async () => {
      const env = cleanEnv({ ...t.env });
      const run = (args: string[]) => runCli(args, { cwd: t.dir, env });
      expect(await run(['keys', 'revoke', 'jdoe', 'key_0000000000000000'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'account "jdoe" has no API key "key_0000000000000000"\n',
      });
      expect(await run(['keys', 'revoke', 'nobody', 'key_0000000000000000'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'no account named "nobody"\n',
      });
      expect(await run(['keys', 'create', 'jdoe', '--name', 'x', '--scope', 'read'])).toEqual({
        code: 2,
        stdout: '',
        stderr: '--scope must be "validate" or "full"\n',
      });
      expect(await run(['keys', 'create', 'jdoe', '--name', '  ', '--scope', 'full'])).toEqual({
        code: 2,
        stdout: '',
        stderr: '--name must be a text of 1 to 64 characters, without control characters\n',
      });
      expect(await run(['keys', 'create', 'nobody', '--name', 'x', '--scope', 'full'])).toEqual({
        code: 1,
        stdout: '',
        stderr: 'no account named "nobody"\n',
      });
    },
    CLI_TIMEOUT_MS,
  );
});
