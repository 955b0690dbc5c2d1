import { type Stats, statSync } from 'node:fs';
import { StoreChanges } from '../changes/change-log.js';
import { type Store, StoreUnavailableError } from '../store.js';

/** How often, at most, the file is looked for (once per request at most): a stat is cheap, but not free. */
export const FILE_CHECK_INTERVAL_MS = 50;

/** Which file a path names: a file put back at the path (restored from a backup) is another one. */
type FileIdentity = Pick<Stats, 'dev' | 'ino'>;

/** The error the store is unavailable with while its file is gone: no path in it (it may be logged). */
function fileGone(): Error {
  return Object.assign(new Error('the database file is gone'), { code: 'ENOENT' });
}

/**
 * An SQLite store in a file that may be taken away while the service runs: deleted, its directory
 * removed. SQLite itself would not notice (the open file lives on, unlinked, and goes on answering
 * with what it held), so the path is looked at, at most every FILE_CHECK_INTERVAL_MS, when a
 * request asks for changes. While the file is gone every call is unavailable (503). Once a file is
 * at the path again (put back), the old connection is closed and the new file opened and migrated,
 * in the background; the first request after that is told the store changed, so caches start over.
 */
/** The Store's calls a SqliteFileStore hands to the store open now (all but its own three). */
type Delegated = Exclude<keyof Store, 'dialect' | 'changedSinceLastCheck' | 'changesSinceLastCheck' | 'close'>;

const DELEGATED = [
  'accountByKeyDigest',
  'accountByUsername',
  'approvedItemsPage',
  'item',
  'purchase',
  'accountByEmail',
  'accountByRetiredKeyDigest',
  'replaceAccountKey',
  'keyDate',
  'recordKeyUses',
  'keyLastUsedAt',
  'recordActivity',
  'activityDays',
  'activitySummaries',
  'dropActivityBefore',
  'setPurchaseStatus',
  'markPurchaseDownloaded',
  'setAccountStatus',
  'passwordHash',
  'setPasswordHash',
  'createSession',
  'session',
  'touchSession',
  'setSessionFlash',
  'passwordHashSample',
  'deleteSession',
  'deleteSessionsIdleSince',
  'isEmpty',
  'webhooks',
  'signingKeys',
  'anyAccount',
  'marketbobUserId',
  'marketbobLogin',
  'claimLoginStep',
  'approvedItemRowsPage',
  'sourceSetting',
  'setSourceSetting',
  'runImport',
  'accountByNamedKeyDigest',
  'addNamedKey',
  'namedKeys',
  'revokeNamedKey',
  'recordNamedKeyUses',
  'namedKeyCipher',
  'activations',
] as const satisfies readonly Delegated[];

/** A call added to Store and not to DELEGATED fails to compile here. */
const everyCallDelegated: Exclude<Delegated, (typeof DELEGATED)[number]> extends never ? true : never = true;
void everyCallDelegated;

// The delegated calls are put on the prototype below (see DELEGATED); the class declares them here.
export interface SqliteFileStore extends Pick<Store, Delegated> {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface declares what the loop at the end defines
export class SqliteFileStore implements Store {
  readonly dialect = 'sqlite' as const;
  private current: Store | undefined;
  private identity: FileIdentity;
  private nextCheck = 0;
  private switching: Promise<void> | undefined;
  private reopened = false;
  private closed = false;

  constructor(
    private readonly path: string,
    first: Store,
    identity: FileIdentity,
    private readonly reopen: () => Promise<Store>,
  ) {
    this.current = first;
    this.identity = identity;
  }

  changedSinceLastCheck(now = performance.now()): boolean {
    return this.changesSinceLastCheck(now) !== undefined;
  }

  changesSinceLastCheck(now = performance.now()): StoreChanges | undefined {
    this.checkFile(now);
    const changes = this.live().changesSinceLastCheck(now);
    if (!this.reopened) return changes;
    this.reopened = false;
    return StoreChanges.everything();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.switching;
    const last = this.current;
    this.current = undefined;
    await last?.close();
  }

  /** The open store, or StoreUnavailableError while the file is gone (every delegated call asks it). */
  live(): Store {
    if (this.current) return this.current;
    throw new StoreUnavailableError({ cause: this.closed ? new Error('the store is closed') : fileGone() });
  }

  /** Notices the file gone (drops the connection) or back (opens it again, in the background). */
  private checkFile(now: number): void {
    if (now < this.nextCheck || this.closed || this.switching) return;
    this.nextCheck = now + FILE_CHECK_INTERVAL_MS;
    let found: Stats | undefined;
    try {
      found = statSync(this.path, { throwIfNoEntry: false });
    } catch {
      // Its directory unreadable, say: as good as gone.
    }
    const same = found !== undefined && found.dev === this.identity.dev && found.ino === this.identity.ino;
    if (this.current && same) return;
    const old = this.current;
    this.current = undefined;
    // The old connection is closed before another opens: closing the last connection to a file
    // removes its -wal and -shm files by name, which would by then be the new file's.
    this.switching = (async () => {
      await old?.close().catch(() => {});
      if (!found || this.closed) return;
      try {
        const store = await this.reopen();
        if (this.closed) {
          await store.close();
          return;
        }
        this.current = store;
        this.identity = found;
        this.reopened = true;
      } catch {
        // Not usable yet (still being copied, say): looked at again at the next check.
      }
    })().finally(() => {
      this.switching = undefined;
    });
  }
}

for (const name of DELEGATED) {
  Object.defineProperty(SqliteFileStore.prototype, name, {
    value(this: SqliteFileStore, ...args: unknown[]) {
      return (this.live()[name] as (...given: unknown[]) => unknown)(...args);
    },
  });
}
