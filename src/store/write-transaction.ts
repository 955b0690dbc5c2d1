import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './database.js';
import type { Dialect } from './dialect.js';

/**
 * A transaction that reads and then writes. On SQLite it takes the write lock as it begins (BEGIN
 * IMMEDIATE, waiting up to the connection's busy timeout): a deferred one that reads first fails
 * at once, with no wait, when another connection (a worker, the CLI, a webhook delivery) wrote in
 * between. On PostgreSQL, Kysely's own transaction.
 */
export function writeTransaction<T>(
  db: Kysely<Database>,
  dialect: Dialect,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (dialect === 'postgres') return db.transaction().execute(work);
  return db.connection().execute(async (connection) => {
    await sql`BEGIN IMMEDIATE`.execute(connection);
    try {
      // One connection, which is the transaction: SQLite has no other.
      const result = await work(connection as unknown as Transaction<Database>);
      await sql`COMMIT`.execute(connection);
      return result;
    } catch (error) {
      await sql`ROLLBACK`.execute(connection).catch(() => {});
      throw error;
    }
  });
}
