import type { KeyUse, NamedKeyUse, UnavailableReason } from '../store/store.js';
import type { WebhookEndpointRow } from '../store/webhooks/webhook-rows.js';
import type { AttemptOutcome, ClaimOptions } from '../store/webhooks/webhook-store.js';

/** What the writer thread starts with: the SQLite file it opens a connection of its own to. */
export interface WriterThreadData {
  readonly path: string;
}

/**
 * One flush's gathered day as posted to the writer thread (structured clone: plain values only).
 * `sketch` is the delta's own networks, as text, with their estimate: left out of a counts-only
 * delta (its networks are stored already), unless the thread asked for every sketch.
 */
export interface PostedDelta {
  readonly account: string;
  readonly codeKey: string;
  readonly day: string;
  readonly validations: number;
  readonly firstSeen: number;
  readonly lastSeen: number;
  readonly networksStored: boolean;
  readonly storedRow: number | undefined;
  readonly sketch: string | undefined;
  readonly networks: number | undefined;
}

/** A write the API's thread hands over, by the store call it makes there. */
export type WriterCall =
  | { readonly op: 'recordKeyUses'; readonly uses: readonly KeyUse[] }
  | { readonly op: 'recordNamedKeyUses'; readonly uses: readonly NamedKeyUse[] }
  | { readonly op: 'recordActivity'; readonly deltas: readonly PostedDelta[] }
  | { readonly op: 'dropActivityBefore'; readonly day: string }
  | { readonly op: 'claimDeliveries'; readonly options: ClaimOptions }
  | { readonly op: 'finishDelivery'; readonly outcome: AttemptOutcome }
  | { readonly op: 'dropDeliveriesBefore'; readonly before: number }
  | {
      readonly op: 'updateEndpoint';
      readonly id: string;
      readonly change: Partial<Omit<WebhookEndpointRow, 'id' | 'account'>>;
    };

/** What `recordActivity` answers: where each day is kept (SQLite's row ids), or that every delta's sketch is needed. */
export type RecordedActivity = { readonly rows: readonly (number | undefined)[] } | { readonly sketchesNeeded: true };

/** To the writer thread: open the connection now, a call, or the order to finish and close the connection. */
export type ToWriter =
  | { readonly type: 'open' }
  | { readonly type: 'call'; readonly id: number; readonly call: WriterCall }
  | { readonly type: 'close' };

/**
 * A failure as it may cross to the API's thread and be logged there: its kind and the store's
 * reason (an error code and a first line), never the driver's error with its SQL or file names.
 */
export interface PostedError {
  readonly unavailable: boolean;
  readonly reason: UnavailableReason;
}

/** From the writer thread: a call's value or failure (with the thread that ran it), that its connection is open, that it closed. */
export type FromWriter =
  | { readonly type: 'done'; readonly id: number; readonly value: unknown; readonly thread: number }
  | { readonly type: 'failed'; readonly id: number; readonly error: PostedError; readonly thread: number }
  | { readonly type: 'opened' }
  | { readonly type: 'closed' };
