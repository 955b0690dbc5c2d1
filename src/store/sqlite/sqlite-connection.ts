import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { StoreUnavailableError } from '../store.js';

/** Why a connection has no handle: its file is gone (no path said: it may be logged), or it was closed. */
export type Unopened = 'gone' | 'closed';

const reasons: Record<Unopened, string> = {
  gone: 'the database file is gone',
  closed: 'the store is closed',
};

/**
 * A store's connection to one SQLite file, whose handle may be given up while the file is gone and
 * replaced by one to the file put back (see SqliteFileWatch). Whatever prepares statements asks it
 * for the handle open now: Kysely, through the SqliteDatabase interface it implements, and the
 * store's own prepared statements, through `prepared` and `statement`, which prepare them again on
 * a new handle. While there is none, every statement is unavailable (503).
 */
export class SqliteConnection implements SqliteDatabase {
  private current: BetterSqlite3.Database | undefined;
  private unopened: Unopened = 'gone';
  private statements = new Map<string, BetterSqlite3.Statement>();
  private statementsOn: BetterSqlite3.Database | undefined;

  constructor(first: BetterSqlite3.Database) {
    this.current = first;
  }

  /** The handle open now; StoreUnavailableError while there is none. */
  handle(): BetterSqlite3.Database {
    if (this.current !== undefined) return this.current;
    const reason = new Error(reasons[this.unopened]);
    throw new StoreUnavailableError({
      cause: this.unopened === 'gone' ? Object.assign(reason, { code: 'ENOENT' }) : reason,
    });
  }

  /** Whether a handle is open now. */
  get isOpen(): boolean {
    return this.current !== undefined;
  }

  /**
   * Gives up the handle (closing it at once: see SqliteFileWatch for why before another opens).
   * A transaction under way on it is rolled back, and its next statement is unavailable.
   */
  drop(reason: Unopened = 'gone'): void {
    const old = this.current;
    this.current = undefined;
    this.unopened = reason;
    if (old?.open) old.close();
  }

  /** Takes a handle to the file put back, opened and migrated. */
  swap(next: BetterSqlite3.Database): void {
    this.drop();
    this.current = next;
  }

  /** Kysely's: a statement prepared on the handle open now, as Kysely prepares every query. */
  prepare(sql: string): SqliteStatement {
    return this.handle().prepare(sql);
  }

  /** Kysely's, on destroy: the connection is closed for good. */
  close(): void {
    this.drop('closed');
  }

  /** The statement for `sql`, prepared once per handle. */
  statement(sql: string): BetterSqlite3.Statement {
    const handle = this.handle();
    if (this.statementsOn !== handle) {
      this.statements = new Map();
      this.statementsOn = handle;
    }
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = handle.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** A statement made by `make` (prepared and set up: plucked, say) once per handle, when first asked for. */
  prepared<S>(make: (handle: BetterSqlite3.Database) => S): () => S {
    let made: S | undefined;
    let madeOn: BetterSqlite3.Database | undefined;
    return () => {
      const handle = this.handle();
      if (madeOn !== handle) {
        made = make(handle);
        madeOn = handle;
      }
      return made as S;
    };
  }
}
