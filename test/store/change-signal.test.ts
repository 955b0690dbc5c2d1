import { Readable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { deriveKeyMaterial } from '../../src/keys/server-secret.js';
import { openStore } from '../../src/store/open-store.js';
import { CHANGE_CHANNEL } from '../../src/store/postgres/postgres-store.js';
import { CHANGE_CHECK_INTERVAL_MS } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

const keys = deriveKeyMaterial('change-signal-tests-secret-0123456789abcdef');
const account = (username: string, email: string) =>
  JSON.stringify({ type: 'account', username, email, registered_at: '2024-01-01T00:00:00Z' });

/** Asks until the store says it changed (true), or 1 s has passed (false). */
async function seesChangeWithin1s(store: Store): Promise<boolean> {
  const deadline = Date.now() + 1000;
  while (Date.now() < deadline) {
    if (store.changedSinceLastCheck()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/**
 * Drains what the store has to say, then checks it has nothing more. On PostgreSQL a marker entry
 * is added to the change log (and NOTIFY sent) after everything the test did: the log is read in
 * order, so once the store has named the marker it has read all before it. SQLite is asked for its data_version directly
 * (at most once per CHANGE_CHECK_INTERVAL_MS): asking through one such interval drains it.
 */
async function settled(store: Store, database: TestDatabase): Promise<void> {
  if (database.kind === 'postgres') {
    await database.query(`INSERT INTO change_log (kind, key, at) VALUES ('setting', 'test marker', 0)`);
    await database.query(`NOTIFY ${CHANGE_CHANNEL}, 'test marker'`);
    const deadline = Date.now() + 1000;
    let marked = false;
    while (!marked && Date.now() < deadline) {
      marked = store.changesSinceLastCheck()?.settings.has('test marker') === true;
      if (!marked) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(marked).toBe(true);
  } else {
    const until = performance.now() + CHANGE_CHECK_INTERVAL_MS;
    while (performance.now() <= until) {
      store.changedSinceLastCheck();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  expect(store.changedSinceLastCheck()).toBe(false);
}

describe.each(TEST_STORES)('the change signal across stores on one database (%s)', (kind) => {
  let database: TestDatabase;
  let reader: Store;
  let writer: Store;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const config = loadConfig(database.env);
    reader = await openStore(config.store);
    writer = await openStore(config.store);
  });
  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    await database?.drop();
  });

  it('tells a store of an import made by another, once', async () => {
    await settled(reader, database);
    const result = await importNdjson(writer, keys, Readable.from([account('ann', 'a@example.com')]));
    expect(result.ok).toBe(true);
    expect(await seesChangeWithin1s(reader)).toBe(true);
    await settled(reader, database);
    // The writer knows of its own write at once.
    expect(writer.changedSinceLastCheck()).toBe(true);
  });

  it('tells a store of a key replaced by another', async () => {
    await settled(reader, database);
    expect(await writer.replaceAccountKey('ann', { digest: 'd'.repeat(64), cipher: 'c' })).toBe(true);
    expect(await seesChangeWithin1s(reader)).toBe(true);
  });

  it('stays quiet while nothing is written', async () => {
    await settled(reader, database);
    // On PostgreSQL, a listener of the test's own shows what was sent: reads send nothing, so the
    // first notification it gets is the marker sent after them.
    const listener = kind === 'postgres' ? new pg.Client({ connectionString: database.url }) : undefined;
    const heard = new Promise<string | undefined>((resolve) => {
      listener?.on('notification', (message) => resolve(message.payload));
    });
    await listener?.connect();
    await listener?.query(`LISTEN ${CHANGE_CHANNEL}`);
    try {
      await reader.accountByUsername('ann');
      await writer.isEmpty();
      await settled(reader, database);
      if (listener) expect(await heard).toBe('test marker');
    } finally {
      await listener?.end();
    }
  });
});

describe.runIf(TEST_STORES.includes('postgres'))('the PostgreSQL change signal', () => {
  let database: TestDatabase;
  let store: Store;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    store = await openStore(loadConfig(database.env).store);
  });
  afterAll(async () => {
    await store?.close();
    await database?.drop();
  });

  it('hears writes made by hand, outside the service (the trigger sends NOTIFY)', async () => {
    await importNdjson(store, keys, Readable.from([account('bea', 'b@example.com')]));
    await settled(store, database);
    await database.query(`UPDATE accounts SET email = 'new@example.com' WHERE username = 'bea'`);
    expect(await seesChangeWithin1s(store)).toBe(true);
    await settled(store, database);
    await database.query('DELETE FROM accounts');
    expect(await seesChangeWithin1s(store)).toBe(true);
  });

  it('says "changed" on every call while its listening connection is down, and listens again', async () => {
    await settled(store, database);
    const [killed] = await database.query<{ killed: boolean }>(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
       WHERE application_name = 'marketplace-api:listen' AND datname = current_database()`,
    );
    expect(killed?.killed).toBe(true);
    // The store learns of the lost connection when its socket closes, a moment after the kill.
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && !store.changedSinceLastCheck()) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // Blind: every call says changed, until the listener is back (it retries after 100 ms, then backs off).
    let blindCalls = 1;
    while (Date.now() < deadline && store.changedSinceLastCheck()) {
      blindCalls++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(blindCalls).toBeGreaterThan(2);
    expect(store.changedSinceLastCheck()).toBe(false);
    // And it hears again.
    await database.query(`INSERT INTO accounts SELECT 'cid', email, firstname, lastname, balance, status,
      registered_at, heading, description, contact_email, social_links, avatar, cover, 'x', 'y'
      FROM (SELECT ''::text AS email, '' AS firstname, '' AS lastname, 0::int8 AS balance, 'active' AS status,
        '2024-01-01T00:00:00.000Z' AS registered_at, '' AS heading, '' AS description, '' AS contact_email,
        '[]' AS social_links, '' AS avatar, '' AS cover) AS v`);
    expect(await seesChangeWithin1s(store)).toBe(true);
  });
});
