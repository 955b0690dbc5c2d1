/**
 * MarketBob sync benchmark: builds a MarketBob-shaped database in MariaDB (10,000 users, 100,000
 * items, 1,000,000 sales and purchases by default, made inside the server: bench/marketbob-data.ts),
 * then times a full `marketbob sync` into a fresh store, a second one (nothing to change), and the
 * follower's reconciliation (nothing deleted).
 *
 *   npm run build && npm run bench:marketbob -- [--store sqlite|postgres] [--purchases N] [--keep]
 *
 * MariaDB: the server named by BENCH_MARIADB_URL (default mysql://root@127.0.0.1:3306/test); the
 * benchmark makes a database `mb_bench_<random>` there and drops it at the end (unless --keep).
 * PostgreSQL: BENCH_POSTGRES_URL, as bench/import-bench.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import mysql from 'mysql2/promise';
import { deriveKeyMaterial } from '../src/keys/server-secret.js';
import { syncReport } from '../src/marketbob/marketbob-commands.js';
import { openMarketbob } from '../src/marketbob/marketbob-connection.js';
import { reconcileMarketbob } from '../src/marketbob/marketbob-reconcile.js';
import { syncMarketbob } from '../src/marketbob/marketbob-sync.js';
import { openStore } from '../src/store/open-store.js';
import type { Store } from '../src/store/store.js';
import { marketbobDdl } from '../test/marketbob/marketbob-schema.js';
import { BIG_SET, fillBigMarketplace } from './marketbob-data.js';
import { createScratchDatabase, DEFAULT_BENCH_POSTGRES_URL, type ScratchDatabase } from './scratch-database.js';

const { values: args } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    purchases: { type: 'string', default: String(BIG_SET.purchases) },
    keep: { type: 'boolean', default: false },
  },
});

const purchases = Number(args.purchases);
const size = {
  users: Math.max(10, Math.round((BIG_SET.users * purchases) / BIG_SET.purchases)),
  items: Math.max(10, Math.round((BIG_SET.items * purchases) / BIG_SET.purchases)),
  purchases,
};
const serverUrl = process.env.BENCH_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306/test';
const name = `mb_bench_${randomBytes(4).toString('hex')}`;
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

const admin = await mysql.createConnection({ uri: serverUrl });
await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
const address = new URL(serverUrl);
address.pathname = `/${name}`;
const connection = await mysql.createConnection({ uri: address.href });
let dir: string | undefined;
let scratch: ScratchDatabase | undefined;
let store: Store | undefined;
const db = openMarketbob(address.href);
try {
  for (const statement of marketbobDdl({ validity: true, followerIndexes: true })) await connection.query(statement);
  let started = performance.now();
  await fillBigMarketplace(connection, size);
  console.log(
    `generated ${size.users} users, ${size.items} items, ${size.purchases} purchases in MariaDB ${name}: ${seconds(started)} s`,
  );
  const secret = randomBytes(32).toString('hex');
  if (args.store === 'postgres') {
    scratch = await createScratchDatabase(process.env.BENCH_POSTGRES_URL ?? DEFAULT_BENCH_POSTGRES_URL, 'mb_bench');
    store = await openStore({
      kind: 'postgres',
      url: scratch.url,
      poolSize: 4,
      statementTimeoutMs: 600_000,
      connectTimeoutMs: 5_000,
    });
  } else {
    dir = await mkdtemp(join(tmpdir(), 'marketbob-bench-'));
    store = await openStore({ kind: 'sqlite', path: join(dir, 'marketplace.db') });
  }
  const config = {
    url: address.href,
    pollSeconds: 2,
    mediaBaseUrl: 'https://market.example.com',
    timezone: 'UTC',
    reconcileMinutes: 10,
    behindSeconds: 30,
  };
  const keys = deriveKeyMaterial(secret);
  for (const run of ['first sync', 'second sync']) {
    started = performance.now();
    const result = await syncMarketbob(db, store, keys, config);
    const report = syncReport(result);
    console.log(`${run} into ${args.store}: ${seconds(started)} s`);
    for (const line of [
      ...report.stdout.filter((l) => !l.startsWith('skipped') && !l.startsWith('note')),
      ...report.stderr,
    ]) {
      console.log(`  ${line}`);
    }
  }
  // The follower's reconciliation over the same set (nothing deleted): what it costs each reconcileMinutes.
  started = performance.now();
  const location =
    scratch === undefined
      ? ({ kind: 'sqlite', path: join(dir as string, 'marketplace.db') } as const)
      : ({
          kind: 'postgres',
          url: scratch.url,
          poolSize: 1,
          statementTimeoutMs: 600_000,
          connectTimeoutMs: 5_000,
        } as const);
  const writer = store;
  const reconciled = await reconcileMarketbob(db, (work) => writer.runImport(work), location, keys);
  console.log(`reconciliation (nothing deleted) on ${args.store}: ${seconds(started)} s`, reconciled);
} finally {
  await db.destroy();
  await store?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  await scratch?.drop();
  if (!args.keep) await admin.query(`DROP DATABASE ${name}`);
  await connection.end();
  await admin.end();
}
