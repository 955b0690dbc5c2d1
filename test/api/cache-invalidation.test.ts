import { Readable } from 'node:stream';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { CHANGE_CHANNEL, StoreChanges } from '../../src/store/changes/change-log.js';
import { openStore } from '../../src/store/open-store.js';
import { withDefaultUser } from '../../src/store/postgres/postgres-store.js';
import type { ActivityDelta, Store } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from './store-lines.js';

/**
 * A change clears what it changed: a write made through another handle on the store (as the CLI,
 * another process or another instance makes it) drops just the cache entries it names, and a
 * write that changes nothing the caches hold (a session, a key's use, an activity flush, an
 * update to the values a row has) names nothing. Counted with the cache lookup metric.
 */
const TOKEN = 'invalidation-admin-token-0123456789';
const ANN = 'ann-key-0123456789abcdef0123';
const BOB = 'bob-key-0123456789abcdef0123';
const LINES = [
  accountLine('ann', ANN),
  accountLine('bob', BOB),
  itemLine(801, 'ann', { name: 'Ann item' }),
  itemLine(802, 'bob', { name: 'Bob item' }),
  purchaseLine('CODE-A1', 801),
  purchaseLine('CODE-A2', 801),
  purchaseLine('CODE-B1', 802),
  purchaseLine('CODE-MARK', 802),
];

/** The lines as the store holds them between cases (CODE-MARK is the marker, toggled by the cases). */
const STORED_LINES = LINES.slice(0, -1);

