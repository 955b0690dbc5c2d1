import { type Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import type { Dialect } from './dialect.js';

/**
 * What a query of the store is built on: the store's Kysely, or one transaction's (see
 * `writeTransaction`). Only the query builders and their executor: no transaction of its own, no
 * connection to take, nothing to close.
 */
export type Queries = Pick<
  Kysely<Database>,
  'selectFrom' | 'insertInto' | 'updateTable' | 'deleteFrom' | 'selectNoFrom' | 'with' | 'getExecutor'
>;

/**
 * One write transaction, as its work sees it: the queries, on the transaction's connection.
 * Neither a connection nor Kysely's Transaction: on SQLite it is the connection the transaction
 * was begun on, on PostgreSQL Kysely's own transaction, and the work needs to know neither.
 */
export type WriteTransaction = Queries;

/**
 * A transaction that reads and then writes. On SQLite it takes the write lock as it begins (BEGIN
 * IMMEDIATE, waiting up to the connection's busy timeout): a deferred one that reads first fails
 * at once, with no wait, when another connection (a worker, the CLI, a webhook delivery) wrote in
 * between. On PostgreSQL, Kysely's own transaction.
 */
export function writeTransaction<T>(
  db: Kysely<Database>,
  dialect: Dialect,
  work: (trx: WriteTransaction) => Promise<T>,
): Promise<T> {
  if (dialect === 'postgres') return db.transaction().execute(work);
  return db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection);
    try {
      // The queries of the one connection the transaction was begun on.
      const result = await work(connection);
      await sql`COMMIT`.execute(connection);
      return result;
    } catch (error) {
      await sql`ROLLBACK`.execute(connection).catch(() => {});
      throw error;
    }
  });
}
