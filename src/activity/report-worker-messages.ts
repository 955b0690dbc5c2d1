import type { UnavailableReason } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { CodeActivity, TopCode } from './activity-report.js';

/** What the report thread starts with: where the store is. */
export interface ReportWorkerData {
  readonly location: StoreLocation;
}

/** A report asked of the thread, at the time `now` the asking thread read (so both name the same window). */
export type ReportQuestion =
  | {
      readonly type: 'top';
      readonly account: string;
      readonly days: number;
      readonly limit: number;
      readonly now: number;
    }
  | {
      readonly type: 'code';
      readonly account: string;
      readonly codeKey: string;
      readonly retentionDays: number;
      readonly now: number;
    };

/** To the thread: a question to answer (by `id`), or the end (its connections closed, then it stops). */
export type ReportRequest = (ReportQuestion & { readonly id: number }) | { readonly type: 'close' };

/** From the thread: the report, or why there is none (the store unavailable, or a failure of ours). */
export type ReportAnswer = { readonly id: number } & (
  | { readonly type: 'top'; readonly top: TopCode[] }
  | { readonly type: 'code'; readonly activity: CodeActivity }
  | { readonly type: 'unavailable'; readonly reason: UnavailableReason }
  | { readonly type: 'failed'; readonly reason: string }
);
