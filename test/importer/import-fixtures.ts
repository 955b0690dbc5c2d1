import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { type ImportOptions, type ImportResult, importNdjson } from '../../src/importer/import-ndjson.js';
import { deriveKeyMaterial } from '../../src/keys/server-secret.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type StoreKind, type TestDatabase } from '../helpers/test-database.js';

export const keys = deriveKeyMaterial('importer-tests-secret-0123456789abcdef0123456789');

/** A fresh, empty store. */
export interface TempStore {
  readonly kind: StoreKind;
  readonly store: Store;
  /** A temp directory for the test's files. */
  readonly dir: string;
  /** Imports lines (objects are written as JSON, strings as they are), one per line. */
  importLines(lines: readonly (string | object)[], options?: ImportOptions): Promise<ImportResult>;
  /** Every row of every table, read straight from the database, in key order (code point order for text). */
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

export interface Snapshot {
  readonly accounts: Record<string, unknown>[];
  readonly items: Record<string, unknown>[];
  readonly purchases: Record<string, unknown>[];
}

/**
 * Registers the hooks that give each test of the enclosing `describe` a fresh store of this kind
 * (call it inside the describe): an SQLite file per test; for PostgreSQL one database per
 * describe, emptied before each test (creating a database per test would cost too much).
 * Returns the function that makes the store.
 */
export function tempStores(kind: StoreKind): () => Promise<TempStore> {
  if (kind === 'sqlite') return createSqliteTempStore;
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.drop();
  });
  return async () => {
    if (!database) throw new Error('the PostgreSQL test database was not created');
    return createPostgresTempStore(database);
  };
}

async function createSqliteTempStore(): Promise<TempStore> {
  const dir = mkdtempSync(join(tmpdir(), 'importer-test-'));
  const path = join(dir, 'store.db');
  const store = await openSqliteStore(path);
  return {
    kind: 'sqlite',
    store,
    dir,
    importLines: (lines, options) => importNdjson(store, keys, ndjson(lines), options),
    snapshot: async () => {
      const db = new BetterSqlite3(path, { readonly: true });
      try {
        return {
          accounts: db.prepare('SELECT * FROM accounts ORDER BY username').all() as Record<string, unknown>[],
          items: db.prepare('SELECT * FROM items ORDER BY id').all() as Record<string, unknown>[],
          purchases: db.prepare('SELECT * FROM purchases ORDER BY code_key').all() as Record<string, unknown>[],
        };
      } finally {
        db.close();
      }
    },
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function createPostgresTempStore(database: TestDatabase): Promise<TempStore> {
  const store = await openPostgresStore(database.url, { poolSize: 4 });
  await database.truncate();
  const dir = mkdtempSync(join(tmpdir(), 'importer-test-'));
  return {
    kind: 'postgres',
    store,
    dir,
    importLines: (lines, options) => importNdjson(store, keys, ndjson(lines), options),
    snapshot: async () => ({
      accounts: await database.query('SELECT * FROM accounts ORDER BY username COLLATE "C"'),
      items: await database.query('SELECT * FROM items ORDER BY id'),
      purchases: await database.query('SELECT * FROM purchases ORDER BY code_key COLLATE "C"'),
    }),
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** NDJSON text for these lines. */
export function ndjsonText(lines: readonly (string | object)[]): string {
  return lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
}

/** A stream of these lines, one chunk per line, as `Readable.from` gives. */
export function ndjson(lines: readonly (string | object)[]): Readable {
  return Readable.from(lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`));
}

/** A valid account line; `undefined` in the overrides leaves a field out. */
export function accountLine(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'account',
    username: 'jdoe',
    email: 'j@example.com',
    firstname: 'Jo',
    lastname: 'Doe',
    balance: '120.50',
    status: 'active',
    registered_at: '2023-01-02T03:04:05Z',
    profile: {
      heading: 'Admin themes',
      description: 'Since 2023.',
      contact_email: 'help@example.com',
      social_links: { x: 'https://x.com/jdoe', github: 'https://github.com/jdoe' },
      avatar: 'https://cdn.example.com/a.png',
      cover: 'https://cdn.example.com/c.png',
    },
    ...overrides,
  };
}

export function itemLine(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'item',
    id: 101,
    account: 'jdoe',
    name: 'Clean Admin',
    description: 'An admin theme.',
    category: 'Scripts',
    sub_category: 'PHP',
    options: ['Responsive'],
    version: '1.2.3',
    demo_link: 'https://demo.example.com',
    tags: ['admin', 'dark'],
    preview_type: 'image',
    thumbnail: 'https://cdn.example.com/t.png',
    preview_image: 'https://cdn.example.com/p.png',
    screenshots: ['https://cdn.example.com/s1.png'],
    price: { regular: '19.99', extended: 49 },
    supported: true,
    status: 'approved',
    published_at: '2023-02-01T00:00:00+02:00',
    ...overrides,
  };
}

export function purchaseLine(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'purchase',
    code: 'ABC-123_x',
    item_id: 101,
    license_type: 'regular',
    price: '19.99',
    supported_until: '2025-02-01T00:00:00Z',
    downloaded: true,
    status: 'active',
    date: '2024-02-01T10:00:00.250Z',
    ...overrides,
  };
}

/** The lines of a failed import as the CLI prints them. */
export function errorLines(result: ImportResult): string[] {
  if (result.ok) throw new Error(`expected the import to fail, it succeeded: ${JSON.stringify(result.counts)}`);
  return result.errors.map((error) => `line ${error.line}: ${error.message}`);
}

export const counts = (inserted: number, updated: number, unchanged: number) => ({ inserted, updated, unchanged });
