/**
 * What one follower poll costs MarketBob's database on the big set (bench/marketbob-data.ts:
 * 10,000 users, 100,000 items, 1,000,000 sales and purchases), with MarketBob's foreign keys, the
 * follower's indexes and the deletion log's triggers: each statement of a poll as the follower
 * sends it (through MarketbobReader and deletion-log.ts), timed, with the rows MariaDB read for it
 * (its `Handler_read_*` counters), and its EXPLAIN; then the same after a seller with sales and
 * purchases is deleted (the trigger's cost, and the poll that reads the log).
 *
 *   npm run build && node dist/bench/marketbob-poll-cost.js [--purchases N] [--polls N] [--keep]
 *
 * MariaDB: BENCH_MARIADB_URL (default mysql://root@127.0.0.1:3306/test); a database
 * `mb_poll_<random>` is made there and dropped at the end (unless --keep).
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import mysql from 'mysql2/promise';
import { deletionsWatermark, readDeletions } from '../src/marketbob/deletion-log.js';
import { openMarketbob } from '../src/marketbob/marketbob-connection.js';
import { MarketbobReader } from '../src/marketbob/marketbob-reader.js';
import { marketbobDdl } from '../test/marketbob/marketbob-schema.js';
import { BIG_SET, fillBigMarketplace } from './marketbob-data.js';

const { values: args } = parseArgs({
  options: {
    purchases: { type: 'string', default: String(BIG_SET.purchases) },
    polls: { type: 'string', default: '20' },
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
const name = `mb_poll_${randomBytes(4).toString('hex')}`;
const admin = await mysql.createConnection({ uri: serverUrl });
await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
const address = new URL(serverUrl);
address.pathname = `/${name}`;
const connection = await mysql.createConnection({ uri: address.href, dateStrings: true, multipleStatements: false });
// One connection: the session's counters are the poll's.
const db = openMarketbob(address.href, { connections: 1 });

const HANDLERS = [
  'Handler_read_first',
  'Handler_read_key',
  'Handler_read_last',
  'Handler_read_next',
  'Handler_read_prev',
  'Handler_read_rnd',
  'Handler_read_rnd_next',
];
/** Rows (index entries and records) the session has read so far. */
const rowsRead = async () => {
  const { rows } = await sql<{
    Variable_name: string;
    Value: string;
  }>`SHOW SESSION STATUS LIKE 'Handler_read%'`.execute(db);
  return rows.filter((row) => HANDLERS.includes(row.Variable_name)).reduce((sum, row) => sum + Number(row.Value), 0);
};

