import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { ANALYZE_AFTER_ROWS } from '../../src/store/postgres/postgres-import.js';
import { openPostgresStore } from '../../src/store/postgres/postgres-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';
import { accountLine, itemLine, keys, ndjson, purchaseLine } from './import-fixtures.js';

/** An account, its item, and `count` purchases of it. */
function lines(count: number): Record<string, unknown>[] {
  const purchases = Array.from({ length: count }, (_, n) => purchaseLine({ code: `stat-code-${n}` }));
  return [accountLine(), itemLine(), ...purchases];
}

describe.runIf(TEST_STORES.includes('postgres'))('an import into PostgreSQL and the planner statistics', () => {
  let database: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    store = await openPostgresStore(database.url, { poolSize: 2 });
  });
  afterEach(async () => {
    await store.close();
    await database.drop();
  });

  /** The tables of the three records that have planner statistics, in name order. */
  const analyzed = async () =>
    (
      await database.query<{ tablename: string }>(
        `SELECT DISTINCT tablename FROM pg_stats
          WHERE schemaname = current_schema() AND tablename IN ('accounts', 'items', 'purchases')
          ORDER BY tablename`,
      )
    ).map((row) => row.tablename);

  it(`analyzes a table it wrote ${ANALYZE_AFTER_ROWS} rows into, and only such a table`, async () => {
    expect(await analyzed()).toEqual([]);
    const result = await importNdjson(store, keys, ndjson(lines(ANALYZE_AFTER_ROWS)));
    expect(result.ok).toBe(true);
    expect(await analyzed()).toEqual(['purchases']);
    const [purchases] = await database.query<{ reltuples: number }>(
      "SELECT reltuples FROM pg_class WHERE oid = 'purchases'::regclass",
    );
    expect(purchases?.reltuples).toBe(ANALYZE_AFTER_ROWS);
  });

  it('leaves the statistics to autovacuum after an import of fewer rows, or of rows it left unchanged', async () => {
    const few = lines(ANALYZE_AFTER_ROWS - 1);
    expect((await importNdjson(store, keys, ndjson(few))).ok).toBe(true);
    expect(await analyzed()).toEqual([]);
    expect((await importNdjson(store, keys, ndjson(few))).ok).toBe(true);
    expect((await importNdjson(store, keys, ndjson(few))).ok).toBe(true);
    expect(await analyzed()).toEqual([]);
  });

  it('counts the rows it updated with those it inserted', async () => {
    const half = Math.ceil(ANALYZE_AFTER_ROWS / 2);
    expect((await importNdjson(store, keys, ndjson(lines(half)))).ok).toBe(true);
    expect(await analyzed()).toEqual([]);
    // The same codes at another price (updated) and as many new ones (inserted).
    const repriced = lines(half).map((line) => (line.type === 'purchase' ? { ...line, price: '9.99' } : line));
    const more = Array.from({ length: half }, (_, n) => purchaseLine({ code: `more-code-${n}` }));
    expect((await importNdjson(store, keys, ndjson([...repriced, ...more]))).ok).toBe(true);
    expect(await analyzed()).toEqual(['purchases']);
  });
});
