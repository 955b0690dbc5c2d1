import { statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import {
  type ActivityDatabase,
  type ActivityRowAccess,
  ActivityTables,
  type PurchaseActivityRow,
} from '../activity/activity-tables.js';
import {
  type ChangeRow,
  changesFrom,
  LOGGED_TABLES,
  PRUNE_INTERVAL_MS,
  PRUNE_SQL,
  READ_LIMIT,
  READ_SQL,
  RETENTION_MS,
  StoreChanges,
  sqliteTriggers,
} from '../changes/change-log.js';
import type { Database } from '../database.js';
import { KyselyStore, migrateToLatest } from '../kysely-store.js';
import { activityMigrationProvider } from '../migrations/index.js';
import type { NamedQuery } from '../named-query.js';
import type { QueryRunner } from '../query-runner.js';
import type { Store } from '../store.js';
import { SqliteConnection } from './sqlite-connection.js';
import { prepareSqliteFile } from './sqlite-file-modes.js';
import { SqliteFileWatch } from './sqlite-file-watch.js';
import { runSqliteImport } from './sqlite-import.js';
import { ReadSnapshot } from './sqlite-read-snapshot.js';

/** SQLite error codes that mean the file cannot be used right now, rather than a bad query. */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|READONLY|CORRUPT|NOTADB|PROTOCOL)/;

export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) return true;
  // better-sqlite3 says so when a query runs after the store was closed.
  return error instanceof TypeError && /database connection is not open/.test(error.message);
}

/** How stale, at most, an answer may be after another process changed the store (see below). */
export const CHANGE_CHECK_INTERVAL_MS = 5;
/**
 * How long a statement waits for a lock another connection holds before it fails (and the request
 * answers 503). better-sqlite3 waits synchronously, holding the event loop and every other
 * request: kept short. Readers never wait in WAL mode; only this connection's writes (a key
 * rotation) can. An import writes on a connection of its own, which waits longer.
 */
export const BUSY_TIMEOUT_MS = 200;

/** Prepares each compiled query once per handle, on first use, and runs it synchronously inside the read snapshot. */
function createSqliteRunner(connection: SqliteConnection, snapshot: ReadSnapshot): QueryRunner {
  return {
    first: async <R, V>(query: NamedQuery<R, V>, values: V) => {
      snapshot.enter();
      return connection.statement(query.sql).get(...query.bind(values)) as R | undefined;
    },
    all: async <R, V>(query: NamedQuery<R, V>, values: V) => {
      snapshot.enter();
      return connection.statement(query.sql).all(...query.bind(values)) as R[];
    },
  };
}

/** The store's file and its activity file, each opened and migrated. */
interface SqliteHandles {
  readonly store: BetterSqlite3.Database;
  readonly activity: BetterSqlite3.Database;
}

/**
 * Opens (creating when needed, mode 0600) and migrates the SQLite store at `path`, whose directory
 * must exist unless `createDirectory` (see prepareSqliteFile). A store in a file watches that the
 * file is still there (see SqliteFileWatch): answers 503 while it is gone, and opens it again once
 * it is put back, on the same connections.
 */
export async function openSqliteStore(
  path: string,
  createDirectory = false,
  /**
   * How long its statements wait for another connection's lock: BUSY_TIMEOUT_MS unless given. A
   * connection that answers no request (the background writer's) may wait longer.
   */
  busyTimeoutMs = BUSY_TIMEOUT_MS,
): Promise<Store> {
  const inMemory = path === ':memory:';
  if (!inMemory) prepareSqliteFile(path, createDirectory);
  const first = await openSqliteHandles(path, true, busyTimeoutMs);
  const store = new SqliteConnection(first.store);
  const activity = new SqliteConnection(first.activity);
  const watch = inMemory
    ? undefined
    : new SqliteFileWatch<SqliteHandles>(path, statSync(path), {
        drop: () => {
          store.drop();
          activity.drop();
        },
        open: () => openSqliteHandles(path, false, busyTimeoutMs),
        take: (opened) => {
          store.swap(opened.store);
          activity.swap(opened.activity);
        },
        discard: (opened) => {
          opened.store.close();
          opened.activity.close();
        },
      });
  return sqliteStore(store, activity, watch);
}