try {
  for (const statement of marketbobDdl({ validity: true, followerIndexes: true, foreignKeys: true, deletionLog: true }))
    await connection.query(statement);
  await connection.query('SET foreign_key_checks = 0');
  let started = performance.now();
  await fillBigMarketplace(connection, size);
  await connection.query('SET foreign_key_checks = 1');
  // A discount on every 100th item, active on half of them.
  await connection.query(
    `INSERT INTO item_discounts (item_id, regular_percentage, regular_price, extended_price, starting_at, ending_at,
       status, created_at, updated_at)
     SELECT 1000 + seq, 20, 15.99, NULL, '2024-01-01', '2030-01-01', seq % 2, '2024-01-01 00:00:00',
       '2024-01-01 00:00:00' + INTERVAL seq MINUTE
     FROM seq_0_to_${size.items - 1} WHERE seq % 100 = 0`,
  );
  await connection.query('ANALYZE TABLE users, items, purchases, sales, item_discounts');
  console.log(
    `generated ${size.users} users, ${size.items} items, ${size.purchases} purchases: ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  const reader = new MarketbobReader(db, true, true);
  const marks = {
    users: await reader.watermark('users'),
    items: await reader.watermark('items'),
    purchases: await reader.watermark('purchases'),
    discounts: await reader.watermark('item_discounts'),
  };
  let deletionsMark = await deletionsWatermark(db);
  // A steady poll: nothing new. Each statement as the follower sends it.
  const poll = async () => {
    const since = (mark: { maxUpdatedAt: string | null }) => mark.maxUpdatedAt ?? '1000-01-01 00:00:00';
    await reader.settings();
    await reader.usersPage(marks.users.maxId, 5000);
    await reader.usersUpdatedSince(since(marks.users), 5000, marks.users.maxId);
    await reader.itemsPage(marks.items.maxId, 5000);
    await reader.itemsUpdatedSince(since(marks.items), 5000, marks.items.maxId);
    await reader.purchasesPage(marks.purchases.maxId, 5000);
    await reader.purchasesUpdatedSince(since(marks.purchases), 5000, marks.purchases.maxId);
    await reader.discountsPage(marks.discounts.maxId, 5000);
    await reader.discountsUpdatedSince(since(marks.discounts), 5000, marks.discounts.maxId);
    const deletions = await readDeletions(db, deletionsMark, 5000);
    await reader.categoryPrints();
    return deletions;
  };
  await poll();
  const noise = -(await rowsRead()) + (await rowsRead());
  const polls = Number(args.polls);
  const measure = async (label: string) => {
    const before = await rowsRead();
    const start = performance.now();
    for (let i = 0; i < polls; i++) await poll();
    const elapsed = performance.now() - start;
    const read = (await rowsRead()) - before - noise * polls;
    console.log(
      `${label}: ${(elapsed / polls).toFixed(1)} ms a poll over ${polls}, ${Math.round(read / polls)} rows read a poll`,
    );
  };
  await measure('steady poll (nothing new), every row saved in the same second as generated');
  // A real marketplace's saves spread over time: each row's updated_at its created_at.
  started = performance.now();
  for (const table of ['users', 'items', 'purchases']) {
    await connection.query(`UPDATE ${table} SET updated_at = created_at`);
  }
  await connection.query('ANALYZE TABLE users, items, purchases');
  console.log(`updated_at spread: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  marks.users = await reader.watermark('users');
  marks.items = await reader.watermark('items');
  marks.purchases = await reader.watermark('purchases');
  await poll();
  await measure('steady poll (nothing new), saves spread over time');

  // A seller with items, sales and purchases (as seller and as buyer) deleted: the trigger writes
  // the log, the foreign keys cascade; then one poll reads the log.
  const [victim] = (await connection.query(
    `SELECT u.id, (SELECT COUNT(*) FROM items WHERE author_id = u.id) AS items,
       (SELECT COUNT(*) FROM purchases WHERE author_id = u.id) AS sold,
       (SELECT COUNT(*) FROM purchases WHERE user_id = u.id) AS bought
     FROM users u WHERE u.id = 42`,
  )) as unknown as [{ id: number; items: number; sold: number; bought: number }[]];
  const who = victim?.[0];
  started = performance.now();
  await connection.query('DELETE FROM users WHERE id = 42');
  const deleteMs = performance.now() - started;
  console.log(
    `DELETE FROM users WHERE id = 42 (${who?.items} items, ${who?.sold} purchases sold, ${who?.bought} bought; trigger and cascade): ${deleteMs.toFixed(0)} ms`,
  );
  const beforeDeletionPoll = await rowsRead();
  started = performance.now();
  const logged = await poll();
  console.log(
    `the poll after it: ${(performance.now() - started).toFixed(1)} ms, ${logged.length} log rows, ${(await rowsRead()) - beforeDeletionPoll - noise} rows read`,
  );
  deletionsMark = logged.at(-1)?.id ?? deletionsMark;

  const explain = async (label: string, statement: string) => {
    const [rows] = (await connection.query(`EXPLAIN ${statement}`)) as unknown as [Record<string, unknown>[]];
    console.log(`\n${label}\n  ${statement.replace(/\s+/g, ' ')}`);
    for (const row of rows) {
      console.log(
        `  | ${row.table} | ${row.type} | ${row.key} | ${row.ref} | ${row.rows} | ${row.Extra ?? ''} |`.replace(
          /null/g,
          'NULL',
        ),
      );
    }
  };
  await explain(
    'the deletion log, by primary key',
    `SELECT id, row_table, row_id, code FROM marketbob_api_deletions WHERE id > ${deletionsMark} ORDER BY id LIMIT 5000`,
  );
  await explain(
    'new discounts',
    `SELECT d.id, d.item_id, d.updated_at FROM item_discounts d WHERE d.id > ${marks.discounts.maxId} ORDER BY d.id LIMIT 5000`,
  );
  const keyset = (alias: string, mark: { maxId: number; maxUpdatedAt: string | null }) =>
    `(${alias}.updated_at > '${mark.maxUpdatedAt}' OR (${alias}.updated_at = '${mark.maxUpdatedAt}' AND ${alias}.id > ${mark.maxId}))
       ORDER BY ${alias}.updated_at, ${alias}.id LIMIT 5000`;
  await explain(
    'saved discounts',
    `SELECT d.id, d.item_id, d.updated_at FROM item_discounts d WHERE ${keyset('d', marks.discounts)}`,
  );
  await explain('saved users', `SELECT u.id FROM users u WHERE ${keyset('u', marks.users)}`);
  await explain(
    'saved purchases, with their sales',
    `SELECT p.id, s.price FROM purchases p LEFT JOIN sales s ON s.id = p.sale_id WHERE ${keyset('p', marks.purchases)}`,
  );
  await explain(
    'an item with its discount (items read again by id)',
    `SELECT i.id, d.status, d.regular_price, d.extended_price FROM items i
       LEFT JOIN item_discounts d ON d.id = (SELECT MIN(d1.id) FROM item_discounts d1 WHERE d1.item_id = i.id)
       WHERE i.id IN (1000, 1100) ORDER BY i.id LIMIT 2`,
  );
  await explain("the users trigger: the seller's items", 'SELECT id FROM items WHERE author_id = 43');
  await explain("the triggers: a buyer's purchases", 'SELECT id, code FROM purchases WHERE user_id = 43');
  await explain("the triggers: a seller's purchases", 'SELECT id, code FROM purchases WHERE author_id = 43');
  await explain("the items trigger: an item's purchases", 'SELECT id, code FROM purchases WHERE item_id = 1043');
} finally {
  await db.destroy();
  if (!args.keep) await connection.query(`DROP DATABASE ${name}`);
  await connection.end();
  await admin.end();
}
