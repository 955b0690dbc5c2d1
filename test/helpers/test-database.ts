import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import type { Dialect } from '../../src/store/dialect.js';
import { openStore } from '../../src/store/open-store.js';
import { withDefaultUser } from '../../src/store/postgres/postgres-store.js';

/** The stores a suite can run on. */
export type StoreKind = Dialect;

/** The PostgreSQL server the suite may use: any database on it; each test file gets databases of its own. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL?.trim() || undefined;

/**
 * The stores every store-dependent suite runs on, as Kysely's tests loop over dialects: SQLite
 * always, PostgreSQL when TEST_POSTGRES_URL is set (otherwise those variants do not run at all,
 * and the global setup says so once).
 */
export const TEST_STORES: readonly StoreKind[] = TEST_POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];

/** The server secret of test stores that need one given (PostgreSQL always does). */
export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef-0123456789abcdef';

/** A fresh, empty place for one store, dropped after. */
export interface TestDatabase {
  readonly kind: StoreKind;
  /** DATABASE_URL for it. */
  readonly url: string;
  /** A temp directory for the test's files (for SQLite, the database file is in it). */
  readonly dir: string;
  /** The environment a process needs to use it: DATABASE_URL, and SECRET_KEY for PostgreSQL. */
  readonly env: Readonly<Record<string, string>>;
  /** Runs SQL on it over a connection of its own (PostgreSQL only). */
  query<R extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<R[]>;
  /** Empties the store's tables (PostgreSQL only; an SQLite test takes a new database instead). */
  truncate(): Promise<void>;
  drop(): Promise<void>;
}

/** Runs `work` on a connection of its own to `url`. */
async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDefaultUser(url) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A fresh database: an SQLite file in a new temp directory, or a new PostgreSQL database
 * (`CREATE DATABASE` with a random name on TEST_POSTGRES_URL's server; `DROP ... WITH (FORCE)`
 * on drop). Creating one costs about 100 ms on PostgreSQL: make one per test file, not per test.
 */
export async function createTestDatabase(kind: StoreKind): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), `marketplace-${kind}-`));
  if (kind === 'sqlite') {
    const url = `sqlite:${join(dir, 'marketplace.db')}`;
    return {
      kind,
      url,
      dir,
      env: { DATABASE_URL: url },
      query: () => Promise.reject(new Error('query() is for PostgreSQL test databases')),
      truncate: () => Promise.reject(new Error('truncate() is for PostgreSQL test databases')),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (!TEST_POSTGRES_URL) throw new Error('PostgreSQL tests need TEST_POSTGRES_URL');
  const server = TEST_POSTGRES_URL;
  const name = `marketplace_test_${randomBytes(6).toString('hex')}`;
  await withClient(server, (client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const address = new URL(withDefaultUser(server));
  address.pathname = `/${name}`;
  const url = address.href;
  let dropped = false;
  return {
    kind,
    url,
    dir,
    env: { DATABASE_URL: url, SECRET_KEY: TEST_SECRET_KEY },
    query: (sql, values) => withClient(url, async (client) => (await client.query(sql, values)).rows),
    truncate: () =>
      withClient(url, (client) => client.query('TRUNCATE purchases, items, accounts CASCADE')).then(() => {}),
    async drop() {
      if (dropped) return;
      dropped = true;
      rmSync(dir, { recursive: true, force: true });
      await withClient(server, (client) =>
        client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`),
      );
    },
  };
}

/** Imports one active account (username `w`) holding `apiKey` into `database`, as `accounts import` would. */
export async function seedAccount(database: TestDatabase, apiKey: string): Promise<void> {
  const config = loadConfig(database.env);
  const store = await openStore(config.store);
  try {
    const line = {
      type: 'account',
      username: 'w',
      email: 'w@example.com',
      api_key: apiKey,
      registered_at: '2024-01-01T00:00:00Z',
    };
    const result = await importNdjson(store, loadKeyMaterial(config), Readable.from([JSON.stringify(line)]));
    if (!result.ok) throw new Error(`seeding the account failed: ${JSON.stringify(result)}`);
  } finally {
    await store.close();
  }
}
