import type { Store } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import { windowStart } from './activity-days.js';
import { type CodeActivity, codeActivity, type TopCode, topCodes } from './activity-report.js';
import { ReportCache } from './report-cache.js';
import { createReportThread, type ReportThread } from './report-thread.js';

/** How long a made report is given again to the same question (seller, window, limit or code), at least. */
export const REPORT_REUSE_MS = 2_000;
/**
 * A report is given again for at least this many times as long as it took to make: asked in a
 * loop, a report over a long history keeps the thread at work at most 1/11 of the time.
 */
export const REPORT_COST_FACTOR = 10;
/** Reports kept at most (each up to 100 codes or 30 days). */
const MAX_KEPT_REPORTS = 1_000;
/** Reports waiting for the thread at most, in all and per seller. */
const MAX_WAITING = 64;
const MAX_WAITING_PER_ACCOUNT = 8;
/** The thread ends after this long with nothing asked (its connections closed). */
const THREAD_IDLE_MS = 60_000;

/**
 * The activity endpoints' reports (a seller's top list, one code's activity). Made on a worker
 * thread with a store connection of its own, so that the serving thread's work per question does
 * not grow with the seller's history; reused for REPORT_REUSE_MS, and shared by identical
 * questions asked while one is made. Not reused once this process wrote the seller's counts since
 * the report started, so a process answers its own validations at once (other processes' counts
 * come with their flush, and a reused report may be REPORT_REUSE_MS older).
 */
export interface ActivityReports {
  top(account: string, days: number, limit: number): Promise<TopCode[]>;
  ofCode(account: string, codeKey: string, retentionDays: number): Promise<CodeActivity>;
  /** These accounts' counts were just written by this process: their reports made before are stale. */
  wrote(accounts: Iterable<string>): void;
  close(): Promise<void>;
}

export interface ActivityReportsOptions {
  /**
   * Where the thread reads. Undefined, or an in-memory SQLite store (which no other connection
   * sees): the reports are made on the calling thread, from `store`.
   */
  readonly location: StoreLocation | undefined;
  readonly store: Pick<Store, 'activityDays' | 'activitySummaries'>;
  readonly reuseMs?: number;
  readonly now?: () => number;
}

export function createActivityReports(options: ActivityReportsOptions): ActivityReports {
  const { location, store } = options;
  const now = options.now ?? Date.now;
  const cache = new ReportCache({
    reuseMs: options.reuseMs ?? REPORT_REUSE_MS,
    costFactor: REPORT_COST_FACTOR,
    maxEntries: MAX_KEPT_REPORTS,
    now,
  });
  const thread: ReportThread | undefined =
    location === undefined || (location.kind === 'sqlite' && location.path === ':memory:')
      ? undefined
      : createReportThread(location, {
          maxWaiting: MAX_WAITING,
          maxWaitingPerAccount: MAX_WAITING_PER_ACCOUNT,
          idleMs: THREAD_IDLE_MS,
        });
  return {
    top(account, days, limit) {
      const at = now();
      // The window's first day in the key: a report made before midnight is not given after it.
      const key = `top\n${account}\n${windowStart(at, days)}\n${days}\n${limit}`;
      return cache.get(account, key, () =>
        thread === undefined
          ? topCodes(store, account, days, limit, at)
          : thread.ask({ type: 'top', account, days, limit, now: at }),
      );
    },
    ofCode(account, codeKey, retentionDays) {
      const at = now();
      const key = `code\n${account}\n${codeKey}\n${windowStart(at, retentionDays)}\n${retentionDays}`;
      return cache.get(account, key, () =>
        thread === undefined
          ? codeActivity(store, account, codeKey, retentionDays, at)
          : thread.ask({ type: 'code', account, codeKey, retentionDays, now: at }),
      );
    },
    wrote: (accounts) => cache.wrote(accounts),
    close: async () => {
      await thread?.close();
    },
  };
}
