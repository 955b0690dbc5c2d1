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
    legacy = await createMarketbobDatabase({ validity: false, discounts: false });
    current = await createMarketbobDatabase({ validity: true, followerIndexes: true, deletionLog: true });
    await insertSettings(current, false);
    await current.insert('settings', { key: 'general', value: JSON.stringify({ timezone: 'America/New_York' }) });
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
    expect(lines).toContain("  items.validity_prices: absent (not served (MarketBob's API ignores it))");
    expect(lines).toContain('  item_discounts: absent (the price while a discount is active)');
    expect(lines).toContain(
      '  marketbob_api_deletions: absent (deletions followed within a poll (without it: within reconcileMinutes))',
    );
    expect(lines).toContain('  CREATE INDEX marketbob_follow_users_updated_at ON users (updated_at);');
    expect(lines).toContain('  CREATE INDEX marketbob_follow_purchases_updated_at ON purchases (updated_at);');
    // The statements that create the deletion log, for the mysql client.
    const ddl = lines.indexOf('  DELIMITER //');
    expect(lines[ddl - 1]).toMatch(/^deletions: MarketBob leaves no trace of a deleted row; to follow them/);
    expect(lines[ddl + 1]).toBe('  CREATE TABLE marketbob_api_deletions (');
    expect(lines).toContain('  CREATE TRIGGER marketbob_api_users_deleted BEFORE DELETE ON users FOR EACH ROW BEGIN');
    expect(lines).not.toContain(expect.stringContaining('item_discounts_deleted'));
    expect(lines).toContain('  DELIMITER ;');
    // No general.timezone setting: UTC.
    expect(lines).toContain("  time zone: UTC (neither the config nor MarketBob's general.timezone names one)");
    expect(lines.at(-1)).toBe('ok: a sync can read this database');

    const withAll = await runCli(['marketbob', 'check'], { cwd: store.dir, env: env(current) });
    expect(withAll.code).toBe(0);
    const all = withAll.stdout.trim().split('\n');
    expect(all).toContain("  items.validity_prices: present (not served (MarketBob's API ignores it))");
    expect(all).toContain('  item_discounts: present (the price while a discount is active)');
    expect(withAll.stdout).toContain('  users: 2 rows');
    expect(all).toContain('indexes: the follower has every index it needs');
    expect(all).toContain(
      'deletions: followed through marketbob_api_deletions; its triggers: marketbob_api_users_deleted, marketbob_api_items_deleted, marketbob_api_purchases_deleted, marketbob_api_item_discounts_deleted',
    );
    expect(all.slice(all.indexOf('settings:'))).toEqual([
      'settings:',
      "  time zone: America/New_York (from MarketBob's general.timezone setting)",
      '  currency: USD',
      '  support dates: not shown (item.support_status)',
      "  MarketBob's API: on (actions.api)",
      "warning: the variant pt serves BRL and MarketBob's currency.code is USD",
      'ok: a sync can read this database',
    ]);

    // The config's zone overrides the setting's, with a warning.
    const lisbon = await runCli(['marketbob', 'check'], {
      cwd: store.dir,
      env: env(current, { MARKETBOB_TIMEZONE: 'Europe/Lisbon' }),
    });
    const overridden = lisbon.stdout.trim().split('\n');
    expect(overridden).toContain(
      '  time zone: Europe/Lisbon (from MARKETBOB_TIMEZONE / marketbob.timezone, over the general.timezone setting)',
    );
    expect(overridden).toContain(
      "warning: the configured time zone Europe/Lisbon differs from MarketBob's general.timezone America/New_York: dates are read in Europe/Lisbon",
    );
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

  it('unlink: refused while the bridge is configured, unless --force; an account not linked is said so', async () => {
    const refused = await runCli(['marketbob', 'unlink'], { cwd: store.dir, env: env(current) });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      'refused: the bridge is configured (MARKETBOB_DATABASE_URL or marketbob.url), and its next sync or poll links the accounts again; unset it first, or pass --force\n',
    );
    const unknown = await runCli(['marketbob', 'unlink', 'nobody', '--force'], { cwd: store.dir, env: env(current) });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('account "nobody" is not linked to MarketBob: nothing done\n');
    // Still linked: its key is MarketBob's.
    const rotateRefused = await runCli(['keys', 'rotate', 'seller'], { cwd: store.dir, env: cleanEnv(store.env) });
    expect(rotateRefused.code).toBe(1);
  });

  it('unlink: one account, whose key is then generated here; then none is left', async () => {
    const bridgeless = cleanEnv(store.env);

    const one = await runCli(['marketbob', 'unlink', 'seller', '--force'], { cwd: store.dir, env: env(current) });
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(
      'unlinked seller\nunlinked 1 account from MarketBob: their keys can be generated here again\n',
    );
    const rotated = await runCli(['keys', 'rotate', 'seller'], { cwd: store.dir, env: bridgeless });
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/^[0-9a-f]{64}\n$/);

    const none = await runCli(['marketbob', 'unlink'], { cwd: store.dir, env: bridgeless });
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('no account is linked to MarketBob: nothing done\n');
  });
});

describe('npm run cli -- marketbob --help', () => {
  it('has help with examples on each marketbob command', async () => {
    for (const command of [['marketbob'], ['marketbob', 'check'], ['marketbob', 'sync'], ['marketbob', 'unlink']]) {
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
