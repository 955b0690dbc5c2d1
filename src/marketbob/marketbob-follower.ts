import type { Logger } from 'pino';
import type { KeyMaterial } from '../keys/server-secret.js';
import { type Store, unavailableReason } from '../store/store.js';
import type { MarketbobConfig } from './marketbob-config.js';
import type { MarketbobDb } from './marketbob-connection.js';
import type { Changed } from './marketbob-reader.js';
import { DiscardedRows, merged, openSource, type Source, type SyncResult, syncMarketbob } from './marketbob-sync.js';
import {
  changedPasswords,
  mapUsers,
  Reports,
  type RowReport,
  RowWriter,
  type SourceState,
} from './marketbob-writer.js';

type Followed = 'users' | 'items' | 'purchases';

/** Where a table's reading stands: new rows come after `maxId`, changed ones at or after `since`. */
interface Mark {
  maxId: number;
  /** MarketBob's wall-clock text of the latest `updated_at` read; null before any. */
  since: string | null;
  /** The last read of changed rows filled its page: the next one starts at `since` itself, not before. */
  full: boolean;
}

/** Rows per table and poll; more wait for the next poll. */
const POLL_ROWS = 5000;
/**
 * Changed rows are read again from this long before the latest `updated_at` seen: a transaction
 * that saved a row earlier (same second or a few before) may commit after a poll has passed it.
 * Those rows are read again each poll and counted unchanged.
 */
const OVERLAP_SECONDS = 60;
/** The longest wait between attempts while MarketBob cannot be reached. */
const MAX_BACKOFF_MS = 30_000;

export interface PollOutcome {
  /** Rows read (new or changed, the overlap included). */
  readonly rowsRead: number;
  /** Rows whose stored copy changed. */
  readonly changed: number;
}

