import { type Kysely, type Migration, sql } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The change log (see src/store/changes/change-log.ts): what each write to the tables the API caches
 * changed, by sequence number, read by every process to drop just those cache entries. Its first
 * entry names nothing; pruning always keeps the newest, so a reader can tell whether entries it
 * has not read were pruned. `change_log_mute` is SQLite's way for an import to mute the triggers
 * (PostgreSQL's imports set a transaction's setting instead); it is empty outside an import's
 * transaction. The triggers themselves are made when a store opens, from the list of logged tables.
 */
export function changeLog(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('change_log')
        .addColumn('seq', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
          dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .execute();
      await sql`INSERT INTO change_log (kind, key, at) VALUES ('table', '', ${Date.now()})`.execute(db);
      await db.schema.createTable('change_log_mute').addColumn('muted', 'integer').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('change_log_mute').execute();
      await db.schema.dropTable('change_log').execute();
    },
  };
}
