/**
 * A big MarketBob-shaped data set made inside MariaDB with its sequence tables (`seq_0_to_N`), so
 * that a million purchases load in seconds with no rows crossing the wire: 10,000 users, 100,000
 * items, 1,000,000 sales and purchases by default. For the sync benchmark, not the test suite.
 *
 * Shapes: every 500th user banned, every 10th item pending, every 10th item priced by validity
 * periods (regular_price 0), every 20th purchase refunded; keys are SHA-256 hex of the user's
 * number, codes UUID-shaped from MD5 of the purchase's number (so a run can name them again).
 */
import type { Connection } from 'mysql2/promise';

export interface BigSetSize {
  readonly users: number;
  readonly items: number;
  readonly purchases: number;
}

export const BIG_SET: BigSetSize = { users: 10_000, items: 100_000, purchases: 1_000_000 };

/** A fixed bcrypt hash ($2y$, cost 10) every generated user shares: the sync copies it as it is. */
const HASH = '$2y$10$AngX2swGdlWzm9T2jHwUWOQ8xgl1MhFT5rbMBRgYgBixxvRVldLBS';

/** The code of purchase number n (0-based), as the generator writes it. */
export const codeSql = (n: string) =>
  `LOWER(CONCAT(SUBSTR(MD5(${n}),1,8),'-',SUBSTR(MD5(${n}),9,4),'-4',SUBSTR(MD5(${n}),14,3),'-a',SUBSTR(MD5(${n}),18,3),'-',SUBSTR(MD5(${n}),21,12)))`;

export async function fillBigMarketplace(connection: Connection, size: BigSetSize = BIG_SET): Promise<void> {
  const last = (count: number) => `seq_0_to_${count - 1}`;
  await connection.query(
    `INSERT INTO settings (\`key\`, value) VALUES ('item', '{"support_status":1}'), ('currency', '{"code":"USD"}'),
     ('profile', '{"default_avatar":"images/avatar.png","default_cover":"images/cover.png"}')`,
  );
  await connection.query(
    `INSERT INTO categories (id, name, regular_buyer_fee, extended_buyer_fee)
     SELECT seq + 1, CONCAT('Category ', seq), 1.5, 4 FROM seq_0_to_9`,
  );
  await connection.query(
    `INSERT INTO sub_categories (id, name, category_id) SELECT seq + 1, CONCAT('Sub ', seq), seq % 10 + 1 FROM seq_0_to_19`,
  );
  await connection.query(
    `INSERT INTO users (id, firstname, lastname, username, email, password, api_key, is_author, balance, avatar,
       profile_cover, profile_heading, profile_description, profile_contact_email, profile_social_links, status,
       created_at, updated_at)
     SELECT seq + 1, 'First', CONCAT('Last', seq), CONCAT('user', seq), CONCAT('user', seq, '@example.com'), ?,
       SHA2(CONCAT('key', seq), 256), 1, (seq % 1000) + 0.25, IF(seq % 3 = 0, NULL, CONCAT('avatars/', seq, '.png')),
       NULL, 'Heading', '<p>About me</p>', CONCAT('contact', seq, '@example.com'),
       '{"x":"https://x.com/someone","facebook":"https://facebook.com/someone"}', IF(seq % 500 = 499, 0, 1),
       '2023-01-01 00:00:00' + INTERVAL seq MINUTE, '2024-01-01 00:00:00'
     FROM ${last(size.users)}`,
    [HASH],
  );
  await connection.query(
    `INSERT INTO items (id, author_id, name, slug, description, category_id, sub_category_id, options, version,
       demo_link, tags, thumbnail, preview_image, preview_type, screenshots, regular_price, extended_price,
       validity_prices, is_supported, status, created_at, updated_at)
     SELECT 1000 + seq, seq % ${size.users} + 1, CONCAT('Item ', seq), CONCAT('item-', seq),
       '<p>A generated item with a description of a realistic length for a marketplace listing.</p>',
       seq % 10 + 1, IF(seq % 4 = 0, NULL, seq % 20 + 1), '{"Layout":"Responsive","Browsers":["Chrome","Firefox"]}',
       IF(seq % 7 = 0, '2.1', '1.2.3'), 'https://demo.example.com', 'admin,dashboard,php',
       CONCAT('items/', seq, '/thumb.png'), CONCAT('items/', seq, '/preview.png'), 'image',
       CONCAT('["items/', seq, '/1.png","items/', seq, '/2.png"]'),
       IF(seq % 10 = 3, 0, 19.99), IF(seq % 10 = 3, 0, 49),
       IF(seq % 10 = 3, '{"1":"9.00","3":"24.00","6":null,"12":"79.00"}', NULL),
       1, IF(seq % 10 = 9, 1, 4), '2023-06-01 00:00:00' + INTERVAL seq MINUTE, '2024-01-01 00:00:00'
     FROM ${last(size.items)}`,
  );
  const item = `(seq % ${size.items})`;
  await connection.query(
    `INSERT INTO sales (id, author_id, user_id, item_id, license_type, validity_period, price, status, created_at, updated_at)
     SELECT 1000 + seq, ${item} % ${size.users} + 1, (seq * 7) % ${size.users} + 1, 1000 + ${item}, 1, 1, 19.99,
       IF(seq % 20 = 19, 2, 1), '2024-01-01 00:00:00' + INTERVAL seq SECOND, '2024-06-01 00:00:00'
     FROM ${last(size.purchases)}`,
  );
  await connection.query(
    `INSERT INTO purchases (id, user_id, author_id, sale_id, item_id, license_type, code, support_expiry_at,
       validity_expiry_at, is_downloaded, status, created_at, updated_at)
     SELECT 1000 + seq, (seq * 7) % ${size.users} + 1, ${item} % ${size.users} + 1, 1000 + seq, 1000 + ${item}, 1,
       ${codeSql('seq')}, '2025-01-01 00:00:00' + INTERVAL seq SECOND, NULL, seq % 2, IF(seq % 20 = 19, 2, 1),
       '2024-01-01 00:00:00' + INTERVAL seq SECOND, '2024-06-01 00:00:00'
     FROM ${last(size.purchases)}`,
  );
}
