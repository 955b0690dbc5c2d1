import type { Kysely, Migration } from 'kysely';

/**
 * When an account's API key was last used, for the workspace's Settings page: one row per account,
 * written in batches (at most once a minute per process, see KeyUsage), never per request. A
 * table of its own, outside the change signal's tables, so that these writes clear no cache.
 */
export const keyUsage: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('key_usage')
    .addColumn('username', 'text', (c) => c.primaryKey().references('accounts.username').onDelete('cascade'))
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('key_usage').execute();
}
