import { type RawBuilder, sql } from 'kysely';
import { loginFactColumns } from './login-facts.js';
import type { MarketbobDb } from './marketbob-connection.js';
import type { SettingRow } from './marketbob-settings.js';
import type { ItemRow, PurchaseRow, UserRow } from './row-mapping.js';

/** A row of `item_discounts`, as far as the follower needs it: which item to read again. */
export interface DiscountRow {
  readonly id: number;
  readonly item_id: number;
}

/** A row and when MarketBob last saved it (its wall-clock text; NULL for rows written without it). */
export type Changed<R> = R & { readonly updated_at: string | null };

/**
 * Reads MarketBob's tables a page at a time, by primary key (`id > last ORDER BY id LIMIT n`):
 * each page is one index range, whatever the table's size, and no cursor is held open between
 * pages. Reads only the columns the mapping uses.
 */
export class MarketbobReader {
  /** Whether `users` has MarketBob's two-factor columns (see login-facts.ts); set by `openSource`. */
  twoFactorColumns = false;

  constructor(
    private readonly db: MarketbobDb,
    /** Whether `items.validity_prices` exists (see schema-check.ts). */
    private readonly hasValidityPrices: boolean,
    /** Whether `item_discounts` exists (a database before MarketBob's discounts has none). */
    private readonly hasDiscounts = false,
  ) {}

  get discounts(): boolean {
    return this.hasDiscounts;
  }

  async settings(): Promise<SettingRow[]> {
    const { rows } = await sql<SettingRow>`SELECT \`key\` AS \`key\`, \`value\` AS value FROM settings`.execute(
      this.db,
    );
    return rows;
  }

