import type { Kysely, Migration } from 'kysely';

/**
 * Every key an account has had and lost (to a rotation, or to an import that gave it another),
 * as its digest: what lets an import tell an older key of the account, which it refuses to bring
 * back, from a new one, which the contract says works from then on. Digests only, as `accounts`
 * holds them: nothing here opens an account.
 */
export const replacedKeys: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('replaced_keys')
    .addColumn('username', 'text', (c) => c.notNull().references('accounts.username').onDelete('cascade'))
    .addColumn('key_digest', 'text', (c) => c.notNull())
    .addColumn('replaced_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('replaced_keys_pkey', ['username', 'key_digest'])
    .execute();
  await db.schema.createIndex('replaced_keys_by_digest').on('replaced_keys').column('key_digest').execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('replaced_keys').execute();
}
