import type { Kysely, Migration } from 'kysely';

/**
 * Accounts that come from a MarketBob marketplace: the MarketBob user id each one is
 * (so that a username changed there renames the account here rather than making another), and a
 * digest of the MarketBob password hash last taken (so that a password changed there after our
 * workspace upgraded the seller's hash is taken again; '' when MarketBob had none). A digest,
 * not the hash: the hash itself lives in `account_credentials` only.
 *
 * An account of this table is also one whose key belongs to MarketBob: this service does not
 * generate keys for it (docs/marketbob.md).
 */
export const marketbobUsers: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('marketbob_users')
    .addColumn('username', 'text', (c) => c.primaryKey().references('accounts.username').onDelete('cascade'))
    .addColumn('user_id', 'bigint', (c) => c.notNull().unique())
    .addColumn('password_digest', 'text', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('marketbob_users').execute();
}