/** Handles to the file at `path` (made when `create`) and to its activity file, both migrated. */
async function openSqliteHandles(path: string, create: boolean, busyTimeoutMs: number): Promise<SqliteHandles> {
  const store = new BetterSqlite3(path, { fileMustExist: !create });
  try {
    // WAL lets readers go on while an import writes; NORMAL sync is safe with WAL and much faster.
    store.pragma('journal_mode = WAL');
    store.pragma('synchronous = NORMAL');
    store.pragma('foreign_keys = ON');
    store.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // A bounded page cache of its own, and no memory map: mapped pages would count against the
    // process's memory, and the OS page cache serves the rest of the file nearly as fast.
    store.pragma('cache_size = -8192');
    await migrateToLatest(migrationDb<Database>(store), 'sqlite');
    installSqliteChangeLog(store);
  } catch (error) {
    store.close();
    throw error;
  }
  try {
    return { store, activity: await openActivityHandle(path === ':memory:' ? path : activityPathOf(path)) };
  } catch (error) {
    store.close();
    throw error;
  }
}

/**
 * A Kysely over the handle for migrating it, never destroyed: the handle lives on in the store's
 * connection (Kysely leaves a database it was given alone unless destroyed).
 */
function migrationDb<D>(handle: BetterSqlite3.Database): Kysely<D> {
  return new Kysely<D>({ dialect: new SqliteDialect({ database: handle }) });
}

/** The store over its connections, each handle's statements prepared again after a reopening. */
function sqliteStore(
  connection: SqliteConnection,
  activityConnection: SqliteConnection,
  watch: SqliteFileWatch<SqliteHandles> | undefined,
): Store {
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: connection }) });
  const activity = sqliteActivity(activityConnection);
  const snapshot = new ReadSnapshot(connection, CHANGE_CHECK_INTERVAL_MS);
  const feed = sqliteChangeFeed(connection, snapshot);
  return new KyselyStore(db, {
    dialect: 'sqlite',
    runner: createSqliteRunner(connection, snapshot),
    isUnavailable,
    changes: (now = performance.now()) => {
      watch?.check(now);
      return feed.changes(now);
    },
    ownWrite: () => feed.ownWrite(),
    endReadSnapshot: () => snapshot.end(),
    activity: activity.tables,
    runImport: (work) => runSqliteImport(connection.handle(), work),
    close: async () => {
      feed.close();
      snapshot.end();
      await watch?.close();
      await activity.close();
      await db.destroy();
      // Also when Kysely never ran a query, so never took the connection to close it.
      connection.close();
    },
  });
}

/**
 * The change log's triggers (see change-log.ts), made again only where a table's columns or the
 * list of logged tables changed, so that opening a store usually writes nothing.
 */
function installSqliteChangeLog(sqlite: BetterSqlite3.Database): void {
  const stored = new Map(
    sqlite
      .prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
      .all()
      .map((row) => [row.name, row.sql]),
  );
  const wanted = new Map<string, string>();
  for (const logged of LOGGED_TABLES) {
    const columns = sqlite
      .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${logged.table}')`)
      .all()
      .map((column) => column.name);
    for (const [name, definition] of sqliteTriggers(logged, columns)) wanted.set(name, definition);
  }
  const stale = [...wanted].filter(([name, definition]) => stored.get(name) !== definition);
  if (stale.length === 0) return;
  sqlite
    .transaction(() => {
      for (const [name, definition] of stale) {
        sqlite.exec(`DROP TRIGGER IF EXISTS ${name}`);
        sqlite.exec(definition);
      }
    })
    .immediate();
}

interface SqliteChangeFeed {
  changes(now?: number): StoreChanges | undefined;
  ownWrite(): void;
  close(): void;
}

/**
 * What changed, as the change log says. SQLite counts commits made by other connections (the CLI,
 * an import, another process) in data_version: the cheap "maybe" asked first, at most once per
 * CHANGE_CHECK_INTERVAL_MS (asking takes a lock round trip, a measurable share of a request under
 * load), so a change made elsewhere is seen by every request that starts that long after its
 * commit. Only when it moved is the log read, from the last entry read: a commit that logged
 * nothing (a session, key usage, webhook bookkeeping) costs that one read. This connection's own
 * writes do not move it: they ask for the read themselves (ownWrite).
 */
