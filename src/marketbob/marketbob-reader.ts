import { sql } from 'kysely';
import type { MarketbobDb } from './marketbob-connection.js';
import type { SettingRow } from './marketbob-settings.js';
import type { ItemRow, PurchaseRow, UserRow } from './row-mapping.js';

/**
 * Reads MarketBob's tables a page at a time, by primary key (`id > last ORDER BY id LIMIT n`):
 * each page is one index range, whatever the table's size, and no cursor is held open between
 * pages. Reads only the columns the mapping uses.
 */
export class MarketbobReader {
  constructor(
    private readonly db: MarketbobDb,
    /** Whether `items.validity_prices` exists (see schema-check.ts). */
    private readonly hasValidityPrices: boolean,
  ) {}

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

  async usersPage(afterId: number, limit: number): Promise<UserRow[]> {
    const { rows } = await sql<UserRow>`
      SELECT id, firstname, lastname, username, email, password, api_key, balance, avatar, profile_cover,
        profile_heading, profile_description, profile_contact_email, profile_social_links, status, created_at
      FROM users WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  async itemsPage(afterId: number, limit: number): Promise<ItemRow[]> {
    const validity = this.hasValidityPrices ? sql`i.validity_prices` : sql`NULL`;
    const { rows } = await sql<ItemRow>`
      SELECT i.id, i.author_id, i.name, i.description, c.name AS category_name, c.regular_buyer_fee,
        c.extended_buyer_fee, sc.name AS sub_category_name, i.options, i.version, i.demo_link, i.tags,
        i.thumbnail, i.preview_type, i.preview_image, i.preview_video, i.preview_audio, i.screenshots,
        i.regular_price, i.extended_price, ${validity} AS validity_prices, i.is_supported, i.status, i.created_at
      FROM items i
        LEFT JOIN categories c ON c.id = i.category_id
        LEFT JOIN sub_categories sc ON sc.id = i.sub_category_id
      WHERE i.id > ${afterId} ORDER BY i.id LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  async purchasesPage(afterId: number, limit: number): Promise<PurchaseRow[]> {
    const { rows } = await sql<PurchaseRow>`
      SELECT p.id, p.code, p.item_id, p.license_type, p.support_expiry_at, p.is_downloaded, p.status,
        p.created_at, s.price AS sale_price
      FROM purchases p LEFT JOIN sales s ON s.id = p.sale_id
      WHERE p.id > ${afterId} ORDER BY p.id LIMIT ${limit}`.execute(this.db);
    return rows;
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
