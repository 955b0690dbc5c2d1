import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteConnection } from './sqlite-connection.js';

/**
 * The store's reads run inside one read transaction that is kept open for a few milliseconds and
 * shared by every query in that time. Each statement outside a transaction would begin and end
 * its own, and that lock round trip costs about as much as the lookup itself (bench/README.md has
 * the figures). A snapshot never lives longer than `maxAgeMs`, so a commit made elsewhere is seen
 * by every read that starts that long after it; a reader never holds back the writer in WAL mode.
 */
export class ReadSnapshot {
  /** The handle the snapshot is open on: none, or one given up since, and the next read opens one. */
  private openOn: BetterSqlite3.Database | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly connection: SqliteConnection,
    private readonly maxAgeMs: number,
  ) {}

  /** Before a read: joins the open snapshot, or opens one (inside someone else's transaction, reads just join it). */
  enter(): void {
    const handle = this.connection.handle();
    if (this.openOn === handle || handle.inTransaction) return;
    this.end();
    handle.exec('BEGIN');
    this.openOn = handle;
    this.timer = setTimeout(() => this.end(), this.maxAgeMs);
    this.timer.unref();
  }

  /** Ends the snapshot, so that the next read sees every commit made until now. */
  end(): void {
    const handle = this.openOn;
    if (handle === undefined) return;
    this.openOn = undefined;
    clearTimeout(this.timer);
    if (handle.open && handle.inTransaction) handle.exec('COMMIT');
  }
}