  async count(table: 'users' | 'items' | 'purchases'): Promise<number> {
    const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`.execute(this.db);
    return Number(rows[0]?.n ?? 0);
  }

  async usersPage(afterId: number, limit: number): Promise<Changed<UserRow>[]> {
    return this.users(sql`u.id > ${afterId} ORDER BY u.id`, limit);
  }

  /**
   * Users saved after (`since`, `afterId`) in (`updated_at`, `id`) order, `since` being MarketBob's
   * wall-clock text: one range of the index on `updated_at` (InnoDB keeps the id in it). Written as
   * `updated_at > since OR (updated_at = since AND id > afterId)`: MariaDB then bounds the range by
   * both columns, where `updated_at >= since AND (... OR id > afterId)` walks every row saved in
   * the mark's second at every poll.
   */
  async usersUpdatedSince(since: string, limit: number, afterId = 0): Promise<Changed<UserRow>[]> {
    return this.users(
      sql`(u.updated_at > ${since} OR (u.updated_at = ${since} AND u.id > ${afterId})) ORDER BY u.updated_at, u.id`,
      limit,
    );
  }

  async itemsPage(afterId: number, limit: number): Promise<Changed<ItemRow>[]> {
    return this.items(sql`i.id > ${afterId} ORDER BY i.id`, limit);
  }

  async itemsUpdatedSince(since: string, limit: number, afterId = 0): Promise<Changed<ItemRow>[]> {
    return this.items(
      sql`(i.updated_at > ${since} OR (i.updated_at = ${since} AND i.id > ${afterId})) ORDER BY i.updated_at, i.id`,
      limit,
    );
  }

  async purchasesPage(afterId: number, limit: number): Promise<Changed<PurchaseRow>[]> {
    return this.purchases(sql`p.id > ${afterId} ORDER BY p.id`, limit);
  }

  async purchasesUpdatedSince(since: string, limit: number, afterId = 0): Promise<Changed<PurchaseRow>[]> {
    return this.purchases(
      sql`(p.updated_at > ${since} OR (p.updated_at = ${since} AND p.id > ${afterId})) ORDER BY p.updated_at, p.id`,
      limit,
    );
  }

  /** Items by id (the primary key). */
  async itemsById(ids: readonly number[]): Promise<Changed<ItemRow>[]> {
    if (ids.length === 0) return [];
    return this.items(sql`i.id IN (${sql.join(ids)}) ORDER BY i.id`, ids.length);
  }

  /** Rows of `item_discounts` created after `afterId` (the primary key): which items to read again. */
  async discountsPage(afterId: number, limit: number): Promise<Changed<DiscountRow>[]> {
    return this.discountRows(sql`d.id > ${afterId} ORDER BY d.id`, limit);
  }

  /** Rows of `item_discounts` saved after (`since`, `afterId`): a discount changed, or its status set by MarketBob's schedule. */
  async discountsUpdatedSince(since: string, limit: number, afterId = 0): Promise<Changed<DiscountRow>[]> {
    return this.discountRows(
      sql`(d.updated_at > ${since} OR (d.updated_at = ${since} AND d.id > ${afterId})) ORDER BY d.updated_at, d.id`,
      limit,
    );
  }

  private async discountRows(where: RawBuilder<unknown>, limit: number): Promise<Changed<DiscountRow>[]> {
    if (!this.hasDiscounts) return [];
    // The whole row: the follower tells a discount read again by the overlap from the one it wrote
    // by the row's print, and a discount saved twice in one second differs only in its values.
    const { rows } = await sql<Changed<DiscountRow>>`
      SELECT d.* FROM item_discounts d WHERE ${where} LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /**
   * Every category and sub-category, as a fingerprint per row (`c<id>` and `s<id>` to its name and
   * fees): a few rows, read whole each poll, so that a changed fee or name reaches the items.
   */
  async categoryPrints(): Promise<Map<string, string>> {
    const { rows: categories } = await sql<{ id: number; name: string; r: number; e: number }>`
      SELECT id, name, regular_buyer_fee AS r, extended_buyer_fee AS e FROM categories`.execute(this.db);
    const { rows: subs } = await sql<{ id: number; name: string }>`SELECT id, name FROM sub_categories`.execute(
      this.db,
    );
    const prints = new Map<string, string>();
    for (const row of categories) prints.set(`c${row.id}`, JSON.stringify([row.name, row.r, row.e]));
    for (const row of subs) prints.set(`s${row.id}`, JSON.stringify([row.name]));
    return prints;
  }

  /** Items of these categories or sub-categories, by id (through MarketBob's indexes on the two columns). */
  async itemsOfCategories(
    categories: readonly number[],
    subCategories: readonly number[],
    afterId: number,
    limit: number,
  ): Promise<Changed<ItemRow>[]> {
    const none = sql`FALSE`;
    const inCategory = categories.length > 0 ? sql`i.category_id IN (${sql.join(categories)})` : none;
    const inSub = subCategories.length > 0 ? sql`i.sub_category_id IN (${sql.join(subCategories)})` : none;
    return this.items(sql`(${inCategory} OR ${inSub}) AND i.id > ${afterId} ORDER BY i.id`, limit);
  }

  /** The highest id and `updated_at` of a table: where the follower starts (both read from an index). */
  async watermark(
    table: 'users' | 'items' | 'purchases' | 'item_discounts',
  ): Promise<{ maxId: number; maxUpdatedAt: string | null }> {
    const { rows } = await sql<{ max_id: number | null; max_updated_at: string | null }>`
      SELECT MAX(id) AS max_id, MAX(updated_at) AS max_updated_at FROM ${sql.table(table)}`.execute(this.db);
    return { maxId: Number(rows[0]?.max_id ?? 0), maxUpdatedAt: rows[0]?.max_updated_at ?? null };
  }

  private async users(where: RawBuilder<unknown>, limit: number): Promise<Changed<UserRow>[]> {
    const { rows } = await sql<Changed<UserRow>>`
      SELECT u.id, u.firstname, u.lastname, u.username, u.email, u.password, u.api_key, u.balance, u.avatar,
        u.profile_cover, u.profile_heading, u.profile_description, u.profile_contact_email,
        u.profile_social_links, u.status, u.created_at, u.updated_at, ${loginFactColumns(this.twoFactorColumns)}
      FROM users u WHERE ${where} LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  private async items(where: RawBuilder<unknown>, limit: number): Promise<Changed<ItemRow>[]> {
    const validity = this.hasValidityPrices ? sql`i.validity_prices` : sql`NULL`;
    // The item's discount: one row per item (MarketBob's `hasOne`), the first by id should there be more.
    const discount = this.hasDiscounts
      ? sql`d.status AS discount_status, d.regular_price AS discount_regular_price,
          d.extended_price AS discount_extended_price`
      : sql`NULL AS discount_status, NULL AS discount_regular_price, NULL AS discount_extended_price`;
    const discountJoin = this.hasDiscounts
      ? sql`LEFT JOIN item_discounts d ON d.id = (SELECT MIN(d1.id) FROM item_discounts d1 WHERE d1.item_id = i.id)`
      : sql``;
    const { rows } = await sql<Changed<ItemRow>>`
      SELECT i.id, i.author_id, i.name, i.description, c.name AS category_name, c.regular_buyer_fee,
        c.extended_buyer_fee, sc.name AS sub_category_name, i.options, i.version, i.demo_link, i.tags,
        i.thumbnail, i.preview_type, i.preview_image, i.preview_video, i.preview_audio, i.screenshots,
        i.regular_price, i.extended_price, ${validity} AS validity_prices, ${discount}, i.is_supported,
        i.status, i.created_at, i.updated_at
      FROM items i
        LEFT JOIN categories c ON c.id = i.category_id
        LEFT JOIN sub_categories sc ON sc.id = i.sub_category_id
        ${discountJoin}
      WHERE ${where} LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  private async purchases(where: RawBuilder<unknown>, limit: number): Promise<Changed<PurchaseRow>[]> {
    const { rows } = await sql<Changed<PurchaseRow>>`
      SELECT p.id, p.code, p.item_id, p.license_type, p.support_expiry_at, p.is_downloaded, p.status,
        p.created_at, s.price AS sale_price, p.updated_at
      FROM purchases p LEFT JOIN sales s ON s.id = p.sale_id
      WHERE ${where} LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  /** Whether `purchases.code` alone has a unique index, under a case-insensitive collation. */
  async codesUnique(database: string): Promise<boolean> {
    const { rows } = await sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM information_schema.STATISTICS s
        JOIN information_schema.COLUMNS c
          ON c.TABLE_SCHEMA = s.TABLE_SCHEMA AND c.TABLE_NAME = s.TABLE_NAME AND c.COLUMN_NAME = s.COLUMN_NAME
      WHERE s.TABLE_SCHEMA = ${database} AND s.TABLE_NAME = 'purchases' AND s.COLUMN_NAME = 'code'
        AND s.NON_UNIQUE = 0 AND s.SEQ_IN_INDEX = 1 AND c.COLLATION_NAME LIKE '%\_ci'
        AND NOT EXISTS (SELECT 1 FROM information_schema.STATISTICS o WHERE o.TABLE_SCHEMA = s.TABLE_SCHEMA
          AND o.TABLE_NAME = s.TABLE_NAME AND o.INDEX_NAME = s.INDEX_NAME AND o.SEQ_IN_INDEX = 2)`.execute(this.db);
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /**
   * Purchases whose code another purchase with a lower id already has (letter case and white
   * space aside): none where `code` has MarketBob's unique index under its case-insensitive
   * collation, but a copy of the database may have lost it. One grouped read per sync.
   */
  async duplicateCodes(): Promise<Map<number, number>> {
    const { rows } = await sql<{ id: number; first: number }>`
      SELECT p.id, d.first FROM purchases p
        JOIN (SELECT LOWER(TRIM(code)) AS code_key, MIN(id) AS first FROM purchases
              GROUP BY LOWER(TRIM(code)) HAVING COUNT(*) > 1) d ON LOWER(TRIM(p.code)) = d.code_key
      WHERE p.id <> d.first`.execute(this.db);
    return new Map(rows.map((row) => [Number(row.id), Number(row.first)]));
  }
}
