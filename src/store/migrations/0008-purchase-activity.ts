import type { Kysely, Migration } from 'kysely';

/**
 * How each purchase code is used: per seller, code and UTC day, the validations, when
 * first and last seen, and a sketch of the distinct client networks (keyed hashes, never an
 * address) with its estimate beside it, so that lists are ordered without reading sketches. No
 * reference to `accounts` or `purchases`: on SQLite these rows live in a file of their own (see
 * activityMigrationProvider), and a day outlives nothing it refers to, being dropped after the
 * retention period. The `day` index serves that periodic drop.
 */
export const purchaseActivity: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('purchase_activity')
    .addColumn('account', 'text', (c) => c.notNull())
    .addColumn('code_key', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('validations', 'bigint', (c) => c.notNull())
    .addColumn('networks', 'integer', (c) => c.notNull())
    .addColumn('first_seen', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'bigint', (c) => c.notNull())
    .addColumn('sketch', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('purchase_activity_pkey', ['account', 'code_key', 'day'])
    .execute();
  await db.schema.createIndex('purchase_activity_day').on('purchase_activity').column('day').execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('purchase_activity').execute();
}
