import type { Kysely, Migration } from 'kysely';

/**
 * An account's named keys beside its own (`accounts.key_digest`): each with an id, a name and a
 * scope (`validate`: purchase validation and activations only; `full`: every endpoint), kept as
 * the account's key is, a digest to find it by and a ciphertext. A revoked key keeps its row,
 * marked `revoked_at`: it opens nothing, and an old export imported again cannot bring it back
 * unnoticed (as `replaced_keys` guards an account's own key).
 * Their last use is in a table of its own, outside the change signal's tables (as `key_usage`),
 * so that its writes clear no cache.
 */
export const namedKeys: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('username', 'text', (c) => c.notNull().references('accounts.username').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key_digest', 'text', (c) => c.notNull().unique())
    .addColumn('key_cipher', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_username').on('api_keys').column('username').execute();
  await db.schema
    .createTable('api_key_usage')
    .addColumn('key_id', 'text', (c) => c.primaryKey().references('api_keys.id').onDelete('cascade'))
    .addColumn('last_used_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('api_key_usage').execute();
  await db.schema.dropTable('api_keys').execute();
}
