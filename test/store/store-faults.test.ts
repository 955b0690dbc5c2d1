import { copyFileSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import type { LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDefaultUser } from '../../src/store/postgres/postgres-store.js';
import { StoreUnavailableError } from '../../src/store/store.js';
import { expectError } from '../api/http-assertions.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { TEST_POSTGRES_URL } from '../helpers/test-database.js';

/**
 * The store failing under a running app, for real: the SQLite file locked by another writer or
 * taken away, PostgreSQL's connections terminated, its statements too slow, the server out of
 * reach. The API answers 503 in the contract's envelope within a bounded time, and by itself again
 * once the fault ends; no error-level log line carries SQL, a path or a key.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const [EN] = VARIANTS;
const keyOf = (n: number) => `fault-key-${n}-0123456789abcdef`;
const account = (n: number) => ({
  type: 'account',
  username: `seller${n}`,
  email: `seller${n}@example.com`,
  api_key: keyOf(n),
  registered_at: '2024-01-01T00:00:00Z',
});
/** Enough accounts that each case can ask for one no cache holds yet. */
const ACCOUNTS = Array.from({ length: 12 }, (_, n) => account(n));

const details = (t: TestApp, key: string) =>
  t.app.inject({ url: '/api/account/details', headers: { 'x-api-key': key } });

/** A timed answer. */
async function timed(ask: () => Promise<LightMyRequestResponse>): Promise<[LightMyRequestResponse, number]> {
  const start = performance.now();
  const response = await ask();
  return [response, performance.now() - start];
}

/**
 * Asks until `done` holds of the answer, each answer being a 200 or the exact 503; fails past
 * `deadlineMs`. The fault (or its end) is noticed by requests themselves, so requests are the wait.
 */
async function until(
  ask: () => Promise<LightMyRequestResponse>,
  done: (response: LightMyRequestResponse) => boolean,
  deadlineMs = 5_000,
): Promise<LightMyRequestResponse> {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    const response = await ask();
    if (done(response)) return response;
    if (response.statusCode !== 200) expectError(response, EN, 503, EN.messages.serviceUnavailable);
    if (performance.now() > deadline) throw new Error(`still ${response.statusCode} after ${deadlineMs} ms`);
    // Lets timers and sockets run between two requests.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** How late a 10 ms timer fires. */
/**
 * What "bounded" means in these tests: well under what an unbounded wait would take (SQLite's
 * old 5 s busy timeout, a statement with no timeout, a connection attempt left to the kernel),
 * and loose enough for a shared, loaded machine. These bound waits; they measure no speed.
 */
const BOUND_MS = 4_000;

const timerLag = () =>
  new Promise<number>((resolve) => {
    const start = performance.now();
    setTimeout(() => resolve(performance.now() - start - 10), 10);
  });

const is503 = (response: LightMyRequestResponse) => response.statusCode === 503;
const is200 = (response: LightMyRequestResponse) => response.statusCode === 200;

/** The app's error-level lines: some there are, and none tells SQL, a path, a key or a stack. */
function expectCleanErrorLines(t: TestApp, secrets: readonly string[]): void {
  const errors = t.logs.map((line) => JSON.parse(line) as { level: number }).filter((line) => line.level >= 50);
  expect(errors.length).toBeGreaterThan(0);
  for (const line of errors) {
    const text = JSON.stringify(line);
    expect(text).not.toMatch(/\b(select|insert|update|delete)\b/i);
    expect(text).not.toContain(ROOT);
    expect(text).not.toContain(t.dir);
    expect(text).not.toMatch(/"stack":"[^"]/);
    for (const secret of secrets) expect(text).not.toContain(secret);
  }
}

describe('faults of an SQLite store', () => {
  let t: TestApp;
  let path: string;
  const backup = join(mkdtempSync(join(tmpdir(), 'marketplace-backup-')), 'backup.db');

  beforeAll(async () => {
    t = await createTestApp('sqlite', { lines: ACCOUNTS, logLevel: 'warn' });
    path = (t.config.store as { path: string }).path;
    const copier = new BetterSqlite3(path);
    copier.exec(`VACUUM INTO '${backup}'`);
    copier.close();
  });
  afterAll(async () => {
    await t.close();
    rmSync(dirname(backup), { recursive: true, force: true });
  });

  it('goes on answering at once while another writer holds the lock (WAL), and sees its commit after', async () => {
    const writer = new BetterSqlite3(path);
    writer.exec('BEGIN EXCLUSIVE');
    writer.prepare("UPDATE accounts SET firstname = 'Locked' WHERE username = 'seller0'").run();
    try {
      const [response, ms] = await timed(() => details(t, keyOf(0)));
      expect(response.statusCode).toBe(200);
      expect(ms).toBeLessThan(BOUND_MS);
      // A write of the app's own connection waits BUSY_TIMEOUT_MS at most (synchronously), then gives up.
      const started = performance.now();
      await expect(
        t.store.replaceAccountKey('seller1', { digest: 'd'.repeat(43), cipher: 'c'.repeat(40) }),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(performance.now() - started).toBeLessThan(BOUND_MS);
    } finally {
      writer.exec('COMMIT');
      writer.close();
    }
    const seen = await until(
      () => details(t, keyOf(0)),
      (r) => r.body.includes('"firstname":"Locked"'),
    );
    expect(seen.statusCode).toBe(200);
  });

  it('answers 503 once the file is deleted, and by itself again once it is put back', async () => {
    expect((await details(t, keyOf(2))).statusCode).toBe(200);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
    await until(() => details(t, keyOf(2)), is503);
    // Every answer is a prompt 503 now, cached account or not.
    for (const key of [keyOf(2), keyOf(3)]) {
      const [response, ms] = await timed(() => details(t, key));
      expectError(response, EN, 503, EN.messages.serviceUnavailable);
      expect(ms).toBeLessThan(BOUND_MS);
    }
    copyFileSync(backup, path);
    await until(() => details(t, keyOf(3)), is200);
    expect((await details(t, keyOf(2))).statusCode).toBe(200);
  });

  it('answers 503 once its directory is removed, and by itself again once it is back', async () => {
    expect((await details(t, keyOf(4))).statusCode).toBe(200);
    rmSync(dirname(path), { recursive: true });
    await until(() => details(t, keyOf(4)), is503);
    expectError(await details(t, keyOf(5)), EN, 503, EN.messages.serviceUnavailable);
    mkdirSync(dirname(path));
    copyFileSync(backup, path);
    await until(() => details(t, keyOf(5)), is200);
    expect((await details(t, keyOf(4))).statusCode).toBe(200);
  });

  it('takes a file restored over its own (another file at the path), and writes go to that one', async () => {
    const before = await details(t, keyOf(6));
    expect(before.statusCode).toBe(200);
    expect(before.body).not.toContain('Restored');
    const restored = join(dirname(path), 'restored.db');
    copyFileSync(backup, restored);
    const editor = new BetterSqlite3(restored);
    editor.prepare("UPDATE accounts SET firstname = 'Restored' WHERE username = 'seller6'").run();
    editor.close();
    for (const file of [`${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
    renameSync(restored, path);
    const seen = await until(
      () => details(t, keyOf(6)),
      (r) => r.body.includes('"firstname":"Restored"'),
    );
    expect(seen.statusCode).toBe(200);
    // The store's own write lands in the file now at the path, on the same store object.
    expect(await t.store.setAccountStatus('seller7', 'suspended')).toBe(true);
    const reader = new BetterSqlite3(path, { readonly: true });
    try {
      expect(reader.prepare("SELECT status FROM accounts WHERE username = 'seller7'").pluck().get()).toBe('suspended');
    } finally {
      reader.close();
    }
  });

  it('logged no SQL, path or key at error level', () => {
    expectCleanErrorLines(
      t,
      ACCOUNTS.map((a) => a.api_key),
    );
  });
});

const STATEMENT_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 500;

describe.each(TEST_STORES.filter((kind) => kind === 'postgres'))('faults of a PostgreSQL store (%s)', (kind) => {
  let t: TestApp;
  let proxy: TcpProxy;
  /** A connection of the test's own, straight to the server. */
  let direct: pg.Client;
  let database = '';

  beforeAll(async () => {
    const server = new URL(withDefaultUser(TEST_POSTGRES_URL as string));
    proxy = new TcpProxy(server.hostname, Number(server.port || 5432));
    await proxy.listen();
    let realUrl = '';
    t = await createTestApp(kind, {
      lines: ACCOUNTS,
      logLevel: 'warn',
      rewriteEnv: (env) => {
        realUrl = env.DATABASE_URL as string;
        const proxied = new URL(realUrl);
        proxied.hostname = '127.0.0.1';
        proxied.port = String(proxy.port);
        return {
          ...env,
          DATABASE_URL: proxied.href,
          DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
          DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        };
      },
    });
    database = new URL(realUrl).pathname.slice(1);
    direct = new pg.Client({ connectionString: realUrl });
    await direct.connect();
  });
  afterAll(async () => {
    await direct?.end();
    await t?.close();
    await proxy?.close();
  });

  /** The app's server processes (pool and change listener) on the test's database. */
  const appBackends = async (where = 'true', client = direct, name = database) =>
    (
      await client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'marketplace-api:%' AND ${where}`,
        [name],
      )
    ).rows.map((row) => row.pid);
  /** Runs `work` while the test holds the accounts table locked: the app's account lookups wait. */
  const withAccountsLocked = async <T>(work: () => Promise<T>, client = direct): Promise<T> => {
    await client.query('BEGIN');
    await client.query('LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE');
    try {
      return await work();
    } finally {
      await client.query('ROLLBACK');
    }
  };

  it('answers 503 when a statement outlives the statement timeout, and 200 once the store is quick again', async () => {
    const [response, ms] = await withAccountsLocked(() => timed(() => details(t, keyOf(0))));
    expectError(response, EN, 503, EN.messages.serviceUnavailable);
    expect(ms).toBeGreaterThanOrEqual(STATEMENT_TIMEOUT_MS - 50);
    expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + BOUND_MS);
    expect((await details(t, keyOf(0))).statusCode).toBe(200);
  });

  it("answers 503 when the app's connections are terminated, and 200 by itself after", async () => {
    // An app of its own whose statements never time out here: on a loaded machine the wait for the
    // lock can outlast the shared app's 1 s, and then the timeout, not the termination, ends it.
    const own = await createTestApp(kind, {
      lines: ACCOUNTS,
      logLevel: 'warn',
      rewriteEnv: (env) => ({ ...env, DATABASE_STATEMENT_TIMEOUT_MS: '600000' }),
    });
    const ownDirect = new pg.Client({ connectionString: own.env.DATABASE_URL });
    await ownDirect.connect();
    const ownDatabase = new URL(own.env.DATABASE_URL as string).pathname.slice(1);
    try {
      const response = await withAccountsLocked(async () => {
        const answer = details(own, keyOf(1));
        // Until the lookup waits on the lock: then it is in flight on a connection about to be cut.
        while ((await appBackends("wait_event_type = 'Lock'", ownDirect, ownDatabase)).length === 0) {
          await new Promise((resolve) => setImmediate(resolve));
        }
        await ownDirect.query(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name LIKE 'marketplace-api:%'",
          [ownDatabase],
        );
        return answer;
      }, ownDirect);
      expectError(response, EN, 503, EN.messages.serviceUnavailable);
      // It was the termination (57P01) that was logged.
      expect(own.logs.join('')).toContain('"code":"57P01"');
      await until(() => details(own, keyOf(1)), is200);
      expect((await details(own, keyOf(0))).statusCode).toBe(200);
      expectCleanErrorLines(
        own,
        ACCOUNTS.map((a) => a.api_key),
      );
    } finally {
      await ownDirect.end();
      await own.close();
    }
  });

  it('answers 503 at once while the server refuses connections, cached keys included, and 200 by itself after', async () => {
    expect((await details(t, keyOf(2))).statusCode).toBe(200);
    await proxy.refuse();
    for (const key of [keyOf(3), keyOf(2)]) {
      const [response, ms] = await timed(() => details(t, key));
      expectError(response, EN, 503, EN.messages.serviceUnavailable);
      expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS + BOUND_MS);
    }
    await proxy.restore();
    await until(() => details(t, keyOf(3)), is200);
    expect((await details(t, keyOf(2))).statusCode).toBe(200);
  });

  it('answers 503 within the timeouts while the server says nothing at all, and 200 by itself after', async () => {
    expect((await details(t, keyOf(4))).statusCode).toBe(200);
    proxy.silence();
    for (const key of [keyOf(5), keyOf(6)]) {
      const pending = timed(() => details(t, key));
      // The event loop is free while the request waits: a timer set now fires on time.
      expect(await timerLag()).toBeLessThan(BOUND_MS);
      const [response, ms] = await pending;
      expectError(response, EN, 503, EN.messages.serviceUnavailable);
      // A pooled connection gives up a second past the statement timeout; a new one after the connect timeout.
      expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1_000 + BOUND_MS);
    }
    await proxy.restore();
    await until(() => details(t, keyOf(5)), is200);
    expect((await details(t, keyOf(4))).statusCode).toBe(200);
  });

  it('logged no SQL, path or key at error level', async () => {
    expect(await appBackends()).not.toHaveLength(0);
    expectCleanErrorLines(
      t,
      ACCOUNTS.map((a) => a.api_key),
    );
  });
});
