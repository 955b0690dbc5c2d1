import type BetterSqlite3 from 'better-sqlite3';

/**
 * The store's reads run inside one read transaction that is kept open for a few milliseconds and
 * shared by every query in that time. Each statement outside a transaction would begin and end
 * its own, and that lock round trip costs about as much as the lookup itself (bench/README.md has
 * the figures). A snapshot never lives longer than `maxAgeMs`, so a commit made elsewhere is seen
 * by every read that starts that long after it; a reader never holds back the writer in WAL mode.
 */
export class ReadSnapshot {
  private open = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sqlite: BetterSqlite3.Database,
    private readonly maxAgeMs: number,
  ) {}

  /** Before a read: joins the open snapshot, or opens one (inside someone else's transaction, reads just join it). */
  enter(): void {
    if (this.open || this.sqlite.inTransaction) return;
    this.sqlite.exec('BEGIN');
    this.open = true;
    this.timer = setTimeout(() => this.end(), this.maxAgeMs);
    this.timer.unref();
  }

  /** Ends the snapshot, so that the next read sees every commit made until now. */
  end(): void {
    if (!this.open) return;
    this.open = false;
    clearTimeout(this.timer);
    if (this.sqlite.open && this.sqlite.inTransaction) this.sqlite.exec('COMMIT');
  }
}
