import { setImmediate } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import type { ActivityDay, ActivityDelta, ActivitySummary } from '../store.js';

/** A stored day of a code's activity (see migration 0008). */
export interface PurchaseActivityRow {
  account: string;
  code_key: string;
  day: string;
  validations: number;
  networks: number;
  first_seen: number;
  last_seen: number;
  sketch: string;
}

/** The activity tables as Kysely sees them: in the store's database, or in SQLite's activity file. */
export interface ActivityDatabase {
  purchase_activity: PurchaseActivityRow;
}

/**
 * Runs `work` in one write transaction that every other writer of the activity tables waits for
 * (SQLite: BEGIN IMMEDIATE; PostgreSQL: a transaction-scoped advisory lock), so that a stored day
 * read, merged and written back is never overwritten by another process's flush in between.
 */
export type ActivityTransaction = <T>(work: (db: Kysely<ActivityDatabase>) => Promise<T>) => Promise<T>;

/**
 * One stored day at a time, through statements prepared once (SQLite's activity file): inside the
 * write transaction, a read and a write per code through prepared statements cost less than
 * building and planning one statement for a batch of rows, which cost more than the writing.
 */
export interface ActivityRowAccess {
  find(account: string, codeKey: string, day: string): PurchaseActivityRow | undefined;
  /** Writes the day (inserted, or replacing the stored one); where it is kept. */
  put(row: PurchaseActivityRow): number;
  /**
   * Adds the delta's counts to its stored day, its sketch untouched: at the delta's stored row
   * when that row still holds its day, else found by key. Where the day is kept, or undefined
   * when it is not stored.
   */
  addCounts(delta: ActivityDelta): number | undefined;
}

/** Rows per statement: 8 values each, well under SQLite's and PostgreSQL's limits on parameters. */
const BATCH = 250;
/**
 * How long rows are written one by one (SQLite's activity file) before the event loop gets a turn:
 * a flush is one transaction, held while requests are answered between these. Timed, not counted:
 * a row whose sketch is read and merged costs many times one whose counts are added, so a count
 * of rows short enough for the costly kind would cut the cheap kind's flush into needless turns.
 */
const TURN_MS = 2;

const toDay = (row: PurchaseActivityRow): ActivityDay => ({
  account: row.account,
  codeKey: row.code_key,
  day: row.day,
  validations: Number(row.validations),
  firstSeen: Number(row.first_seen),
  lastSeen: Number(row.last_seen),
  sketch: row.sketch,
  networks: Number(row.networks),
});

/** The stored day (if any) with the delta added: counts summed, times widened, networks merged. */
function withDelta(before: PurchaseActivityRow | undefined, delta: ActivityDelta): PurchaseActivityRow {
  const { sketch, networks } = delta.sketchWith(before?.sketch);
  return {
    account: delta.account,
    code_key: delta.codeKey,
    day: delta.day,
    validations: Number(before?.validations ?? 0) + delta.validations,
    networks,
    first_seen: before === undefined ? delta.firstSeen : Math.min(Number(before.first_seen), delta.firstSeen),
    last_seen: before === undefined ? delta.lastSeen : Math.max(Number(before.last_seen), delta.lastSeen),
    sketch,
  };
}

const rowKeyOf = (delta: ActivityDelta) => ({ account: delta.account, code_key: delta.codeKey, day: delta.day });
const dayKey = (day: { account: string; code_key: string; day: string }) =>
  `${day.account}\n${day.code_key}\n${day.day}`;

/**
 * The activity queries: the reads written once for both dialects; the batched writes PostgreSQL's
 * (SQLite's activity file writes row by row through {@link ActivityRowAccess}).
 */
export class ActivityTables {
  constructor(
    private readonly db: Kysely<ActivityDatabase>,
    private readonly inWriteTransaction: ActivityTransaction,
    /** Per-row access in the write transaction's own connection, where the dialect has it. */
    private readonly rows?: ActivityRowAccess,
  ) {}

  async record(deltas: readonly ActivityDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    const { rows } = this;
    if (rows !== undefined) {
      await this.inWriteTransaction(async () => {
        let turnStarted = performance.now();
        for (let at = 0; at < deltas.length; at++) {
          // Each row is written synchronously: requests get their turn every TURN_MS.
          if (performance.now() - turnStarted >= TURN_MS) {
            await setImmediate();
            turnStarted = performance.now();
          }
          const delta = deltas[at] as ActivityDelta;
          let row = delta.networksStored ? rows.addCounts(delta) : undefined;
          row ??= rows.put(withDelta(rows.find(delta.account, delta.codeKey, delta.day), delta));
          // Told even when unchanged: the delta is this flush's, its entry the counter's.
          delta.rowStored?.(row);
        }
      });
      return;
    }
    await this.inWriteTransaction(async (db) => {
      for (let start = 0; start < deltas.length; start += BATCH) {
        const batch = deltas.slice(start, start + BATCH);
        const counted = await this.addCounts(
          db,
          batch.filter((delta) => delta.networksStored),
        );
        const whole = batch.filter((delta) => !counted.has(delta));
        if (whole.length > 0) await this.writeWhole(db, whole);
      }
    });
  }

