import { threadId } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { dayOf } from '../../src/activity/activity-days.js';
import { NetworkSketch } from '../../src/activity/network-sketch.js';
import type { Store } from '../../src/store/store.js';
import { createBackgroundWriter, WriterThread } from '../../src/writer/background-writer.js';
import { activityDelta } from '../helpers/activity-delta.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { AUTH, configWith, eventually, FAST_WEBHOOKS, KEY, LINES, TOKEN } from '../webhooks/fixtures.js';
import { Receiver } from '../webhooks/receiver.js';

/**
 * The writes a serving process makes for no request (activity flushes, keys' last use, the webhook
 * queue's bookkeeping) go to its background writer: a thread with a connection of its own, on an
 * SQLite file and on PostgreSQL, so that the API's thread runs none of their statements. Nothing
 * handed to it is lost when the app closes.
 */

const CODE = 'ABC-123_x';
const CODE_KEY = CODE.toLowerCase();

const BACKGROUND_WRITES: ReadonlySet<PropertyKey> = new Set(['recordKeyUses', 'recordActivity', 'dropActivityBefore']);
const BOOKKEEPING: ReadonlySet<PropertyKey> = new Set(['claim', 'finish', 'dropBefore', 'updateEndpoint']);

/** A view of `target` whose calls named in `refused` fail, each recorded in `made`; every other call is the target's. */
function refusing<T extends object>(target: T, refused: ReadonlySet<PropertyKey>, made: string[]): T {
  return new Proxy(target, {
    get(object, name) {
      if (refused.has(name)) {
        return () => {
          made.push(String(name));
          return Promise.reject(new Error(`${String(name)} on the API's own connection`));
        };
      }
      const value = Reflect.get(object, name, object) as unknown;
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}

/** The store as the API's thread is given it, with every background write refused (see BACKGROUND_WRITES, BOOKKEEPING). */
function withoutBackgroundWrites(store: Store, made: string[]): Store {
  const view = refusing(store, BACKGROUND_WRITES, made);
  return new Proxy(view, {
    get(object, name) {
      if (name === 'webhooks') return () => refusing(store.webhooks(), BOOKKEEPING, made);
      return Reflect.get(object, name, object);
    },
  });
}

const validate = (t: TestApp, code = CODE) =>
  t.app.inject({
    method: 'POST',
    url: '/api/purchases/validation',
    headers: { 'x-api-key': KEY },
    payload: { purchase_code: code },
  });

describe.each(TEST_STORES)('background writes (%s)', (kind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('writes what was gathered before the app closes: a validation’s activity, the key’s use', async () => {
    t = await createTestApp(kind, { lines: LINES });
    const before = Date.now();
    expect((await validate(t)).statusCode).toBe(200);
    expect((await validate(t)).statusCode).toBe(200);
    // Nothing written yet: both wait for their flush (seconds away), or the close.
    expect(await t.store.keyLastUsedAt('jdoe')).toBeUndefined();
    expect(await t.store.activityDays('jdoe', [CODE_KEY], dayOf(before))).toEqual([]);
    await t.app.close();

    const usedAt = await t.store.keyLastUsedAt('jdoe');
    expect(usedAt).toBeGreaterThanOrEqual(before);
    const [day, ...more] = await t.store.activityDays('jdoe', [CODE_KEY], dayOf(before));
    expect(more).toEqual([]);
    expect(day).toMatchObject({ account: 'jdoe', codeKey: CODE_KEY, validations: 2, networks: 1 });
    // A thread of its own wrote them, on either store.
    const writer = t.app.backgroundWriter.lastWriterThread();
    expect(writer).toBeTypeOf('number');
    expect(writer).not.toBe(threadId);
  });

  it('writes a counts-only flush whose day is not stored after all with its networks, and says where it keeps it', async () => {
    t = await createTestApp(kind, { lines: LINES });
    const sketch = new NetworkSketch();
    for (const hash of [11, 22, 33]) sketch.add(hash);
    const now = Date.now();
    const day = {
      account: 'jdoe',
      codeKey: CODE_KEY,
      day: dayOf(now),
      validations: 5,
      firstSeen: now - 1000,
      lastSeen: now,
      sketch: sketch.serialize(),
      networks: sketch.estimate(),
    };
    const rows: number[] = [];
    const writer = createBackgroundWriter(t.config.store, t.store, (error) => {
      throw error;
    });
    try {
      // Counts only, as from a process that wrote the day before: but the day is not there.
      await writer.recordActivity([{ ...activityDelta(day, true), rowStored: (row) => rows.push(row) }]);
      // Again, counts only: this time the day is stored.
      await writer.recordActivity([{ ...activityDelta(day, true), rowStored: (row) => rows.push(row) }]);
    } finally {
      await writer.close();
    }
    expect(await t.store.activityDays('jdoe', [CODE_KEY], day.day)).toEqual([{ ...day, validations: 10 }]);
    // SQLite tells where it keeps the day (the same row both times); PostgreSQL has no such thing.
    if (kind === 'sqlite') expect(rows).toEqual([rows[0], rows[0]]);
    else expect(rows).toEqual([]);
  });

  it('writes a flush of thousands of codes, packed a thousand at a time, each day whole and where it belongs', async () => {
    t = await createTestApp(kind, { lines: LINES });
    const now = Date.now();
    const days = Array.from({ length: 2_345 }, (_, at) => {
      const sketch = new NetworkSketch();
      for (let hash = 0; hash <= at % 3; hash++) sketch.add(at * 31 + hash);
      return {
        account: 'jdoe',
        codeKey: `packed-${at}`,
        day: dayOf(now),
        validations: (at % 7) + 1,
        firstSeen: now - at,
        lastSeen: now,
        sketch: sketch.serialize(),
        networks: sketch.estimate(),
      };
    });
    const rows = new Map<string, number>();
    const writer = createBackgroundWriter(t.config.store, t.store, (error) => {
      throw error;
    });
    try {
      await writer.recordActivity(
        days.map((day) => ({ ...activityDelta(day), rowStored: (row) => rows.set(day.codeKey, row) })),
      );
    } finally {
      await writer.close();
    }
    const stored = await t.store.activityDays(
      'jdoe',
      days.map((day) => day.codeKey),
      dayOf(now),
    );
    const byCode = (list: readonly { codeKey: string }[]) =>
      [...list].sort((a, b) => a.codeKey.localeCompare(b.codeKey));
    expect(byCode(stored)).toEqual(byCode(days));
    // SQLite says where it keeps each day, a row of its own; PostgreSQL has no such thing.
    if (kind === 'sqlite') expect(new Set(rows.values()).size).toBe(days.length);
    else expect(rows.size).toBe(0);
  });
});

describe.each(TEST_STORES)('the writer thread (%s)', (kind) => {
  let t: TestApp | undefined;
  let receiver: Receiver | undefined;
  afterEach(async () => {
    await t?.close();
    await receiver?.close();
    t = undefined;
    receiver = undefined;
  });

  it('makes every background write: the API’s connection makes none of them', async () => {
    const made: string[] = [];
    receiver = new Receiver();
    const url = await receiver.start();
    t = await createTestApp(kind, {
      configFile: configWith(FAST_WEBHOOKS),
      env: { ADMIN_TOKEN: TOKEN },
      lines: LINES,
      wrapStore: (store) => withoutBackgroundWrites(store, made),
    });
    const added = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts/jdoe/webhooks',
      headers: AUTH,
      payload: { url: `${url}/writer`, events: ['purchase.refunded'] },
    });
    expect(added.statusCode).toBe(201);
    const { id } = JSON.parse(added.body) as { id: string };
    expect((await validate(t)).statusCode).toBe(200);
    // Claimed, sent, and its outcome recorded: by the writer thread.
    receiver.answerNext(200);
    const refund = await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/CODE-2/refund', headers: AUTH });
    expect(refund.statusCode).toBe(200);
    await receiver.waitFor((received) => received.path === '/writer');
    const [delivery] = await eventually(
      () => t?.store.webhooks().deliveries(id, 10) ?? Promise.resolve([]),
      (rows) => rows.length === 1 && rows[0]?.state === 'succeeded',
      'the delivery recorded as succeeded',
    );
    expect(delivery).toMatchObject({ state: 'succeeded', attempts: 1, last_status: 200 });
    await t.app.close();

    expect(await t.store.keyLastUsedAt('jdoe')).toBeTypeOf('number');
    const [day] = await t.store.activityDays('jdoe', [CODE_KEY], dayOf(Date.now()));
    expect(day?.validations).toBe(1);
    expect(made).toEqual([]);
    expect(t.app.backgroundWriter.lastWriterThread()).not.toBe(threadId);
  });

  it('is replaced when it stops, and the log says so', async () => {
    t = await createTestApp(kind, { lines: LINES });
    const writer = t.app.backgroundWriter;
    expect(writer).toBeInstanceOf(WriterThread);
    await writer.recordKeyUses([{ username: 'jdoe', at: 1_000 }]);
    const first = writer.lastWriterThread();
    await (writer as WriterThread).interrupt();
    await eventually(
      async () => t?.logs.join('') ?? '',
      (logs) => logs.includes('the background writer thread stopped'),
      'the stop logged',
    );
    // The next write starts another thread, which makes it.
    await writer.recordKeyUses([{ username: 'jdoe', at: 2_000 }]);
    expect(writer.lastWriterThread()).not.toBe(first);
    expect(await t.store.keyLastUsedAt('jdoe')).toBe(2_000);
    const line = t.logs.find((logged) => logged.includes('the background writer thread stopped')) as string;
    expect(JSON.parse(line)).toMatchObject({ level: 50, reason: { message: expect.any(String) } });
  });
});
