import type { Kysely } from 'kysely';
import type { Database } from './database.js';
import type { Dialect } from './dialect.js';
import type { QueryRunner } from './query-runner.js';

/**
 * What an aggregate's repository is given by the store that holds it: the store's Kysely, the
 * dialect's runner of compiled reads, and the two ways every call goes through the store.
 */
export interface StoreContext {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Runs the reads compiled once (see named-query.ts), prepared once per dialect. */
  readonly runner: QueryRunner;
  /** Runs a read, turning the dialect's "cannot reach the store" errors into StoreUnavailableError. */
  guard<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs one of the store's own writes, on a connection without a read snapshot, seen by the very
   * next read. `changesAccounts` (true unless given) says whether it may write to a logged table
   * (see changes/change-log.ts), whose entries the store then reads before the write resolves.
   */
  write<T>(work: () => Promise<T>, changesAccounts?: boolean): Promise<T>;
}
