import type { Kysely, Migration } from 'kysely';

/**
 * Written once for both stores, in portable column types only. Every table is keyed by the
 * storefront's natural key (username, item id, purchase code), so no generated ids are needed.
 */
export const initial: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('username', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('firstname', 'text', (c) => c.notNull())
    .addColumn('lastname', 'text', (c) => c.notNull())
    .addColumn('balance', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('registered_at', 'text', (c) => c.notNull())
    .addColumn('heading', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('contact_email', 'text', (c) => c.notNull())
    .addColumn('social_links', 'text', (c) => c.notNull())
    .addColumn('avatar', 'text', (c) => c.notNull())
    .addColumn('cover', 'text', (c) => c.notNull())
    .addColumn('key_digest', 'text', (c) => c.notNull().unique())
    .addColumn('key_cipher', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('items')
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull().references('accounts.username'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('sub_category', 'text', (c) => c.notNull())
    .addColumn('options', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('demo_link', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('preview_type', 'text', (c) => c.notNull())
    .addColumn('thumbnail', 'text', (c) => c.notNull())
    .addColumn('preview_image', 'text', (c) => c.notNull())
    .addColumn('preview_video', 'text', (c) => c.notNull())
    .addColumn('preview_audio', 'text', (c) => c.notNull())
    .addColumn('screenshots', 'text', (c) => c.notNull())
    .addColumn('price_regular', 'bigint', (c) => c.notNull())
    .addColumn('price_extended', 'bigint', (c) => c.notNull())
    .addColumn('supported', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('items_by_account').on('items').columns(['account', 'id']).execute();

  await db.schema
    .createTable('purchases')
    .addColumn('code_key', 'text', (c) => c.primaryKey())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('item_id', 'bigint', (c) => c.notNull().references('items.id'))
    .addColumn('license_type', 'text', (c) => c.notNull())
    .addColumn('price', 'bigint', (c) => c.notNull())
    .addColumn('supported_until', 'text', (c) => c.notNull())
    .addColumn('downloaded', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('purchases_by_item').on('purchases').column('item_id').execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('purchases').execute();
  await db.schema.dropTable('items').execute();
  await db.schema.dropTable('accounts').execute();
}
