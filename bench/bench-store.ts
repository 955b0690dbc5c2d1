import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { importNdjson } from '../src/importer/import-ndjson.js';
import { deriveKeyMaterial } from '../src/keys/server-secret.js';
import { openPostgresStore } from '../src/store/postgres/postgres-store.js';
import { openSqliteStore } from '../src/store/sqlite/sqlite-store.js';
import type { Store } from '../src/store/store.js';
import { BIG_SELLER, FIFTY_SELLER } from './bench-sellers.js';
import { type Dataset, datasetLines } from './generate-data.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

/** The server secret of the benchmark store (a fixed one, so the cached store stays usable). */
export const BENCH_SECRET = 'bench-secret-not-for-production-0123456789abcdef';

function* sellerLines(seller: typeof FIFTY_SELLER): Generator<string> {
  yield JSON.stringify({
    type: 'account',
    username: seller.username,
    email: `${seller.username}@example.com`,
    firstname: 'Bench',
    lastname: 'Seller',
    balance: '100.00',
    api_key: seller.apiKey,
    registered_at: '2023-01-01T00:00:00Z',
  });
  for (let n = 0; n < seller.items; n++) {
    const id = seller.firstId + n;
    yield JSON.stringify({
      type: 'item',
      id,
      account: seller.username,
      name: `Bench item ${id}`,
      description: 'An item of a big seller, for the items list benchmark.',
      category: 'Scripts',
      sub_category: 'PHP',
      options: ['Responsive'],
      version: '1.0.0',
      demo_link: `https://demo.example.com/${id}`,
      tags: ['bench'],
      preview_type: 'image',
      thumbnail: `https://cdn.example.com/items/${id}/thumb.png`,
      preview_image: `https://cdn.example.com/items/${id}/preview.jpg`,
      screenshots: [`https://cdn.example.com/items/${id}/shot-1.png`],
      price: { regular: '19.99', extended: '99.95' },
      supported: true,
      status: 'approved',
      published_at: '2023-02-01T00:00:00Z',
    });
  }
}

async function* allLines(data: Dataset): AsyncGenerator<string> {
  let chunk = '';
  for (const line of [...sellerLines(FIFTY_SELLER), ...sellerLines(BIG_SELLER)]) chunk += `${line}\n`;
  for (const line of datasetLines(data)) {
    chunk += `${line}\n`;
    if (chunk.length > 1 << 20) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk;
}

/**
 * The benchmark store for `data`, generated and imported once into bench/.cache and reused by
 * later runs (a marker file records what it holds).
 */
export async function prepareBenchStore(cacheDir: string, data: Dataset, log: (line: string) => void): Promise<string> {
  mkdirSync(cacheDir, { recursive: true });
  const name = `http-${data.accounts}-${data.items}-${data.purchases}-${data.seed}`;
  const path = join(cacheDir, `${name}.db`);
  const marker = join(cacheDir, `${name}.done`);
  if (existsSync(marker) && existsSync(path) && readFileSync(marker, 'utf8') === BENCH_SECRET) {
    log(`store: reusing ${path}`);
    return path;
  }
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  log(`store: generating and importing ${data.purchases.toLocaleString('en')} purchases (once; reused after)`);
  const started = performance.now();
  await importBenchData(await openSqliteStore(path), data);
  writeFileSync(marker, BENCH_SECRET);
  log(`store: ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return path;
}

/** Imports the benchmark data into `store`, then closes it. */
async function importBenchData(store: Store, data: Dataset): Promise<void> {
  try {
    const result = await importNdjson(store, deriveKeyMaterial(BENCH_SECRET), Readable.from(allLines(data)));
    if (!result.ok) throw new Error(`bench data rejected: ${JSON.stringify(result.errors.slice(0, 3))}`);
  } finally {
    await store.close();
  }
}

/**
 * The benchmark store for `data` on the PostgreSQL server `serverUrl` names: a database of its
 * own, made and imported for this run (about a minute for the full data set); the caller drops it.
 */
export async function preparePostgresBenchStore(
  serverUrl: string,
  data: Dataset,
  log: (line: string) => void,
): Promise<ScratchDatabase> {
  const database = await createScratchDatabase(serverUrl, 'marketplace_http_bench');
  try {
    log(`store: importing ${data.purchases.toLocaleString('en')} purchases into PostgreSQL database ${database.name}`);
    const started = performance.now();
    await importBenchData(await openPostgresStore(database.url, { poolSize: 2 }), data);
    log(`store: ready in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return database;
  } catch (error) {
    await database.drop();
    throw error;
  }
}