/** `since` less the overlap, as MarketBob's wall-clock text. */
function withOverlap(mark: Mark): string {
  if (mark.since === null) return '1000-01-01 00:00:00';
  if (mark.full) return mark.since;
  const at = Date.parse(`${mark.since.replace(' ', 'T').slice(0, 19)}Z`);
  if (Number.isNaN(at)) return mark.since;
  return new Date(at - OVERLAP_SECONDS * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** New rows (id after the mark) and changed ones (updated since the mark), each once, by id. */
function union<R extends { readonly id: number }>(fresh: Changed<R>[], updated: Changed<R>[]): Changed<R>[] {
  const rows = new Map<number, Changed<R>>();
  for (const row of [...fresh, ...updated]) rows.set(Number(row.id), row);
  return [...rows.values()].sort((a, b) => Number(a.id) - Number(b.id));
}

export interface FollowerOptions {
  readonly db: MarketbobDb;
  /** A store of the follower's own (its writes are then seen by the serving store as another writer's). */
  readonly store: Store;
  readonly keys: KeyMaterial;
  readonly config: MarketbobConfig;
  readonly logger: Logger;
}

/**
 * Follows a MarketBob database: a full sync first, then every `pollSeconds` the rows that are new
 * (by id) or saved since the last poll (by `updated_at`, which Laravel sets on every save), read
 * through the primary key and the `updated_at` indexes (`marketbob check` says when one is
 * missing) and written through the importer as the sync writes them, one transaction per poll.
 *
 * When MarketBob cannot be reached the store keeps serving what it has; the follower says so
 * once, tries again with a growing delay, says so once when it is back, and catches up.
 */
export class MarketbobFollower {
  private source: Source | undefined;
  private state: SourceState | undefined;
  private readonly marks = new Map<Followed, Mark>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private failing = false;
  private delayMs: number;
  /** Skipped rows already logged (their reasons repeat while they stay as they are). */
  private readonly reported = new Set<string>();

  constructor(private readonly options: FollowerOptions) {
    this.delayMs = options.config.pollSeconds * 1000;
  }

  /** The full sync (on start, or again after a failed one); the marks are read first, so nothing saved during it is missed. */
  async syncFully(): Promise<SyncResult> {
    const { db, store, keys, config } = this.options;
    this.source = await openSource(db, config);
    const marks = new Map<Followed, Mark>();
    for (const table of ['users', 'items', 'purchases'] as const) {
      const { maxId, maxUpdatedAt } = await this.source.reader.watermark(table);
      marks.set(table, { maxId, since: maxUpdatedAt, full: false });
    }
    const result = await syncMarketbob(db, store, keys, config);
    if (result.ok) {
      this.state = result.state;
      for (const [table, mark] of marks) this.marks.set(table, mark);
      this.logReports(result.skipped);
    }
    return result;
  }

  /** One poll: what is new or changed since the last, written in one transaction. */
  async poll(): Promise<PollOutcome> {
    const { source, state } = this;
    if (source === undefined || state === undefined) throw new Error('poll before the first sync');
    const { reader, context } = source;
    const read = async <R extends { readonly id: number }>(
      table: Followed,
      fresh: (afterId: number, limit: number) => Promise<Changed<R>[]>,
      updated: (since: string, limit: number) => Promise<Changed<R>[]>,
    ) => {
      const mark = this.marks.get(table) as Mark;
      const freshRows = await fresh(mark.maxId, POLL_ROWS);
      const updatedRows = await updated(withOverlap(mark), POLL_ROWS);
      return { table, mark, rows: union(freshRows, updatedRows), full: updatedRows.length === POLL_ROWS };
    };
    const users = await read(
      'users',
      (a, l) => reader.usersPage(a, l),
      (s, l) => reader.usersUpdatedSince(s, l),
    );
    const items = await read(
      'items',
      (a, l) => reader.itemsPage(a, l),
      (s, l) => reader.itemsUpdatedSince(s, l),
    );
    const purchases = await read(
      'purchases',
      (a, l) => reader.purchasesPage(a, l),
      (s, l) => reader.purchasesUpdatedSince(s, l),
    );
    const rowsRead = users.rows.length + items.rows.length + purchases.rows.length;
    if (rowsRead === 0) return { rowsRead, changed: 0 };

    const skipped = new Reports();
    const notes = new Reports();
    const accounts = mapUsers(users.rows, context, state, skipped, notes);
    const passwords = await changedPasswords(this.options.store, accounts);
    let changed = 0;
    try {
      await this.options.store.runImport(async (session) => {
        const writer = new RowWriter(session, this.options.keys, context, state, passwords);
        for (const [id, account] of accounts) await writer.user(id, account);
        for (const row of items.rows) await writer.item(row);
        for (const row of purchases.rows) await writer.purchase(row);
        const result = await writer.finish();
        if (!result.ok) throw new DiscardedRows(result);
        writer.commit();
        for (const counts of Object.values(result.counts)) changed += counts.inserted + counts.updated;
        this.logReports(merged(skipped, writer.skipped));
      });
    } catch (error) {
      if (error instanceof DiscardedRows) {
        const rows = error.result.ok ? [] : error.result.errors.map((r) => `${r.table} ${r.id}: ${r.message}`);
        throw new Error(`the store refused MarketBob rows: ${rows.join('; ')}`);
      }
      throw error;
    }
    changed += passwords.size;
    for (const { mark, rows, full } of [users, items, purchases]) {
      for (const row of rows) {
        mark.maxId = Math.max(mark.maxId, Number(row.id));
        if (row.updated_at !== null && (mark.since === null || row.updated_at > mark.since))
          mark.since = row.updated_at;
      }
      mark.full = full;
    }
    if (changed > 0) this.options.logger.info({ rowsRead, changed }, 'marketbob: changes applied');
    return { rowsRead, changed };
  }

  /** Starts following: the full sync, then a poll every `pollSeconds`. Resolves after the first attempt. */
  async start(): Promise<void> {
    await this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  private async tick(): Promise<void> {
    const attempt = (async () => {
      try {
        if (this.state === undefined) {
          const result = await this.syncFully();
          if (!result.ok) {
            const rows = result.errors.map((r) => `${r.table} ${r.id}: ${r.message}`);
            throw new Error(`the store refused MarketBob rows: ${rows.join('; ')}`);
          }
          const c = result.counts;
          this.options.logger.info(
            { accounts: c.account, items: c.item, purchases: c.purchase, passwordsSet: result.passwordsSet },
            'marketbob: full sync done; following',
          );
        } else await this.poll();
        if (this.failing) this.options.logger.info('marketbob: the source answers again; caught up');
        this.failing = false;
        this.delayMs = this.options.config.pollSeconds * 1000;
      } catch (error) {
        if (!this.failing) {
          // The driver's code and first line only: never a URL (its password) or a row's values.
          this.options.logger.error(
            { reason: unavailableReason(error) },
            'marketbob: cannot follow the source; serving what the store holds, trying again',
          );
        }
        this.failing = true;
        this.delayMs = Math.min(this.delayMs * 2, MAX_BACKOFF_MS);
      }
    })();
    this.running = attempt;
    await attempt;
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.delayMs);
  }

  private logReports(reports: readonly RowReport[]): void {
    for (const report of reports) {
      const key = `${report.table} ${report.id}: ${report.message}`;
      if (this.reported.has(key)) continue;
      this.reported.add(key);
      this.options.logger.warn(
        { table: report.table, id: report.id, reason: report.message },
        'marketbob: row skipped',
      );
    }
  }
}
