/**
 * Reports kept for a short time and shared while they are made: identical questions asked at
 * once wait for one computation, and its answer is given again for `reuseMs` after it is made (or
 * `costFactor` times as long as it took to make, when that is longer), unless the seller's counts
 * were written since it started (see `wrote`).
 */
export interface ReportCacheOptions {
  /** How long a made report is given again, at least. */
  readonly reuseMs: number;
  /**
   * A report is given again for at least this many times as long as it took to make: a question
   * asked in a loop then keeps the report thread busy for at most 1 / (1 + costFactor) of the time,
   * however long the seller's history makes it. Undefined: `reuseMs` alone.
   */
  readonly costFactor?: number;
  /** Reports kept at most; past it, the oldest made ones are let go. */
  readonly maxEntries: number;
  readonly now?: () => number;
}

interface Entry {
  readonly account: string;
  /** The write count when the computation started: a write of the account after it makes the report stale. */
  readonly startedAfter: number;
  readonly report: Promise<unknown>;
  /** When the report was made; undefined while it is being made. */
  madeAt: number | undefined;
  /** How long it is given again once made. */
  reuseMs: number;
}

/** Accounts whose last write is remembered, at most: past it, everything is forgotten (every report then stale). */
const MAX_WRITTEN_ACCOUNTS = 10_000;

export class ReportCache {
  private readonly entries = new Map<string, Entry>();
  /** Per account, the write count of its last write. */
  private readonly lastWrite = new Map<string, number>();
  private writes = 0;
  private readonly now: () => number;

  constructor(private readonly options: ReportCacheOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The report `key` names (a question of `account`'s): one being made or fresh, or `make`'s. */
  get<T>(account: string, key: string, make: () => Promise<T>): Promise<T> {
    const found = this.entries.get(key);
    if (found !== undefined && this.fresh(found)) return found.report as Promise<T>;
    if (found !== undefined) this.entries.delete(key);
    this.makeRoom();
    const startedAt = this.now();
    const entry: Entry = {
      account,
      startedAfter: this.writes,
      report: make(),
      madeAt: undefined,
      reuseMs: this.options.reuseMs,
    };
    this.entries.set(key, entry);
    entry.report.then(
      () => {
        entry.madeAt = this.now();
        const took = entry.madeAt - startedAt;
        entry.reuseMs = Math.max(this.options.reuseMs, took * (this.options.costFactor ?? 0));
      },
      () => {
        // A failure is not kept: the next question asks again.
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.report as Promise<T>;
  }

  /**
   * These accounts' counts were written (this process's flush): their reports made before are not
   * given again. Only the accounts with a report kept are looked for (a report started after this
   * is fresh whatever was written before it), and `accounts` is not read at all while none is
   * kept: a flush names up to 10,000 sellers, and nearly always nobody asked for a report.
   */
  wrote(accounts: Iterable<string>): void {
    const write = ++this.writes;
    if (this.entries.size === 0) return;
    const reported = new Set<string>();
    for (const entry of this.entries.values()) reported.add(entry.account);
    for (const account of accounts) if (reported.has(account)) this.lastWrite.set(account, write);
    if (this.lastWrite.size > MAX_WRITTEN_ACCOUNTS) {
      this.lastWrite.clear();
      this.entries.clear();
    }
  }

  /** How many reports are kept (made or being made). */
  get size(): number {
    return this.entries.size;
  }

  private fresh(entry: Entry): boolean {
    if (entry.startedAfter < (this.lastWrite.get(entry.account) ?? 0)) return false;
    return entry.madeAt === undefined || this.now() - entry.madeAt < entry.reuseMs;
  }

  private makeRoom(): void {
    if (this.entries.size < this.options.maxEntries) return;
    for (const [key, entry] of this.entries) {
      if (!this.fresh(entry)) this.entries.delete(key);
    }
    // Still full of fresh ones: the oldest made are let go (those being made stay; few can wait).
    for (const [key, entry] of this.entries) {
      if (this.entries.size < this.options.maxEntries) break;
      if (entry.madeAt !== undefined) this.entries.delete(key);
    }
  }
}