function sqliteChangeFeed(connection: SqliteConnection, snapshot: ReadSnapshot): SqliteChangeFeed {
  const dataVersion = connection.prepared((sqlite) => sqlite.prepare('PRAGMA data_version').pluck());
  const read = connection.prepared((sqlite) => sqlite.prepare<[number, number], ChangeRow>(READ_SQL('?', '?')));
  const newest = connection.prepared((sqlite) => sqlite.prepare<[], number>('SELECT max(seq) FROM change_log').pluck());
  const stale = connection.prepared((sqlite) =>
    sqlite
      .prepare<[number]>('SELECT 1 FROM change_log WHERE at < ? AND seq < (SELECT max(seq) FROM change_log) LIMIT 1')
      .pluck(),
  );
  const prune = connection.prepared((sqlite) => sqlite.prepare<[number]>(PRUNE_SQL('?')));
  /** The handle the positions below were read on: another one is a file put back, whose log is its own. */
  let readOn = connection.handle();
  let last = newest().get() ?? 0;
  let lastVersion = dataVersion().get();
  let nextCheck = 0;
  let ownWrite = false;
  // Pruned only when there is something to prune: a quiet store writes nothing.
  const pruning = setInterval(() => {
    try {
      if (!connection.isOpen) return;
      snapshot.end();
      // A write of this connection's own is under way.
      if (connection.handle().inTransaction) return;
      const cutoff = Date.now() - RETENTION_MS;
      if (stale().get(cutoff) !== undefined) prune().run(cutoff);
    } catch {
      // Busy or gone: tried again next time.
    }
  }, PRUNE_INTERVAL_MS);
  pruning.unref();
  return {
    changes(now = performance.now()) {
      // Unavailable while the file is gone, even between two checks: no answer from the caches then.
      const handle = connection.handle();
      if (handle !== readOn) {
        // Reopened: whatever the caches hold may differ in the file put back.
        readOn = handle;
        snapshot.end();
        last = newest().get() ?? 0;
        lastVersion = dataVersion().get();
        ownWrite = false;
        nextCheck = now + CHANGE_CHECK_INTERVAL_MS;
        return StoreChanges.everything();
      }
      if (!ownWrite && now < nextCheck) return undefined;
      nextCheck = now + CHANGE_CHECK_INTERVAL_MS;
      // Outside any snapshot, so the version and the log are today's.
      snapshot.end();
      const version = dataVersion().get();
      if (version === lastVersion && !ownWrite) return undefined;
      lastVersion = version;
      ownWrite = false;
      const result = changesFrom(read().all(last, READ_LIMIT + 2), last, () => newest().get() ?? 0);
      last = result.last;
      return result.changes;
    },
    ownWrite() {
      ownWrite = true;
    },
    close() {
      clearInterval(pruning);
    },
  };
}

/**
 * Where an SQLite store's activity tables live: a file beside the store's, `marketplace-activity.db`
 * for `marketplace.db`. Not the store's own file: every commit there changes its data_version,
 * which makes every other process (WORKERS, the CLI) read the change log, and activity is flushed
 * every few seconds by every process.
 */
export function activityPathOf(storePath: string): string {
  const extension = extname(storePath);
  return join(dirname(storePath), `${basename(storePath, extension)}-activity${extension || '.db'}`);
}

/**
 * How a write to the activity file waits for another process's (a flush is one transaction, held
 * a little longer while requests are answered between its rows):
 * asleep between tries, not in SQLite's busy handler, which would hold this process's event loop
 * and every request with it. About a second in all; then the flush fails and is tried again later.
 */
const ACTIVITY_WRITE_TRIES = 50;
const ACTIVITY_WRITE_RETRY_MS = 20;

const isBusy = (error: unknown) => (error as { code?: unknown }).code === 'SQLITE_BUSY';

interface SqliteActivity {
  readonly tables: ActivityTables;
  close(): Promise<void>;
}