  /**
   * Adds the deltas' counts to their stored days in one statement: the deltas whose days were
   * stored. The keys arrive as parallel arrays joined through `unnest`, which PostgreSQL plans as
   * one primary-key probe per delta; a list of row tuples (or a VALUES list) of the same size was
   * planned as a scan of the whole table once it held millions of days. The days come back as
   * their deltas' places, not their keys: a flush reads no string per code.
   */
  private async addCounts(db: Kysely<ActivityDatabase>, deltas: readonly ActivityDelta[]): Promise<Set<ActivityDelta>> {
    if (deltas.length === 0) return new Set();
    const { rows } = await sql<{ at: number }>`
      UPDATE purchase_activity AS stored
      SET validations = stored.validations + delta.validations,
          first_seen = least(stored.first_seen, delta.first_seen),
          last_seen = greatest(stored.last_seen, delta.last_seen)
      FROM unnest(
        ${deltas.map((delta) => delta.account)}::text[],
        ${deltas.map((delta) => delta.codeKey)}::text[],
        ${deltas.map((delta) => delta.day)}::text[],
        ${deltas.map((delta) => delta.validations)}::bigint[],
        ${deltas.map((delta) => delta.firstSeen)}::bigint[],
        ${deltas.map((delta) => delta.lastSeen)}::bigint[]
      ) WITH ORDINALITY AS delta (account, code_key, day, validations, first_seen, last_seen, at)
      WHERE stored.account = delta.account AND stored.code_key = delta.code_key AND stored.day = delta.day
      RETURNING delta.at::int4 AS at`.execute(db);
    return new Set(rows.map(({ at }) => deltas[at - 1] as ActivityDelta));
  }

  /** Reads the deltas' stored days (joined as `addCounts` joins them), and writes each back with its delta added (or new). */
  private async writeWhole(db: Kysely<ActivityDatabase>, deltas: readonly ActivityDelta[]): Promise<void> {
    const { rows: stored } = await sql<PurchaseActivityRow>`
      SELECT stored.*
      FROM unnest(
        ${deltas.map((delta) => delta.account)}::text[],
        ${deltas.map((delta) => delta.codeKey)}::text[],
        ${deltas.map((delta) => delta.day)}::text[]
      ) AS wanted (account, code_key, day)
      JOIN purchase_activity AS stored
        ON stored.account = wanted.account AND stored.code_key = wanted.code_key AND stored.day = wanted.day`.execute(
      db,
    );
    const byKey = new Map(stored.map((row) => [dayKey(row), row]));
    await db
      .insertInto('purchase_activity')
      .values(deltas.map((delta) => withDelta(byKey.get(dayKey(rowKeyOf(delta))), delta)))
      .onConflict((conflict) =>
        conflict.columns(['account', 'code_key', 'day']).doUpdateSet((eb) => ({
          validations: eb.ref('excluded.validations'),
          networks: eb.ref('excluded.networks'),
          first_seen: eb.ref('excluded.first_seen'),
          last_seen: eb.ref('excluded.last_seen'),
          sketch: eb.ref('excluded.sketch'),
        })),
      )
      .execute();
  }

  async days(account: string, codeKeys: readonly string[], sinceDay: string): Promise<ActivityDay[]> {
    const found: ActivityDay[] = [];
    for (let start = 0; start < codeKeys.length; start += BATCH) {
      const rows = await this.db
        .selectFrom('purchase_activity')
        .selectAll()
        .where('account', '=', account)
        .where('code_key', 'in', codeKeys.slice(start, start + BATCH))
        .where('day', '>=', sinceDay)
        .orderBy('day', 'desc')
        .orderBy('code_key')
        .execute();
      found.push(...rows.map(toDay));
    }
    if (codeKeys.length <= BATCH) return found;
    return found.sort((a, b) =>
      a.day !== b.day ? (a.day < b.day ? 1 : -1) : a.codeKey < b.codeKey ? -1 : a.codeKey > b.codeKey ? 1 : 0,
    );
  }

  async summaries(account: string, sinceDay: string): Promise<ActivitySummary[]> {
    const rows = await this.db
      .selectFrom('purchase_activity')
      .select((eb) => [
        'code_key',
        sql<number>`cast(sum(validations) as bigint)`.as('validations'),
        sql<number>`cast(sum(networks) as bigint)`.as('network_days'),
        eb.fn.max('networks').as('busiest_day'),
        sql<number>`cast(count(*) as bigint)`.as('days'),
        eb.fn.min('first_seen').as('first_seen'),
        eb.fn.max('last_seen').as('last_seen'),
      ])
      .where('account', '=', account)
      .where('day', '>=', sinceDay)
      .groupBy('code_key')
      .execute();
    return rows.map((row) => ({
      codeKey: row.code_key,
      validations: Number(row.validations),
      networkDays: Number(row.network_days),
      busiestDay: Number(row.busiest_day),
      days: Number(row.days),
      firstSeen: Number(row.first_seen),
      lastSeen: Number(row.last_seen),
    }));
  }

  async dropBefore(day: string): Promise<number> {
    const result = await this.inWriteTransaction((db) =>
      db.deleteFrom('purchase_activity').where('day', '<', day).executeTakeFirst(),
    );
    return Number(result.numDeletedRows);
  }
}
