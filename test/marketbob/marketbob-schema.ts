import { deletionLogDdl } from '../../src/marketbob/deletion-log.js';

/**
 * A MarketBob-shaped schema, written from ../shared/MARKETBOB.md (its facts, not its code): the
 * tables and columns the author API reads, with MarketBob's types, NULLs, defaults, unique keys,
 * collation, the indexes its foreign keys give, and the ids items, sales and purchases start from. `validity: false` leaves out the
 * columns of the 2024-12 "validity period" migrations, as in a database that never ran them.
 */
export interface SchemaOptions {
  readonly validity?: boolean;
  /** The indexes on updated_at that the follower asks for (`marketbob check` prints them when missing). */
  readonly followerIndexes?: boolean;
  /** MarketBob's `item_discounts` (true unless false: a database before discounts has none). */
  readonly discounts?: boolean;
  /** MarketBob's foreign keys, which cascade a deleted user or item to its rows. */
  readonly foreignKeys?: boolean;
  /** The deletion log and its triggers, as `marketbob check` prints them (deletion-log.ts). */
  readonly deletionLog?: boolean;
}

export function marketbobDdl(options: SchemaOptions = {}): string[] {
  const validity = options.validity ?? true;
  const table = (name: string, body: string, autoIncrement?: number) =>
    `CREATE TABLE ${name} (${body}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci${
      autoIncrement === undefined ? '' : ` AUTO_INCREMENT=${autoIncrement}`
    }`;
  const statements = [
    table(
      'users',
      `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
       firstname varchar(50) NULL, lastname varchar(50) NULL,
       username varchar(50) NULL, email varchar(100) NULL,
       password varchar(255) NULL, api_key varchar(255) NULL,
       is_author tinyint(1) NOT NULL DEFAULT 0, balance double NOT NULL DEFAULT 0,
       avatar varchar(255) NULL, profile_cover varchar(255) NULL,
       profile_heading varchar(255) NULL, profile_description longtext NULL,
       profile_contact_email varchar(255) NULL, profile_social_links text NULL,
       status tinyint(1) NOT NULL DEFAULT 1,
       created_at timestamp NULL, updated_at timestamp NULL,
       UNIQUE KEY users_username_unique (username), UNIQUE KEY users_email_unique (email)`,
    ),
    table(
      'categories',
      `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, name varchar(255) NOT NULL,
       regular_buyer_fee double NOT NULL DEFAULT 0, extended_buyer_fee double NOT NULL DEFAULT 0,
       created_at timestamp NULL, updated_at timestamp NULL`,
    ),
    table(
      'sub_categories',
      `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, name varchar(255) NOT NULL,
       category_id bigint unsigned NOT NULL, created_at timestamp NULL, updated_at timestamp NULL`,
    ),
    table(
      'items',
      `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
       author_id bigint unsigned NOT NULL, name varchar(100) NOT NULL, slug varchar(255) NOT NULL,
       description longtext NOT NULL, category_id bigint unsigned NOT NULL, sub_category_id bigint unsigned NULL,
       options longtext NULL, version varchar(255) NULL, demo_link text NULL, tags longtext NOT NULL,
       thumbnail varchar(255) NULL, preview_image varchar(255) NULL, preview_video varchar(255) NULL,
       preview_audio varchar(255) NULL, preview_type varchar(255) NOT NULL DEFAULT 'image',
       screenshots longtext NULL, regular_price double NOT NULL, extended_price double NOT NULL,
       ${validity ? 'validity_prices text NULL, original_price decimal(10,2) NULL,' : ''}
       is_supported tinyint NOT NULL DEFAULT 1, status tinyint NOT NULL DEFAULT 1,
       created_at timestamp NULL, updated_at timestamp NULL,
       UNIQUE KEY items_name_unique (name), UNIQUE KEY items_slug_unique (slug), KEY items_author_id (author_id),
       KEY items_category_id_foreign (category_id), KEY items_sub_category_id_foreign (sub_category_id)`,
      1000,
    ),
    table(
      'sales',
      `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
       author_id bigint unsigned NOT NULL, user_id bigint unsigned NOT NULL, item_id bigint unsigned NOT NULL,
       license_type tinyint NOT NULL DEFAULT 1, ${validity ? 'validity_period int NOT NULL DEFAULT 1,' : ''}
       price double NOT NULL, buyer_fee double NOT NULL DEFAULT 0, author_fee double NOT NULL DEFAULT 0,
       buyer_tax double NOT NULL DEFAULT 0, author_tax double NOT NULL DEFAULT 0, author_earning double NOT NULL DEFAULT 0,
       status tinyint NOT NULL DEFAULT 1, created_at timestamp NULL, updated_at timestamp NULL`,
      1000,
    ),
    table(
      'purchases',
      `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
       user_id bigint unsigned NOT NULL, author_id bigint unsigned NOT NULL, sale_id bigint unsigned NOT NULL,
       item_id bigint unsigned NOT NULL, license_type tinyint NOT NULL DEFAULT 1, code varchar(255) NOT NULL,
       support_expiry_at datetime NULL, ${validity ? 'validity_expiry_at datetime NULL,' : ''}
       is_downloaded tinyint(1) NOT NULL DEFAULT 0, status tinyint NOT NULL DEFAULT 1,
       created_at timestamp NULL, updated_at timestamp NULL,
       UNIQUE KEY purchases_code_unique (code), KEY purchases_user_id_foreign (user_id),
       KEY purchases_author_id_foreign (author_id), KEY purchases_item_id_foreign (item_id),
       KEY purchases_sale_id_foreign (sale_id)`,
      1000,
    ),
    table(
      'refunds',
      `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
       user_id bigint unsigned NOT NULL, author_id bigint unsigned NOT NULL, purchase_id bigint unsigned NOT NULL,
       status tinyint NOT NULL DEFAULT 1, created_at timestamp NULL, updated_at timestamp NULL`,
    ),
    table(
      'settings',
      '`id` bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, `key` varchar(255) NOT NULL, `value` longtext NULL, UNIQUE KEY settings_key_unique (`key`)',
    ),
  ];
  const discounts = options.discounts ?? true;
  if (discounts) {
    statements.push(
      table(
        'item_discounts',
        `id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, item_id bigint unsigned NOT NULL,
         regular_percentage int NOT NULL DEFAULT 0, regular_price double NOT NULL,
         extended_percentage int NULL, extended_price double NULL,
         starting_at date NOT NULL, ending_at date NOT NULL, status tinyint(1) NOT NULL DEFAULT 0,
         created_at timestamp NULL, updated_at timestamp NULL, KEY item_discounts_item_id_foreign (item_id)`,
      ),
    );
  }
  if (options.followerIndexes) {
    for (const name of ['users', 'items', 'purchases', ...(discounts ? ['item_discounts'] : [])]) {
      statements.push(`CREATE INDEX marketbob_follow_${name}_updated_at ON ${name} (updated_at)`);
    }
  }
  if (options.foreignKeys) {
    const cascade = (name: string, column: string, parent: string) =>
      `ALTER TABLE ${name} ADD FOREIGN KEY (${column}) REFERENCES ${parent} (id) ON DELETE CASCADE`;
    statements.push(
      cascade('items', 'author_id', 'users'),
      cascade('sales', 'user_id', 'users'),
      cascade('sales', 'author_id', 'users'),
      cascade('sales', 'item_id', 'items'),
      cascade('purchases', 'user_id', 'users'),
      cascade('purchases', 'author_id', 'users'),
      cascade('purchases', 'item_id', 'items'),
      cascade('purchases', 'sale_id', 'sales'),
      ...(discounts ? [cascade('item_discounts', 'item_id', 'items')] : []),
    );
  }
  if (options.deletionLog) statements.push(...deletionLogDdl(discounts));
  return statements;
}
