import { randomBytes, randomUUID } from 'node:crypto';
import mysql from 'mysql2/promise';
import { marketbobDdl, type SchemaOptions } from './marketbob-schema.js';

/** The MariaDB (or MySQL) server the MarketBob tests use; they are skipped when it is not set. */
export const TEST_MARIADB_URL = process.env.TEST_MARIADB_URL?.trim() || undefined;

type Row = Record<string, unknown>;

/** A MarketBob-shaped database of its own (`mb_<random>`), dropped after. */
export interface MarketbobTestDatabase {
  /** MARKETBOB_DATABASE_URL for it. */
  readonly url: string;
  readonly name: string;
  query<R = Row>(statement: string, values?: unknown[]): Promise<R[]>;
  /** Inserts one row and gives its id. */
  insert(table: string, row: Row): Promise<number>;
  update(table: string, id: number, values: Row): Promise<void>;
  drop(): Promise<void>;
}

export async function createMarketbobDatabase(options: SchemaOptions = {}): Promise<MarketbobTestDatabase> {
  if (!TEST_MARIADB_URL) throw new Error('MarketBob tests need TEST_MARIADB_URL');
  const name = `mb_${randomBytes(6).toString('hex')}`;
  const server = await mysql.createConnection({ uri: TEST_MARIADB_URL });
  await server.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await server.end();
  const address = new URL(TEST_MARIADB_URL);
  address.pathname = `/${name}`;
  const url = address.href;
  const connection = await mysql.createConnection({ uri: url, dateStrings: true });
  for (const statement of marketbobDdl(options)) await connection.query(statement);
  const query = async <R>(statement: string, values: unknown[] = []) => {
    const [rows] = await connection.query(statement, values);
    return rows as R[];
  };
  return {
    url,
    name,
    query,
    async insert(table, row) {
      const [result] = await connection.query(`INSERT INTO ${table} SET ?`, [row]);
      return (result as { insertId: number }).insertId;
    },
    async update(table, id, values) {
      await connection.query(`UPDATE ${table} SET ? WHERE id = ?`, [values, id]);
    },
    async drop() {
      await connection.query(`DROP DATABASE IF EXISTS ${name}`);
      await connection.end();
    },
  };
}

/** A 64-character lowercase hex key, as MarketBob generates them. */
export const newApiKey = (): string => randomBytes(32).toString('hex');

/** A bcrypt hash of "secret-password" at cost 10, as Laravel writes it ($2y$). */
export const LARAVEL_HASH = '$2y$10$AngX2swGdlWzm9T2jHwUWOQ8xgl1MhFT5rbMBRgYgBixxvRVldLBS';

const NOW = '2024-05-01 12:00:00';

/** A user row with every column MarketBob's API reads; `overrides` changes any of them. */
export function userRow(overrides: Row = {}): Row {
  const n = randomBytes(3).toString('hex');
  return {
    firstname: 'Jo',
    lastname: 'Doe',
    username: `user${n}`,
    email: `user${n}@example.com`,
    password: LARAVEL_HASH,
    api_key: newApiKey(),
    is_author: 1,
    balance: 120.5,
    avatar: 'images/avatars/jo.png',
    profile_cover: 'images/covers/jo.png',
    profile_heading: 'Scripts and themes',
    profile_description: '<p>Hello</p>',
    profile_contact_email: `contact${n}@example.com`,
    profile_social_links: JSON.stringify({ x: 'https://x.com/jo', facebook: 'https://facebook.com/jo' }),
    status: 1,
    created_at: '2023-01-02 03:04:05',
    updated_at: NOW,
    ...overrides,
  };
}

export function itemRow(authorId: number, categoryId: number, overrides: Row = {}): Row {
  const n = randomBytes(4).toString('hex');
  return {
    author_id: authorId,
    name: `Item ${n}`,
    slug: `item-${n}`,
    description: '<p>An item</p>',
    category_id: categoryId,
    sub_category_id: null,
    options: JSON.stringify({ Layout: 'Responsive', Browsers: ['Chrome', 'Firefox'] }),
    version: '1.2.3',
    demo_link: 'https://demo.example.com',
    tags: 'admin, dashboard,,php',
    thumbnail: 'items/thumb.png',
    preview_image: 'items/preview.png',
    preview_video: null,
    preview_audio: null,
    preview_type: 'image',
    screenshots: JSON.stringify(['items/s1.png', 'items/s2.png']),
    regular_price: 19.99,
    extended_price: 49,
    is_supported: 1,
    status: 4,
    created_at: '2023-02-01 00:00:00',
    updated_at: NOW,
    ...overrides,
  };
}

/** A sale and its purchase, as MarketBob writes them on checkout; the purchase's id and code. */
export async function insertPurchase(
  database: MarketbobTestDatabase,
  item: { id: number; authorId: number },
  buyerId: number,
  overrides: { sale?: Row; purchase?: Row } = {},
): Promise<{ id: number; saleId: number; code: string }> {
  const saleId = await database.insert('sales', {
    author_id: item.authorId,
    user_id: buyerId,
    item_id: item.id,
    license_type: 1,
    price: 19.99,
    status: 1,
    created_at: '2024-02-01 10:00:00',
    updated_at: NOW,
    ...overrides.sale,
  });
  const code = randomUUID();
  const id = await database.insert('purchases', {
    user_id: buyerId,
    author_id: item.authorId,
    sale_id: saleId,
    item_id: item.id,
    license_type: 1,
    code,
    support_expiry_at: '2025-02-01 10:00:00',
    is_downloaded: 0,
    status: 1,
    created_at: '2024-02-01 10:00:00',
    updated_at: NOW,
    ...overrides.purchase,
  });
  return { id, saleId, code: (overrides.purchase?.code as string | undefined) ?? code };
}

/** MarketBob's settings rows the author API reads. */
export async function insertSettings(database: MarketbobTestDatabase, supportOn: boolean): Promise<void> {
  const rows: [string, unknown][] = [
    ['actions', { api: 1 }],
    ['item', { support_status: supportOn ? 1 : 0 }],
    ['currency', { code: 'USD', symbol: '$' }],
    ['profile', { default_avatar: 'images/avatars/default.png', default_cover: 'images/covers/default.png' }],
  ];
  for (const [key, value] of rows) await database.insert('settings', { key, value: JSON.stringify(value) });
}

/** The bound: a change in MarketBob shows in our answers within 5 s. */
export const FOLLOW_BOUND_MS = 5_000;

/** Asks again (every 50 ms) until `check` passes, failing with its last error once `withinMs` has passed. */
export async function eventually(check: () => Promise<void>, withinMs = FOLLOW_BOUND_MS): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** MarketBob's wall clock now (its APP_TIMEZONE is UTC here), as Laravel writes `updated_at`. */
export const marketbobNow = (): string => new Date().toISOString().slice(0, 19).replace('T', ' ');
