import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_KEY_COLUMNS, ACCOUNTS } from '../../src/records/account-table.js';
import { ITEMS } from '../../src/records/item-table.js';
import { PURCHASES } from '../../src/records/purchase-table.js';
import type { ColumnName } from '../../src/records/record-table.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

/** Every column of each table as the record tables define it, in order: what the migrations must have made. */
const DEFINED: Record<string, ColumnName[]> = {
  // The key columns came with the first migration; `marketbob` (migration 0010) after them.
  accounts: [
    ...ACCOUNTS.columns.filter((column) => column.name !== 'marketbob'),
    ...Object.entries(ACCOUNT_KEY_COLUMNS).map(([name, column]) => ({ name, sql: column.sql })),
    { name: 'marketbob', sql: 'text' },
  ],
  items: [...ITEMS.columns],
  purchases: [...PURCHASES.columns],
};

describe.each(TEST_STORES)('record tables and the migrated schema (%s)', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    // Opening a store runs the migrations.
    const store =
      kind === 'sqlite'
        ? await openSqliteStore(join(database.dir, 'store.db'))
        : await openPostgresStore(database.url, { poolSize: 1 });
    await store.close();
  });
  afterAll(async () => {
    await database.drop();
  });

  /** The live table's columns, in order, with their declared types. */
  async function liveColumns(table: string): Promise<{ name: string; sql: string }[]> {
    if (kind === 'postgres') {
      const rows = await database.query<{ name: string; sql: string }>(
        `SELECT column_name AS name, data_type AS sql FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      return rows.map(({ name, sql }) => ({ name, sql }));
    }
    const db = new BetterSqlite3(join(database.dir, 'store.db'), { readonly: true });
    try {
      const rows = db.prepare(`SELECT name, type FROM pragma_table_info(?) ORDER BY cid`).all(table) as {
        name: string;
        type: string;
      }[];
      return rows.map(({ name, type }) => ({ name, sql: type.toLowerCase() }));
    } finally {
      db.close();
    }
  }

  it.each(Object.keys(DEFINED))(
    '%s has exactly the columns its record table defines, in order and type',
    async (table) => {
      expect(await liveColumns(table)).toEqual(DEFINED[table]);
    },
  );

  /** The live table's primary key columns. */
  async function livePrimaryKey(table: string): Promise<string[]> {
    if (kind === 'postgres') {
      const rows = await database.query<{ name: string }>(
        `SELECT k.column_name AS name FROM information_schema.table_constraints c
         JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
         WHERE c.table_schema = current_schema() AND c.table_name = $1 AND c.constraint_type = 'PRIMARY KEY'
         ORDER BY k.ordinal_position`,
        [table],
      );
      return rows.map((row) => row.name);
    }
    const db = new BetterSqlite3(join(database.dir, 'store.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').all(table);
      return (rows as { name: string }[]).map((row) => row.name);
    } finally {
      db.close();
    }
  }

  it.each([ACCOUNTS, ITEMS, PURCHASES].map((record) => [record.table, record.key]))(
    '%s is keyed by %s, the natural key its record table names',
    async (table, key) => {
      expect(await livePrimaryKey(table)).toEqual([key]);
    },
  );
});
