import type { Kysely, Migration } from 'kysely';

/** The record tables that keep MarketBob's own values beside their columns. */
const TABLES = ['accounts', 'items', 'purchases'] as const;

/**
 * MarketBob's own values beside each record (docs/marketbob.md, "MarketBob's own answers"): a
 * `marketbob` text column holding the import line's `marketbob` object as JSON ('' when the line
 * had none), so that a variant in MarketBob's shape answers the raw values MarketBob would (NULLs,
 * float prices, the tags string); and `source_settings`, the source's settings the answers depend
 * on (`api_enabled`: MarketBob's `actions.api`), written by the MarketBob follower. Both live in the
 * store's own database, so that a change is heard by every process as any other write.
 */
export const marketbobSource: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of TABLES) {
    await db.schema
      .alterTable(table)
      .addColumn('marketbob', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
  }
  await db.schema
    .createTable('source_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('source_settings').execute();
  for (const table of TABLES) await db.schema.alterTable(table).dropColumn('marketbob').execute();
}
