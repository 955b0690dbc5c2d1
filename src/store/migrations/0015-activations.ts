import type { Kysely, Migration } from 'kysely';

/**
 * Activation limits (docs/decisions.md#activations). `item_activation_limits`: how many instances
 * each purchase of an item may activate at once; an item without a row has no limit. Kept apart
 * from `items` because the item rows are rewritten whole by every import and by the MarketBob
 * bridge, which know nothing of limits a seller set. `activations`: the instances each purchase
 * code holds, by the code's lower-case key; an instance is unique per code (activating it again
 * finds the same row). Neither table is part of any cached answer, so neither tells the caches.
 */
export const activations: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('item_activation_limits')
    .addColumn('item_id', 'bigint', (c) => c.primaryKey().references('items.id'))
    .addColumn('activation_limit', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('activations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('code_key', 'text', (c) => c.notNull().references('purchases.code_key'))
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_validated_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('activations_code_instance', ['code_key', 'instance'])
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('activations').execute();
  await db.schema.dropTable('item_activation_limits').execute();
}