/** The value of one sample of the Prometheus text, by its exact name and labels. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** Waits (asking again on each turn of the event loop, 2 s at most) until `done` says so. */
async function until(done: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('not seen within 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe.each(TEST_STORES)('a change clears what it changed (%s)', (kind) => {
  let t: TestApp;
  /** Another handle on the same store: the writer, as the CLI or another instance. */
  let other: Store;
  /** A third handle that only reads the change log: what every process hears. */
  let watcher: Store;

  beforeAll(async () => {
    t = await createTestApp(kind, { env: { ADMIN_TOKEN: TOKEN }, lines: LINES });
    const config = loadConfig(t.env).store;
    other = await openStore(config);
    watcher = await openStore(config);
  });
  afterAll(async () => {
    await watcher?.close();
    await other?.close();
    await t?.close();
  });

  const validate = (key: string, code: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': key },
      payload: { purchase_code: code },
    });
  const purchaseLookups = async () => {
    const response = await t.app.inject({
      url: '/admin/v1/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    return {
      hits: sample(response.body, 'marketplace_cache_lookups_total{cache="purchases",result="hit"}'),
      misses: sample(response.body, 'marketplace_cache_lookups_total{cache="purchases",result="miss"}'),
    };
  };
  /** Every code validated twice: all four are cached. */
  const warm = async () => {
    for (const [key, code] of [
      [ANN, 'CODE-A1'],
      [ANN, 'CODE-A2'],
      [BOB, 'CODE-B1'],
      [BOB, 'CODE-MARK'],
    ] as const) {
      await validate(key, code);
      await validate(key, code);
    }
  };
  /**
   * Refunds CODE-MARK (then makes it active again) through the other handle and waits until the
   * app answers for it as it is: by then the app has read every entry logged before it.
   */
  const markAndWait = async () => {
    const before = (await validate(BOB, 'CODE-MARK')).statusCode;
    const status = before === 200 ? 'refunded' : 'active';
    await other.setPurchaseStatus('code-mark', status);
    const wanted = status === 'refunded' ? 404 : 200;
    await until(async () => (await validate(BOB, 'CODE-MARK')).statusCode === wanted);
  };
  /** What the watcher hears until it names CODE-MARK (the marker written last). */
  const heardUntilMark = async () => {
    const heard = new StoreChanges();
    await until(() => {
      const changes = watcher.changesSinceLastCheck();
      if (changes) heard.merge(changes);
      return heard.all || heard.purchases.has('code-mark');
    });
    return heard;
  };

  it("drops only the changed purchase's answer: other sellers' and other codes' entries still hit", async () => {
    await warm();
    const before = await purchaseLookups();
    await other.setPurchaseStatus('code-a1', 'refunded');
    await until(async () => (await validate(ANN, 'CODE-A1')).statusCode === 404);
    const seen = await purchaseLookups();
    // Only the changed code was read again.
    expect(seen.misses - before.misses).toBe(1);
    expect((await validate(ANN, 'CODE-A2')).statusCode).toBe(200);
    expect((await validate(BOB, 'CODE-B1')).statusCode).toBe(200);
    expect((await validate(ANN, 'CODE-A1')).statusCode).toBe(404);
    const after = await purchaseLookups();
    expect([after.misses - seen.misses, after.hits - seen.hits]).toEqual([0, 3]);
    await other.setPurchaseStatus('code-a1', 'active');
    await until(async () => (await validate(ANN, 'CODE-A1')).statusCode === 200);
  });

  it('drops the purchases that show a changed item, and no other', async () => {
    await warm();
    const before = await purchaseLookups();
    const result = await importNdjson(
      other,
      t.keys,
      Readable.from([JSON.stringify(itemLine(801, 'ann', { name: 'Ann item renamed' }))]),
    );
    expect(result.ok).toBe(true);
    await until(async () => (await validate(ANN, 'CODE-A1')).body.includes('"name":"Ann item renamed"'));
    expect((await validate(ANN, 'CODE-A2')).body).toContain('"name":"Ann item renamed"');
    const seen = await purchaseLookups();
    // The two codes of the item were read again; Bob's are still cached.
    expect(seen.misses - before.misses).toBe(2);
    expect((await validate(BOB, 'CODE-B1')).statusCode).toBe(200);
    expect((await purchaseLookups()).misses).toBe(seen.misses);
    const back = await importNdjson(other, t.keys, Readable.from([JSON.stringify(LINES[2])]));
    expect(back.ok).toBe(true);
    await until(async () => (await validate(ANN, 'CODE-A1')).body.includes('"name":"Ann item"'));
  });

  it('names nothing for writes that change nothing the caches hold, and clears nothing', async () => {
    await warm();
    // What the watcher has to say of the cases before.
    await markAndWait();
    await heardUntilMark();
    const before = await purchaseLookups();
    const now = Date.now();
    // A workspace session, a key's use, an activity flush, webhook bookkeeping.
    await other.createSession({
      id_hash: 'session-hash',
      username: 'ann',
      created_at: now,
      last_seen_at: now,
      csrf_secret: 'csrf',
      credential_tag: 'tag',
      flash: null,
    });
    await other.touchSession('session-hash', now + 1);
    await other.setSessionFlash('session-hash', '{"note":"x"}');
    await other.deleteSession('session-hash');
    await other.recordKeyUses([{ username: 'ann', at: now }]);
    const delta: ActivityDelta = {
      account: 'ann',
      codeKey: 'code-a1',
      day: '2024-01-03',
      validations: 1,
      firstSeen: now,
      lastSeen: now,
      networksStored: false,
      sketchWith: () => ({ sketch: '', networks: 1 }),
    };
    await other.recordActivity([delta]);
    await other.webhooks().dropBefore(now);
    await other.claimLoginStep(1, 1);
    // Writes of the values rows already have.
    expect(await other.setPurchaseStatus('code-a2', 'active')).toBeDefined();
    expect(await other.setAccountStatus('bob', 'active')).toBe(true);
    const again = await importNdjson(
      other,
      t.keys,
      Readable.from([STORED_LINES.map((l) => JSON.stringify(l)).join('\n')]),
    );
    expect(again.ok).toBe(true);
    await markAndWait();
    const heard = await heardUntilMark();
    expect({
      all: heard.all,
      tables: [...heard.tables],
      accounts: [...heard.accounts],
      items: [...heard.items],
      itemLists: [...heard.itemLists],
      purchases: [...heard.purchases],
      settings: [...heard.settings],
    }).toEqual({
      all: false,
      tables: [],
      accounts: [],
      items: [],
      itemLists: [],
      purchases: ['code-mark'],
      settings: [],
    });
    // The app read again only the marker's code (once per change it heard of it).
    const after = await purchaseLookups();
    for (const [key, code] of [
      [ANN, 'CODE-A1'],
      [ANN, 'CODE-A2'],
      [BOB, 'CODE-B1'],
    ] as const) {
      expect((await validate(key, code)).statusCode).toBe(200);
    }
    expect((await purchaseLookups()).misses).toBe(after.misses);
    expect(after.misses - before.misses).toBeLessThanOrEqual(2);
  });

  // PostgreSQL's listeners are woken by NOTIFY: a write that changes nothing wakes none.
  if (kind === 'postgres') {
    it('sends no NOTIFY for writes that change nothing', async () => {
      const listener = new pg.Client({ connectionString: withDefaultUser(t.env.DATABASE_URL as string) });
      const heard: string[] = [];
      const first = new Promise<void>((resolve) => {
        listener.on('notification', (message) => {
          heard.push(message.payload ?? '');
          resolve();
        });
      });
      await listener.connect();
      await listener.query(`LISTEN ${CHANGE_CHANNEL}`);
      try {
        await other.setPurchaseStatus('code-a2', 'active');
        await other.setAccountStatus('bob', 'active');
        await other.recordKeyUses([{ username: 'bob', at: Date.now() }]);
        const again = await importNdjson(
          other,
          t.keys,
          Readable.from([STORED_LINES.map((l) => JSON.stringify(l)).join('\n')]),
        );
        expect(again.ok).toBe(true);
        // Notifications arrive in order: the first one heard is this marker, so none came before it.
        await listener.query(`NOTIFY ${CHANGE_CHANNEL}, 'test marker'`);
        await first;
        expect(heard[0]).toBe('test marker');
      } finally {
        await listener.end();
      }
    });
  }

  it('names a large import per table, not per row', async () => {
    await markAndWait();
    await heardUntilMark();
    const lines = Array.from({ length: 5_100 }, (_, index) => JSON.stringify(purchaseLine(`BULK-${index}`, 802)));
    const result = await importNdjson(other, t.keys, Readable.from([lines.join('\n')]));
    expect(result.ok).toBe(true);
    await markAndWait();
    const heard = await heardUntilMark();
    expect([heard.all, [...heard.tables], heard.purchases.size]).toEqual([false, ['purchases'], 1]);
    expect((await validate(BOB, 'BULK-5099')).statusCode).toBe(200);
  });
});
