import type { Kysely, Migration } from 'kysely';

/**
 * When this service made an account's key (a rotation: the CLI, the admin API or the workspace),
 * shown on the workspace's Settings page. One row per account, with the digest of the key it
 * dates: a key brought by an import since (made elsewhere, at a time nobody told us) no longer
 * matches it, and has no date. Digests only, as `accounts` holds them.
 */
export const keyDates: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('key_dates')
    .addColumn('username', 'text', (c) => c.primaryKey().references('accounts.username').onDelete('cascade'))
    .addColumn('key_digest', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('key_dates').execute();
}
