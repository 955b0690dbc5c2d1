import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { createPostgresPool, isPostgresUnavailable } from '../postgres/postgres-store.js';
import { activityPathOf, isUnavailable as isSqliteUnavailable } from '../sqlite/sqlite-store.js';
import { type ActivityDay, type ActivitySummary, type Store, StoreUnavailableError } from '../store.js';
import type { StoreLocation } from '../store-location.js';
import { type ActivityDatabase, ActivityTables } from './activity-tables.js';

/**
 * The activity tables' reads on a connection of their own, for a thread other than the one that
 * answers requests (see src/activity/activity-reports.ts): the same queries as the store's, so
 * the same answers. It never writes: on SQLite the activity file is opened read-only, on
 * PostgreSQL through a small pool of its own.
 */
export interface ActivityReader extends Pick<Store, 'activityDays' | 'activitySummaries'> {
  close(): Promise<void>;
}

/**
 * Connections of a reader's PostgreSQL pool: one. A report reads its summaries, then sketches in
 * batches, one query after the other; reports asked at once take turns, as they would for the thread.
 */
export const ACTIVITY_READER_POOL_SIZE = 1;
/**
 * How long a read waits for the file's lock (a checkpoint's, never a flush's: WAL readers do not
 * wait for writers). It waits on the reader's own thread, so no request waits with it.
 */
const READER_BUSY_TIMEOUT_MS = 1_000;

const readOnly = () => Promise.reject(new Error('the activity reader does not write'));

class GuardedReader implements ActivityReader {
  constructor(
    private readonly tables: ActivityTables,
    private readonly isUnavailable: (error: unknown) => boolean,
    readonly close: () => Promise<void>,
  ) {}

  activityDays(account: string, codeKeys: readonly string[], sinceDay: string): Promise<ActivityDay[]> {
    return this.guard(() => this.tables.days(account, codeKeys, sinceDay));
  }

  activitySummaries(account: string, sinceDay: string): Promise<ActivitySummary[]> {
    return this.guard(() => this.tables.summaries(account, sinceDay));
  }

  private async guard<T>(query: () => Promise<T>): Promise<T> {
    try {
      return await query();
    } catch (error) {
      if (this.isUnavailable(error)) throw new StoreUnavailableError({ cause: error });
      throw error;
    }
  }
}

/**
 * Opens a reader of the activity tables of the store at `location`, which must have been opened
 * (so made and migrated) by the serving process first. Not for an in-memory SQLite store, which
 * no other connection can see.
 */
export async function openActivityReader(location: StoreLocation): Promise<ActivityReader> {
  if (location.kind === 'sqlite') {
    if (location.path === ':memory:') throw new Error('an in-memory store has no activity file to read');
    const path = activityPathOf(location.path);
    // Gone (its directory taken away): the store unavailable, as the serving store says it; no path in the error.
    if (!existsSync(path)) {
      throw new StoreUnavailableError({
        cause: Object.assign(new Error('the activity file is gone'), { code: 'ENOENT' }),
      });
    }
    let sqlite: BetterSqlite3.Database;
    try {
      sqlite = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    } catch (error) {
      // The file gone (SQLITE_CANTOPEN) is the store unavailable, as for its reads.
      if (isSqliteUnavailable(error)) throw new StoreUnavailableError({ cause: error });
      throw error;
    }
    sqlite.pragma(`busy_timeout = ${READER_BUSY_TIMEOUT_MS}`);
    const db = new Kysely<ActivityDatabase>({ dialect: new SqliteDialect({ database: sqlite }) });
    return new GuardedReader(new ActivityTables(db, readOnly), isSqliteUnavailable, () => db.destroy());
  }
  const pool = createPostgresPool(location.url, ACTIVITY_READER_POOL_SIZE, location, 'reports');
  const db = new Kysely<ActivityDatabase>({ dialect: new PostgresDialect({ pool }) });
  return new GuardedReader(new ActivityTables(db, readOnly), isPostgresUnavailable, async () => {
    await db.destroy();
    if (!pool.ended) await pool.end();
  });
}
