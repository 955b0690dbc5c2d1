import { CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { loadConfig } from '../../src/config.js';
import { packageVersion } from '../../src/version.js';
import { cleanEnv, runCli } from '../helpers/processes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import {
  createMarketbobDatabase,
  insertPurchase,
  insertSettings,
  itemRow,
  type MarketbobTestDatabase,
  TEST_MARIADB_URL,
  userRow,
} from './marketbob-database.js';

describe.skipIf(!TEST_MARIADB_URL)('npm run cli -- marketbob', () => {
  let legacy: MarketbobTestDatabase;
  let current: MarketbobTestDatabase;
  let store: TestDatabase;
  const env = (database: MarketbobTestDatabase, extra: Record<string, string> = {}) =>
    cleanEnv({
      ...store.env,
      MARKETBOB_DATABASE_URL: database.url,
      MARKETBOB_MEDIA_BASE_URL: 'https://market.example.com',
      ...extra,
    });

  beforeAll(async () => {
    store = await createTestDatabase('sqlite');
    // A database that never ran the validity-period migrations, without the follower's indexes.
    legacy = await createMarketbobDatabase({ validity: false });
    current = await createMarketbobDatabase({ validity: true, followerIndexes: true });
    await insertSettings(current, false);
    const category = await current.insert('categories', { name: 'Scripts' });
    const seller = await current.insert('users', userRow({ username: 'seller' }));
    const item = await current.insert('items', itemRow(seller, category));
    await insertPurchase(current, { id: item, authorId: seller }, seller);
    await current.insert('users', userRow({ username: null }));
  });
  afterAll(async () => {
    await legacy?.drop();
    await current?.drop();
    await store?.drop();
  });

  it('check: says which optional columns exist, what it reads, and the indexes to create', async () => {
    const { code, stdout, stderr } = await runCli(['marketbob', 'check'], { cwd: store.dir, env: env(legacy) });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^MarketBob database ${legacy.name} \\(server .*MariaDB.*\\)$`));
    expect(lines).toContain(
      '  purchases: 0 rows (id, sale_id, item_id, license_type, code, support_expiry_at, is_downloaded, status, created_at, updated_at)',
    );
    expect(lines).toContain('  items.validity_prices: absent (prices of items whose regular_price is 0)');
    expect(lines).toContain('  CREATE INDEX marketbob_follow_users_updated_at ON users (updated_at);');
    expect(lines).toContain('  CREATE INDEX marketbob_follow_purchases_updated_at ON purchases (updated_at);');
    expect(lines.at(-1)).toBe('ok: a sync can read this database');

    const withAll = await runCli(['marketbob', 'check'], { cwd: store.dir, env: env(current) });
    expect(withAll.code).toBe(0);
    expect(withAll.stdout).toContain('  items.validity_prices: present (prices of items whose regular_price is 0)');
    expect(withAll.stdout).toContain('  users: 2 rows');
    expect(withAll.stdout).toContain('indexes: the follower has every index it needs');
  });

  it('check: exit 1 when a table is missing, 2 without a MarketBob database, 1 when it cannot connect', async () => {
    await legacy.query('DROP TABLE refunds');
    await legacy.query('DROP TABLE sales');
    const missing = await runCli(['marketbob', 'check'], { cwd: store.dir, env: env(legacy) });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain('  sales: MISSING TABLE');

    const none = await runCli(['marketbob', 'check'], { cwd: store.dir, env: cleanEnv(store.env) });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'no MarketBob database: set MARKETBOB_DATABASE_URL (or marketbob.url in the config file)\n',
    );

    const refused = await runCli(['marketbob', 'check'], {
      cwd: store.dir,
      env: env(legacy, { MARKETBOB_DATABASE_URL: 'mysql://root:hunter2-secret@127.0.0.1:1/none' }),
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^cannot read MarketBob at mysql:\/\/127\.0\.0\.1:1\/none: .*ECONNREFUSED/);
    expect(refused.stderr).toContain(
      "cannot connect to MarketBob's database at 127.0.0.1:1 (MARKETBOB_DATABASE_URL, or marketbob.url in MARKETPLACE_CONFIG): the connection was refused",
    );
    expect(refused.stderr).not.toContain('hunter2');
  });

  it('sync: copies, reports skipped rows by table and id, and a second run says nothing changed', async () => {
    const first = await runCli(['marketbob', 'sync'], { cwd: store.dir, env: env(current) });
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines.slice(0, 4)).toEqual([
      'accounts: 1 inserted, 0 updated, 0 unchanged',
      'items: 1 inserted, 0 updated, 0 unchanged',
      'purchases: 1 inserted, 0 updated, 0 unchanged',
      'passwords: 1 set',
    ]);
    expect(lines).toContain('skipped users 2: username is NULL or empty (our accounts are keyed by it)');
    expect(lines.at(-1)).toBe('sync done');

    const second = await runCli(['marketbob', 'sync'], { cwd: store.dir, env: env(current) });
    expect(second.code).toBe(0);
    expect(second.stdout.trim().split('\n').slice(0, 4)).toEqual([
      'accounts: 0 inserted, 0 updated, 1 unchanged',
      'items: 0 inserted, 0 updated, 1 unchanged',
      'purchases: 0 inserted, 0 updated, 1 unchanged',
      'passwords: 0 set',
    ]);
    expect(second.stdout.trim().split('\n').at(-1)).toBe(
      'sync done: nothing changed (the store already held every row)',
    );
  });
});

describe('npm run cli -- marketbob --help', () => {
  it('has help with examples on each marketbob command', async () => {
    for (const command of [['marketbob'], ['marketbob', 'check'], ['marketbob', 'sync']]) {
      let output = '';
      const program = createProgram({ loadConfig: () => loadConfig(), version: packageVersion() });
      const capture = (cmd: ReturnType<typeof createProgram>) => {
        cmd.configureOutput({ writeOut: (text) => (output += text), writeErr: (text) => (output += text) });
        cmd.exitOverride();
        for (const sub of cmd.commands) capture(sub);
      };
      capture(program);
      const error = await program.parseAsync([...command, '--help'], { from: 'user' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CommanderError);
      expect((error as CommanderError).exitCode).toBe(0);
      expect(output).toContain(`Usage: marketplace-api ${command.join(' ')}`);
      expect(output).toContain('Examples:\n  $ npm run cli -- marketbob');
    }
  });
});
