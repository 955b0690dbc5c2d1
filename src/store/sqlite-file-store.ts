import { type Stats, statSync } from 'node:fs';
import type { AccountRow, AccountStatus, ItemRow, ListedItem, PurchaseRow, PurchaseStatus } from '../domain/records.js';
import type { SessionRow } from './database.js';
import {
  type ActivityDay,
  type ActivityMerge,
  type ActivitySummary,
  type ImportSession,
  type KeyUse,
  type RetiredKeyAccount,
  type Store,
  type StoredKey,
  StoreUnavailableError,
} from './store.js';

/** How often, at most, the file is looked for (once per request at most): a stat costs a few microseconds. */
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

  async accountByKeyDigest(digest: string): Promise<AccountRow | undefined> {
    return this.live().accountByKeyDigest(digest);
  }

  async accountByUsername(username: string): Promise<AccountRow | undefined> {
    return this.live().accountByUsername(username);
  }

  async approvedItemsPage(username: string, beforeId: number, limit: number): Promise<ListedItem[]> {
    return this.live().approvedItemsPage(username, beforeId, limit);
  }

  async item(id: number): Promise<ItemRow | undefined> {
    return this.live().item(id);
  }

  async purchase(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.live().purchase(codeKey);
  }

  async accountByEmail(email: string): Promise<AccountRow | undefined> {
    return this.live().accountByEmail(email);
  }

  async accountByRetiredKeyDigest(digest: string, now: number): Promise<RetiredKeyAccount | undefined> {
    return this.live().accountByRetiredKeyDigest(digest, now);
  }

  async replaceAccountKey(username: string, key: StoredKey, retireOldUntil?: number): Promise<boolean> {
    return this.live().replaceAccountKey(username, key, retireOldUntil);
  }

  async keyCreatedAt(username: string): Promise<number | undefined> {
    return this.live().keyCreatedAt(username);
  }

  async recordKeyUses(uses: readonly KeyUse[]): Promise<void> {
    return this.live().recordKeyUses(uses);
  }

  async keyLastUsedAt(username: string): Promise<number | undefined> {
    return this.live().keyLastUsedAt(username);
  }

  async recordActivity(days: readonly ActivityDay[], merge: ActivityMerge): Promise<void> {
    return this.live().recordActivity(days, merge);
  }

  async activityDays(account: string, codeKeys: readonly string[], sinceDay: string): Promise<ActivityDay[]> {
    return this.live().activityDays(account, codeKeys, sinceDay);
  }

  async activitySummaries(account: string, sinceDay: string): Promise<ActivitySummary[]> {
    return this.live().activitySummaries(account, sinceDay);
  }

  async dropActivityBefore(day: string): Promise<number> {
    return this.live().dropActivityBefore(day);
  }

  async setPurchaseStatus(codeKey: string, status: PurchaseStatus): Promise<PurchaseRow | undefined> {
    return this.live().setPurchaseStatus(codeKey, status);
  }

  async markPurchaseDownloaded(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.live().markPurchaseDownloaded(codeKey);
  }

  async setAccountStatus(username: string, status: AccountStatus): Promise<boolean> {
    return this.live().setAccountStatus(username, status);
  }

  async passwordHash(username: string): Promise<string | undefined> {
    return this.live().passwordHash(username);
  }

  async setPasswordHash(username: string, passwordHash: string): Promise<boolean> {
    return this.live().setPasswordHash(username, passwordHash);
  }

  async createSession(session: SessionRow): Promise<void> {
    return this.live().createSession(session);
  }

  async session(idHash: string): Promise<SessionRow | undefined> {
    return this.live().session(idHash);
  }

  async touchSession(idHash: string, lastSeenAt: number): Promise<void> {
    return this.live().touchSession(idHash, lastSeenAt);
  }

  async setSessionFlash(idHash: string, flash: string | null): Promise<void> {
    return this.live().setSessionFlash(idHash, flash);
  }

  async passwordHashSample(limit: number): Promise<string[]> {
    return this.live().passwordHashSample(limit);
  }

  async deleteSession(idHash: string): Promise<void> {
    return this.live().deleteSession(idHash);
  }

  async deleteSessionsIdleSince(cutoff: number): Promise<void> {
    return this.live().deleteSessionsIdleSince(cutoff);
  }

  async isEmpty(): Promise<boolean> {
    return this.live().isEmpty();
  }

  async anyAccount(): Promise<AccountRow | undefined> {
    return this.live().anyAccount();
  }

  async runImport<T>(work: (session: ImportSession) => Promise<T>): Promise<T> {
    return this.live().runImport(work);
  }

  changedSinceLastCheck(): boolean {
    this.checkFile();
    const changed = this.live().changedSinceLastCheck();
    if (!this.reopened) return changed;
    this.reopened = false;
    return true;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.switching;
    const last = this.current;
    this.current = undefined;
    await last?.close();
  }

  private live(): Store {
    if (this.current) return this.current;
    throw new StoreUnavailableError({ cause: this.closed ? new Error('the store is closed') : fileGone() });
  }

  /** Notices the file gone (drops the connection) or back (opens it again, in the background). */
  private checkFile(): void {
    const now = performance.now();
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
