import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import { createLogger } from '../../src/logging.js';
import { openStore } from '../../src/store/open-store.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

const FILE_KEY = 'given-in-the-file_0123456789';

describe.each(TEST_STORES)('npm run cli -- keys (%s)', (kind) => {
  let database: TestDatabase;
  let cwd: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    cwd = database.dir;
    env = cleanEnv({ ...database.env });
  });
  afterAll(async () => {
    await database.drop();
  });

  /** Asks the real app over the same store file what a key opens. */
  async function statusFor(key: string): Promise<number> {
    const config = loadConfig(env);
    const store = await openStore(config.store);
    const app = await buildApp({ config, store, keys: loadKeyMaterial(config), logger: createLogger('silent') });
    try {
      return (await app.inject({ url: '/api/account/details', headers: { 'x-api-key': key } })).statusCode;
    } finally {
      await app.close();
      await store.close();
    }
  }

  it('shows the key an import gave, rotates it, and the old key stops working at once', async () => {
    const file = join(cwd, 'seed.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify({
        type: 'account',
        username: 'jdoe',
        email: 'j@example.com',
        api_key: FILE_KEY,
        registered_at: '2023-01-02T03:04:05Z',
      })}\n`,
    );
    const imported = await runCli(['import', file], { cwd, env });
    expect(imported.code, imported.stderr).toBe(0);

    expect(await runCli(['keys', 'show', 'jdoe'], { cwd, env })).toEqual({
      code: 0,
      stdout: `${FILE_KEY}\n`,
      stderr: '',
    });
    expect(await statusFor(FILE_KEY)).toBe(200);

    const rotated = await runCli(['keys', 'rotate', 'jdoe'], { cwd, env });
    expect(rotated.code).toBe(0);
    const newKey = rotated.stdout.trim();
    expect(newKey).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.stderr).toBe(
      'The old key no longer works. Keep this new key safe; see it again with: npm run cli -- keys show jdoe\n',
    );

    expect(await statusFor(FILE_KEY)).toBe(401);
    expect(await statusFor(newKey)).toBe(200);
    expect((await runCli(['keys', 'show', 'jdoe'], { cwd, env })).stdout).toBe(`${newKey}\n`);
  });

  it('says so for an unknown account, without a stack trace', async () => {
    expect(await runCli(['keys', 'show', 'nobody'], { cwd, env })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'no account named "nobody"\n',
    });
    const rotated = await runCli(['keys', 'rotate', 'nobody'], { cwd, env });
    expect([rotated.code, rotated.stderr]).toEqual([1, 'no account named "nobody"\n']);
  });
});

describe('keys show with another server secret', () => {
  it('says the secret is the wrong one, clearly, rather than a crypto error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'marketplace-secret-'));
    const storeEnv = cleanEnv({ DATABASE_URL: `sqlite:${join(dir, 'store.db')}`, SECRET_KEY: 'a'.repeat(40) });
    const file = join(dir, 'one.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'account', username: 'solo', email: 's@example.com', registered_at: '2023-01-02T03:04:05Z' })}\n`,
    );
    expect((await runCli(['import', file], { cwd: dir, env: storeEnv })).code).toBe(0);
    const shown = await runCli(['keys', 'show', 'solo'], {
      cwd: dir,
      env: { ...storeEnv, SECRET_KEY: 'b'.repeat(40) },
    });
    expect(shown).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the stored key cannot be decrypted with this server secret: use the SECRET_KEY (or secret.key) ' +
        'the store was filled with, or give the account a new key with `keys rotate`\n',
    });
  });
});