/** Opens (making it, mode 0600) and migrates the activity file at `path`, a handle of its own. */
async function openActivityHandle(path: string): Promise<BetterSqlite3.Database> {
  if (path !== ':memory:') prepareSqliteFile(path, false);
  const sqlite = new BetterSqlite3(path);
  try {
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 0');
    // Room for a flush's dirty pages (today's rows of every code validated),
    // which would otherwise spill to the log before the commit.
    sqlite.pragma('cache_size = -8192');
    const migrator = new Migrator({ db: migrationDb(sqlite), provider: activityMigrationProvider() });
    const { error } = await migrator.migrateToLatest();
    if (error) throw error;
  } catch (error) {
    sqlite.close();
    throw error;
  }
  return sqlite;
}

/** The activity tables over their connection, each handle's statements prepared again after a reopening. */
function sqliteActivity(connection: SqliteConnection): SqliteActivity {
  const db = new Kysely<ActivityDatabase>({ dialect: new SqliteDialect({ database: connection }) });
  // One connection, which Kysely lends to one caller at a time: BEGIN IMMEDIATE takes the file's
  // write lock at once (a deferred transaction that reads first could not take it after another
  // process wrote, and would fail rather than wait).
  const find = connection.prepared((sqlite) =>
    sqlite.prepare<[string, string, string], PurchaseActivityRow>(
      'SELECT * FROM purchase_activity WHERE account = ? AND code_key = ? AND day = ?',
    ),
  );
  const put = connection.prepared((sqlite) =>
    sqlite.prepare<[PurchaseActivityRow], { rowid: number }>(
      'INSERT INTO purchase_activity (account, code_key, day, validations, networks, first_seen, last_seen, sketch) ' +
        'VALUES (@account, @code_key, @day, @validations, @networks, @first_seen, @last_seen, @sketch) ' +
        'ON CONFLICT (account, code_key, day) DO UPDATE SET validations = excluded.validations, ' +
        'networks = excluded.networks, first_seen = excluded.first_seen, last_seen = excluded.last_seen, ' +
        'sketch = excluded.sketch RETURNING rowid',
    ),
  );
  const COUNTS =
    'UPDATE purchase_activity SET validations = validations + ?, first_seen = min(first_seen, ?), last_seen = max(last_seen, ?)';
  // By the row the day was written to (one search of the table by an integer): a flush takes less
  // time than by key (the primary key's index, then the table). The key is checked all the
  // same: a row id may change (VACUUM) or come back for another day once its own is dropped.
  const addCountsAt = connection.prepared((sqlite) =>
    sqlite.prepare<[number, number, number, number, string, string, string]>(
      `${COUNTS} WHERE rowid = ? AND account = ? AND code_key = ? AND day = ?`,
    ),
  );
  const addCounts = connection.prepared((sqlite) =>
    sqlite.prepare<[number, number, number, string, string, string], { rowid: number }>(
      `${COUNTS} WHERE account = ? AND code_key = ? AND day = ? RETURNING rowid`,
    ),
  );
  const rows: ActivityRowAccess = {
    find: (account, codeKey, day) => find().get(account, codeKey, day),
    put: (row) => (put().get(row) as { rowid: number }).rowid,
    addCounts: ({ storedRow, validations, firstSeen, lastSeen, account, codeKey, day }) => {
      if (
        storedRow !== undefined &&
        addCountsAt().run(validations, firstSeen, lastSeen, storedRow, account, codeKey, day).changes > 0
      ) {
        return storedRow;
      }
      return addCounts().get(validations, firstSeen, lastSeen, account, codeKey, day)?.rowid;
    },
  };
  const tables = new ActivityTables(
    db,
    (work) =>
      db.connection().execute(async (executor) => {
        for (let tries = 1; ; tries++) {
          try {
            await sql`BEGIN IMMEDIATE`.execute(executor);
            break;
          } catch (error) {
            if (!isBusy(error) || tries >= ACTIVITY_WRITE_TRIES) throw error;
            await new Promise((resolve) => setTimeout(resolve, ACTIVITY_WRITE_RETRY_MS));
          }
        }
        try {
          const result = await work(executor);
          await sql`COMMIT`.execute(executor);
          return result;
        } catch (error) {
          // Not when the file went away meanwhile: its handle, and the transaction, are gone.
          if (connection.isOpen && connection.handle().inTransaction) await sql`ROLLBACK`.execute(executor);
          throw error;
        }
      }),
    rows,
  );
  return {
    tables,
    close: async () => {
      await db.destroy();
      connection.close();
    },
  };
}
