import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SqliteConnection } from '../../src/store/sqlite/sqlite-connection.js';
import { StoreUnavailableError } from '../../src/store/store.js';

/** A file with one table holding `value`, and a handle to it. */
function fileHolding(value: number): BetterSqlite3.Database {
  const handle = new BetterSqlite3(join(mkdtempSync(join(tmpdir(), 'connection-')), 'store.db'));
  handle.exec('CREATE TABLE t (v INTEGER)');
  handle.prepare('INSERT INTO t VALUES (?)').run(value);
  return handle;
}

/** The reason a call was unavailable with. */
function unavailableReason(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreUnavailableError);
    return (error as StoreUnavailableError).cause.message;
  }
  throw new Error('the call was not refused');
}

describe('SqliteConnection', () => {
  it("answers Kysely's queries on the handle open now, through a swap", async () => {
    const first = fileHolding(1);
    const connection = new SqliteConnection(first);
    const db = new Kysely<{ t: { v: number } }>({ dialect: new SqliteDialect({ database: connection }) });
    expect(await db.selectFrom('t').select('v').execute()).toEqual([{ v: 1 }]);
    connection.swap(fileHolding(2));
    expect(first.open).toBe(false);
    expect(await db.selectFrom('t').select('v').execute()).toEqual([{ v: 2 }]);
    await db.destroy();
    expect(unavailableReason(() => connection.handle())).toBe('the store is closed');
  });

  it('is unavailable while it has no handle, naming no path', async () => {
    const connection = new SqliteConnection(fileHolding(1));
    const db = new Kysely<{ t: { v: number } }>({ dialect: new SqliteDialect({ database: connection }) });
    connection.drop();
    expect(connection.isOpen).toBe(false);
    expect(unavailableReason(() => connection.statement('SELECT v FROM t'))).toBe('the database file is gone');
    await expect(sql`SELECT v FROM t`.execute(db)).rejects.toBeInstanceOf(StoreUnavailableError);
    connection.swap(fileHolding(3));
    expect((await sql<{ v: number }>`SELECT v FROM t`.execute(db)).rows).toEqual([{ v: 3 }]);
    connection.close();
  });

  it('prepares its statements once per handle', () => {
    const connection = new SqliteConnection(fileHolding(1));
    const plucked = connection.prepared((handle) => handle.prepare('SELECT v FROM t').pluck());
    const statement = connection.statement('SELECT v FROM t');
    expect(connection.statement('SELECT v FROM t')).toBe(statement);
    expect(plucked()).toBe(plucked());
    expect(plucked().get()).toBe(1);
    const kept = plucked();
    connection.swap(fileHolding(2));
    expect(connection.statement('SELECT v FROM t')).not.toBe(statement);
    expect(connection.statement('SELECT v FROM t').get()).toEqual({ v: 2 });
    expect(plucked()).not.toBe(kept);
    expect(plucked().get()).toBe(2);
    connection.close();
  });
});
