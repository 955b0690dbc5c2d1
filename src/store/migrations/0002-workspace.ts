import type { Kysely, Migration } from 'kysely';

/**
 * The seller's workspace: password hashes, login sessions, and keys kept working for a grace
 * period after a rotation. Each in a table of its own, so that the `accounts` rows the API reads
 * (and caches) never hold a password hash, and the API's lookup by key stays one indexed read.
 * Times are milliseconds since the epoch (bigint), compared by the service, not the database.
 */
export const workspace: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_credentials')
    .addColumn('username', 'text', (c) => c.primaryKey().references('accounts.username').onDelete('cascade'))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workspace_sessions')
    // A SHA-256 of the random id the cookie holds: the store never holds a usable session id.
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().references('accounts.username').onDelete('cascade'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('workspace_sessions_by_last_seen')
    .on('workspace_sessions')
    .column('last_seen_at')
    .execute();

  await db.schema
    .createTable('retired_keys')
    .addColumn('key_digest', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().references('accounts.username').onDelete('cascade'))
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('retired_keys').execute();
  await db.schema.dropTable('workspace_sessions').execute();
  await db.schema.dropTable('account_credentials').execute();
}
