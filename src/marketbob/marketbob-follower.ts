import type { Logger } from 'pino';
import { purchaseCodeKey } from '../domain/purchase-code.js';
import type { KeyMaterial } from '../keys/server-secret.js';
import { type Store, unavailableReason } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import { deletedRows, forgetDeleted } from './deleted-rows.js';
import { deletionsWatermark, readDeletions } from './deletion-log.js';
import { goneKeyHolders } from './gone-key-holders.js';
import type { MarketbobConfig } from './marketbob-config.js';
import type { MarketbobDb } from './marketbob-connection.js';
import type { Changed, DiscountRow } from './marketbob-reader.js';
import { reconcileMarketbob } from './marketbob-reconcile.js';
import { effectiveTimezone, type FollowedSettings, readSettings } from './marketbob-settings.js';
import { DiscardedRows, merged, openSource, type Source, type SyncResult, syncMarketbob } from './marketbob-sync.js';
import { mapUsers, passwordChanges, Reports, type RowReport, RowWriter, type SourceState } from './marketbob-writer.js';
import { RecentRows } from './recent-rows.js';
import { type ItemRow, mediaUrl } from './row-mapping.js';
import type { FollowerStatus } from './source-health.js';

type Followed = 'users' | 'items' | 'purchases' | 'item_discounts';

/**
 * Where a table's reading stands: new rows come after `maxId`; saved ones after (`since`,
 * `sinceId`) in (`updated_at`, `id`) order, so that a page ends anywhere, even among thousands of
 * rows saved in the same second.
 */
interface Mark {
  maxId: number;
  /** MarketBob's wall-clock text of the latest `updated_at` read; null before any. */
  since: string | null;
  /** The highest id read among the rows saved at `since`. */
  sinceId: number;
}

/** Rows per table and poll; more wait for the next poll. */
const POLL_ROWS = 5000;
/**
 * Rows saved this recently (by MarketBob's clock) are read again on each poll: a transaction that
 * stamped a row before a poll may commit after it, behind the poll's mark. They are counted
 * unchanged when they are.
 */
const OVERLAP_SECONDS = 60;
/**
 * The most rows of the overlap read per table and poll: the whole last minute's saves of a busy
 * marketplace, whatever the page size (a row saved again in the same second is found only there).
 */
const LATE_ROWS = 5000;
/** The longest wait between attempts while MarketBob cannot be reached. */
const MAX_BACKOFF_MS = 30_000;

export interface PollOutcome {
  /** Rows read (new or changed, the overlap included). */
  readonly rowsRead: number;
  /** Rows whose stored copy changed. */
  readonly changed: number;
  /**
   * Every read ended short of its page size: the store now holds everything MarketBob had when
   * the poll began. False when more rows wait for the next poll.
   */
  readonly complete: boolean;
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
  /** Rows per table and poll (POLL_ROWS); more wait for the next poll. */
  readonly pollRows?: number;
  /** The store's location, for the reconciliation's snapshot reads; without it, no reconciliation. */
  readonly storeLocation?: StoreLocation;
  /**
   * MarketBob's settings as the follower applies them: called once its first full sync is done,
   * then whenever one of them changes in MarketBob (read at every poll).
   */
  readonly onSettings?: (settings: FollowedSettings) => void;
}

