import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteConnection } from '../../src/store/sqlite/sqlite-connection.js';
import { ReadSnapshot } from '../../src/store/sqlite/sqlite-read-snapshot.js';

const path = join(mkdtempSync(join(tmpdir(), 'snapshot-')), 'store.db');
const reader = new BetterSqlite3(path);
reader.pragma('journal_mode = WAL');
reader.exec('CREATE TABLE t (v INTEGER)');
reader.exec('INSERT INTO t VALUES (1)');
const writer = new BetterSqlite3(path);
const read = reader.prepare('SELECT max(v) FROM t').pluck();

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => {
  reader.close();
  writer.close();
});

describe('ReadSnapshot', () => {
  it('shares one read transaction for a while, then lets every read see the newest commit', () => {
    // The snapshot's age is counted by a timer: the clock is moved, not waited for.
    vi.useFakeTimers();
    const snapshot = new ReadSnapshot(new SqliteConnection(reader), 20);
    snapshot.enter();
    expect(reader.inTransaction).toBe(true);
    expect(read.get()).toBe(1);
    writer.exec('INSERT INTO t VALUES (2)');
    // Inside the snapshot, the commit made elsewhere is not seen yet...
    snapshot.enter();
    expect(read.get()).toBe(1);
    // ...nor just before it ages out...
    vi.advanceTimersByTime(19);
    expect(reader.inTransaction).toBe(true);
    expect(read.get()).toBe(1);
    // ...and once it has aged out (no read needed to end it), it is.
    vi.advanceTimersByTime(1);
    expect(reader.inTransaction).toBe(false);
    snapshot.enter();
    expect(read.get()).toBe(2);
    snapshot.end();
    expect(reader.inTransaction).toBe(false);
  });

  it('never opens one inside another transaction, nor ends that one', () => {
    const snapshot = new ReadSnapshot(new SqliteConnection(reader), 20);
    reader.exec('BEGIN IMMEDIATE');
    snapshot.enter();
    snapshot.end();
    expect(reader.inTransaction).toBe(true);
    reader.exec('INSERT INTO t VALUES (3)');
    reader.exec('COMMIT');
    expect(read.get()).toBe(3);
  });

  it('does not hold the writer back', () => {
    const snapshot = new ReadSnapshot(new SqliteConnection(reader), 1000);
    snapshot.enter();
    expect(read.get()).toBe(3);
    writer.exec('BEGIN IMMEDIATE');
    writer.exec('INSERT INTO t VALUES (4)');
    writer.exec('COMMIT');
    snapshot.end();
    expect(read.get()).toBe(4);
  });

  it('opens the next snapshot on the handle taken after a reopening, the old one given up with its own', () => {
    const first = new BetterSqlite3(path);
    const connection = new SqliteConnection(first);
    const snapshot = new ReadSnapshot(connection, 1000);
    snapshot.enter();
    expect(first.inTransaction).toBe(true);
    const second = new BetterSqlite3(path);
    connection.swap(second);
    expect(first.open).toBe(false);
    snapshot.enter();
    expect(second.inTransaction).toBe(true);
    snapshot.end();
    expect(second.inTransaction).toBe(false);
    connection.close();
    expect(second.open).toBe(false);
  });
});
