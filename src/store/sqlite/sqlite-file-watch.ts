import { type Stats, statSync } from 'node:fs';

/** How often, at most, the file is looked for (once per request at most): a stat is cheap, but not free. */
export const FILE_CHECK_INTERVAL_MS = 50;

/** Which file a path names: a file put back at the path (restored from a backup) is another one. */
export type FileIdentity = Pick<Stats, 'dev' | 'ino'>;

/** What the watch does to the store's connections: give up their handles, and take new ones. */
export interface ReopenableFiles<T> {
  /** Gives up every handle to the file, at once. */
  drop(): void;
  /** Opens (and migrates) the file at the path again; throws while it is not usable yet. */
  open(): Promise<T>;
  /** Takes what `open` opened. */
  take(opened: T): void;
  /** Closes what `open` opened, when the store was closed meanwhile. */
  discard(opened: T): void;
}

/**
 * Watches that an SQLite store's file is still the one its connections hold. The file may be taken
 * away while the service runs (deleted, its directory removed) and SQLite itself would not notice:
 * the open file lives on, unlinked, and goes on answering with what it held. So the path is looked
 * at, at most every FILE_CHECK_INTERVAL_MS, when a request asks for changes. Once it is gone the
 * handles are given up; once a file is at the path again (put back), it is opened and migrated in
 * the background, and the connections take it.
 */
export class SqliteFileWatch<T> {
  private nextCheck = 0;
  private switching: Promise<void> | undefined;
  private closed = false;
  /** Whether the connections hold the file at the path (else it was found gone, or another). */
  private holding = true;

  constructor(
    private readonly path: string,
    private identity: FileIdentity,
    private readonly files: ReopenableFiles<T>,
  ) {}

  /** Notices the file gone (drops the handles) or back (opens it again, in the background). */
  check(now: number): void {
    if (now < this.nextCheck || this.closed || this.switching) return;
    this.nextCheck = now + FILE_CHECK_INTERVAL_MS;
    let found: Stats | undefined;
    try {
      found = statSync(this.path, { throwIfNoEntry: false });
    } catch {
      // Its directory unreadable, say: as good as gone.
    }
    const same = found !== undefined && found.dev === this.identity.dev && found.ino === this.identity.ino;
    if (same && this.holding) return;
    // The old handles are closed before others open: closing the last connection to a file removes
    // its -wal and -shm files by name, which would by then be the new file's.
    this.files.drop();
    this.holding = false;
    if (found === undefined) return;
    const back = found;
    this.switching = (async () => {
      try {
        const opened = await this.files.open();
        if (this.closed) {
          this.files.discard(opened);
          return;
        }
        this.files.take(opened);
        this.identity = back;
        this.holding = true;
      } catch {
        // Not usable yet (still being copied, say): looked at again at the next check.
      }
    })().finally(() => {
      this.switching = undefined;
    });
  }

  /** No more checks; waits for a reopening under way. */
  async close(): Promise<void> {
    this.closed = true;
    await this.switching;
  }
}