/** What the follower reports of a source's settings. */
function followedSettings(source: Source, mediaBaseUrl: string): FollowedSettings {
  const { settings, timezone } = source;
  return {
    apiEnabled: settings.apiOn ?? true,
    currencyCode: settings.currencyCode,
    timezone: timezone.zone,
    timezoneSource: timezone.source,
    supportOn: settings.supportOn,
    defaultAvatarUrl: mediaUrl(mediaBaseUrl, settings.defaultAvatar),
    defaultCoverUrl: mediaUrl(mediaBaseUrl, settings.defaultCover),
  };
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
  private failures = 0;
  private caughtUpAt: number | undefined;
  private readonly startedAt = Date.now();
  /** Each category's and sub-category's fingerprint as last written (see `MarketbobReader.categoryPrints`). */
  private categories = new Map<string, string>();
  /** When rows deleted in MarketBob were last looked for; 0: at the first poll after the sync. */
  private reconciledAt = 0;
  private reconciling: Promise<void> | undefined;
  /** The follower's last write: the next waits for it (polls and the reconciliation share the store). */
  private writes: Promise<void> = Promise.resolve();
  private delayMs: number;
  /** Skipped rows already logged (their reasons repeat while they stay as they are). */
  private readonly reported = new Set<string>();

  private readonly pollRows: number;
  /** The deletion log's last id read (see deletion-log.ts). */
  private deletionsMark = 0;
  /** The settings last reported through `onSettings`. */
  private reportedSettings: string | undefined;
  /** The overlap's rows as last written: read again unchanged, they are not written again. */
  private readonly written = new RecentRows();

  constructor(private readonly options: FollowerOptions) {
    this.delayMs = options.config.pollSeconds * 1000;
    this.pollRows = options.pollRows ?? POLL_ROWS;
  }

  /** The full sync (on start, or again after a failed one); the marks are read first, so nothing saved during it is missed. */
  async syncFully(): Promise<SyncResult> {
    const { db, store, keys, config } = this.options;
    this.source = await openSource(db, config);
    const marks = new Map<Followed, Mark>();
    const tables: Followed[] = ['users', 'items', 'purchases'];
    if (this.source.reader.discounts) tables.push('item_discounts');
    for (const table of tables) {
      const { maxId, maxUpdatedAt } = await this.source.reader.watermark(table);
      // Rows saved in that same second may not all be read yet: from the start of it.
      marks.set(table, { maxId, since: maxUpdatedAt, sinceId: 0 });
    }
    // What was deleted before now, the sync does not hold and the first reconciliation finds.
    const deletionsMark = this.source.deletionLog ? await deletionsWatermark(db) : 0;
    const categories = await this.source.reader.categoryPrints();
    const result = await syncMarketbob(db, store, keys, config);
    if (result.ok) {
      this.written.clear();
      this.state = result.state;
      this.categories = categories;
      this.deletionsMark = deletionsMark;
      this.marks.clear();
      for (const [table, mark] of marks) this.marks.set(table, mark);
      this.logReports(result.skipped);
      this.reportSettings(this.source);
    }
    return result;
  }

  /** One poll: what is new or changed since the last, written in one transaction. */
  async poll(): Promise<PollOutcome> {
    const { state } = this;
    let { source } = this;
    if (source === undefined || state === undefined) throw new Error('poll before the first sync');
    // MarketBob's settings (a few rows), compared with those the store was written with.
    const settings = readSettings(await source.reader.settings());
    if (JSON.stringify(settings) !== JSON.stringify(source.settings)) {
      const timezone = effectiveTimezone(this.options.config.timezone, settings);
      const was = source.settings;
      if (
        timezone.zone !== source.timezone.zone ||
        settings.supportOn !== was.supportOn ||
        settings.defaultAvatar !== was.defaultAvatar ||
        settings.defaultCover !== was.defaultCover
      ) {
        // Every date (another zone), every support date or default picture may change: a full
        // sync writes what differs, and reports the settings once done.
        this.options.logger.info('marketbob: MarketBob settings changed; syncing again');
        this.state = undefined;
        return { rowsRead: 0, changed: 0, complete: false };
      }
      source = { ...source, settings, context: { ...source.context, settings } };
      this.source = source;
      this.written.clear();
      this.reportSettings(source);
    }
    const { reader, context } = source;
    // Late commits: a row saved (so stamped) before the last poll but committed after it.
    const recent = context.clock.wallClockAt(Date.now() - OVERLAP_SECONDS * 1000);
    this.written.forgetBefore(recent);
    const read = async <R extends { readonly id: number }>(
      table: Followed,
      fresh: (afterId: number, limit: number) => Promise<Changed<R>[]>,
      updated: (since: string, limit: number, afterId?: number) => Promise<Changed<R>[]>,
    ) => {
      const mark = this.marks.get(table) as Mark;
      const freshRows = await fresh(mark.maxId, this.pollRows);
      const since = mark.since ?? '1000-01-01 00:00:00';
      const savedRows = await updated(since, this.pollRows, mark.since === null ? 0 : mark.sinceId);
      // The overlap, only while the reading has caught up (and only what it has not just read).
      // A row of the overlap exactly as it was last written is not written again (see RecentRows).
      const lateRows =
        savedRows.length < this.pollRows && recent < since
          ? (await updated(recent, LATE_ROWS)).filter((row) => !this.written.unchanged(table, row))
          : [];
      const complete = freshRows.length < this.pollRows && savedRows.length < this.pollRows;
      return { mark, saved: savedRows, complete, rows: union(union(freshRows, savedRows), lateRows) };
    };
    const users = await read(
      'users',
      (a, l) => reader.usersPage(a, l),
      (s, l, i) => reader.usersUpdatedSince(s, l, i),
    );
    const items = await read(
      'items',
      (a, l) => reader.itemsPage(a, l),
      (s, l, i) => reader.itemsUpdatedSince(s, l, i),
    );
    const purchases = await read(
      'purchases',
      (a, l) => reader.purchasesPage(a, l),
      (s, l, i) => reader.purchasesUpdatedSince(s, l, i),
    );
    // A discount created or saved (its status set by MarketBob's schedule): its item is read again.
    const discounts = reader.discounts
      ? await read<DiscountRow>(
          'item_discounts',
          (a, l) => reader.discountsPage(a, l),
          (s, l, i) => reader.discountsUpdatedSince(s, l, i),
        )
      : undefined;
    // Rows deleted in MarketBob, read last: a row read above and deleted since comes after it.
    const deletionLog = source.deletionLog
      ? await readDeletions(this.options.db, this.deletionsMark, this.pollRows)
      : await goneKeyHolders(this.options.db, state.keyHolders.values());
    const deletions = await deletedRows(this.options.store, state, deletionLog);
    // A row read above and deleted since (even one new in this poll, which the store never held)
    // is not written: the log says it is gone.
    users.rows = users.rows.filter((row) => !deletions.userIds.has(Number(row.id)));
    items.rows = items.rows.filter((row) => !deletions.itemIds.has(Number(row.id)));
    purchases.rows = purchases.rows.filter((row) => {
      const key = purchaseCodeKey((row.code ?? '').trim());
      return key === undefined || !deletions.codeKeys.has(key);
    });
    const reread = new Set([...(discounts?.rows ?? []).map((row) => Number(row.item_id)), ...deletions.discountsGone]);
    for (const id of deletions.itemIds) reread.delete(id);
    if (reread.size > 0) items.rows = union(items.rows, await reader.itemsById([...reread]));
    // A category's fee or name, or a sub-category's name, changed: its items are written again.
    const categories = await reader.categoryPrints();
    const changedCategories: number[] = [];
    const changedSubs: number[] = [];
    for (const [key, print] of categories) {
      if (this.categories.get(key) === print) continue;
      (key.startsWith('c') ? changedCategories : changedSubs).push(Number(key.slice(1)));
    }
    for (const key of this.categories.keys()) {
      if (!categories.has(key)) (key.startsWith('c') ? changedCategories : changedSubs).push(Number(key.slice(1)));
    }
    if (changedCategories.length + changedSubs.length > 0) {
      this.written.clear();
      const ofCategories: Changed<ItemRow>[] = [];
      for (let after = 0; ; ) {
        const page = await reader.itemsOfCategories(changedCategories, changedSubs, after, POLL_ROWS);
        if (page.length === 0) break;
        ofCategories.push(...page);
        after = Number(page[page.length - 1]?.id);
      }
      items.rows = union(items.rows, ofCategories);
    }
    const rowsRead =
      users.rows.length +
      items.rows.length +
      purchases.rows.length +
      (discounts?.rows.length ?? 0) +
      deletionLog.length;
    const complete =
      users.complete &&
      items.complete &&
      purchases.complete &&
      (discounts?.complete ?? true) &&
      deletionLog.length < this.pollRows;
    const lastDeletion = deletionLog[deletionLog.length - 1];
    if (users.rows.length + items.rows.length + purchases.rows.length + deletions.lines.length === 0) {
      this.categories = categories;
      if (discounts !== undefined) {
        this.advance([discounts]);
        this.written.remember('item_discounts', discounts.rows);
      }
      forgetDeleted(state, deletions);
      if (lastDeletion !== undefined) this.deletionsMark = lastDeletion.id;
      return { rowsRead, changed: 0, complete };
    }

    const skipped = new Reports();
    const notes = new Reports();
    const accounts = mapUsers(users.rows, context, state, skipped, notes);
    const passwords = await passwordChanges(this.options.store, accounts, state);
    let changed = 0;
    /** Whether every row read was written as it is (none skipped, no rename): then they are remembered. */
    let asRead = false;
    try {
      await this.exclusive(() =>
        this.options.store.runImport(async (session) => {
          const writer = new RowWriter(session, this.options.keys, context, state, passwords);
          await writer.renames(accounts);
          for (const [id, account] of accounts) await writer.user(id, account);
          for (const row of items.rows) await writer.item(row);
          for (const row of purchases.rows) await writer.purchase(row);
          for (const gone of deletions.lines) await writer.gone(gone.table, gone.id, gone.line, gone.keyless);
          const result = await writer.finish();
          if (!result.ok) throw new DiscardedRows(result);
          writer.commit();
          changed += writer.renamed;
          asRead = skipped.count + writer.skipped.count === 0 && writer.renamed === 0;
          for (const counts of Object.values(result.counts)) changed += counts.inserted + counts.updated;
          this.logReports(merged(skipped, writer.skipped));
        }),
      );
    } catch (error) {
      if (error instanceof DiscardedRows) {
        const rows = error.result.ok ? [] : error.result.errors.map((r) => `${r.table} ${r.id}: ${r.message}`);
        throw new Error(`the store refused MarketBob rows: ${rows.join('; ')}`);
      }
      throw error;
    }
    changed += passwords.set.size + passwords.remove.length;
    if (asRead) {
      this.written.remember('users', users.rows);
      this.written.remember('items', items.rows);
      this.written.remember('purchases', purchases.rows);
      if (discounts !== undefined) this.written.remember('item_discounts', discounts.rows);
    } else this.written.clear();
    this.categories = categories;
    forgetDeleted(state, deletions);
    if (lastDeletion !== undefined) this.deletionsMark = lastDeletion.id;
    this.advance(discounts === undefined ? [users, items, purchases] : [users, items, purchases, discounts]);
    if (changed > 0) this.options.logger.info({ rowsRead, changed }, 'marketbob: changes applied');
    return { rowsRead, changed, complete };
  }

  /** The marks move past what a poll read: new rows by id, saved rows by the keyset of the ordered read. */
  private advance(
    reads: readonly {
      mark: Mark;
      rows: readonly { readonly id: number }[];
      saved: readonly Changed<{ id: number }>[];
    }[],
  ): void {
    for (const { mark, rows, saved } of reads) {
      for (const row of rows) mark.maxId = Math.max(mark.maxId, Number(row.id));
      // The keyset moves to the last row of the ordered read (the other reads are not in its order).
      const last = saved[saved.length - 1];
      if (last !== undefined && last.updated_at !== null) {
        mark.since = last.updated_at;
        mark.sinceId = Number(last.id);
      }
    }
  }

  /** Tells `onSettings` the source's settings, when they differ from those last told. */
  private reportSettings(source: Source): void {
    const settings = followedSettings(source, this.options.config.mediaBaseUrl);
    const print = JSON.stringify(settings);
    if (print === this.reportedSettings) return;
    this.reportedSettings = print;
    this.options.onSettings?.(settings);
  }

  /** How the following goes, for `/readyz` and the lag metric (see source-health.ts). */
  status(): FollowerStatus {
    return { failures: this.failures, caughtUpAt: this.caughtUpAt, startedAt: this.startedAt };
  }

  /** Starts following: the full sync, then a poll every `pollSeconds`. Resolves after the first attempt. */
  async start(): Promise<void> {
    await this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
    await this.reconciling;
  }

  private async tick(): Promise<void> {
    const attempt = (async () => {
      // What the store holds once this attempt has read everything: MarketBob as it was now.
      const began = Date.now();
      try {
        let complete = true;
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
        } else {
          complete = (await this.poll()).complete;
          this.reconcileWhenDue();
        }
        if (this.failing) this.options.logger.info('marketbob: the source answers again; caught up');
        this.failing = false;
        this.failures = 0;
        if (complete) this.caughtUpAt = began;
        // More rows wait (a burst larger than a page): read them at once rather than a poll later.
        this.delayMs = complete ? this.options.config.pollSeconds * 1000 : 0;
      } catch (error) {
        if (!this.failing) {
          // The driver's code and first line only: never a URL (its password) or a row's values.
          this.options.logger.error(
            { reason: unavailableReason(error) },
            'marketbob: cannot follow the source; serving what the store holds, trying again',
          );
        }
        this.failing = true;
        this.failures++;
        const pollMs = this.options.config.pollSeconds * 1000;
        this.delayMs = Math.min(Math.max(this.delayMs, pollMs) * 2, MAX_BACKOFF_MS);
      }
    })();
    this.running = attempt;
    await attempt;
    if (!this.stopped) this.timer = setTimeout(() => void this.tick(), this.delayMs);
  }

  /**
   * Every `reconcileMinutes` (and once after the full sync): rows deleted in MarketBob stop being
   * served. It runs beside the polls (a pass reads every row of a large marketplace: far longer
   * than a poll), its write kept from overlapping theirs.
   */
  private reconcileWhenDue(): void {
    const { storeLocation, config, db, store, keys, logger } = this.options;
    if (storeLocation === undefined || this.reconciling !== undefined) return;
    if (Date.now() - this.reconciledAt < config.reconcileMinutes * 60_000) return;
    this.reconciledAt = Date.now();
    const runImport: Store['runImport'] = (work) => this.exclusive(() => store.runImport(work));
    this.reconciling = reconcileMarketbob(db, runImport, storeLocation, keys)
      .then(({ suspended, removed, cancelled, restated }) => {
        if (suspended + removed + cancelled + restated > 0) {
          logger.info({ suspended, removed, cancelled, restated }, 'marketbob: reconciled with MarketBob');
        }
      })
      .catch((error: unknown) => {
        logger.warn({ reason: unavailableReason(error) }, 'marketbob: reconciliation failed; trying again later');
      })
      .finally(() => {
        this.reconciling = undefined;
      });
  }

  /** Runs `work` after any write of this follower still running: one transaction at a time. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writes.then(work);
    this.writes = next.then(
      () => {},
      () => {},
    );
    return next;
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
