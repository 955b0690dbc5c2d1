import type { KeyUse, NamedKeyUse, UnavailableReason } from '../store/store.js';
import type { StoreLocation } from '../store/store-location.js';
import type { WebhookEndpointRow } from '../store/webhooks/webhook-rows.js';
import type { AttemptOutcome, ClaimOptions } from '../store/webhooks/webhook-store.js';

/** What the writer thread starts with: the store it opens a connection of its own to (an SQLite file, or PostgreSQL). */
export interface WriterThreadData {
  readonly location: StoreLocation;
}

/**
 * A flush's gathered days as posted to the writer thread (see packDeltas): per delta, nine numbers;
 * the code keys' UTF-8 bytes; and the sketches sent, a thousand deltas' to a JSON array.
 */
export interface PackedDeltas {
  readonly count: number;
  /** The sellers the deltas name, once each, as a JSON array. */
  readonly accounts: string;
  readonly days: readonly string[];
  /** Every delta's code key, one after the other (each one's end is among its numbers). */
  readonly codeKeys: Uint8Array;
  readonly numbers: Float64Array;
  /** The sketches sent, in the deltas' order: a counts-only delta's is not, unless asked for. */
  readonly sketches: readonly string[];
}

/** A write the API's thread hands over, by the store call it makes there. */
export type WriterCall =
  | { readonly op: 'recordKeyUses'; readonly uses: readonly KeyUse[] }
  | { readonly op: 'recordNamedKeyUses'; readonly uses: readonly NamedKeyUse[] }
  | { readonly op: 'recordActivity'; readonly deltas: PackedDeltas }
  | { readonly op: 'dropActivityBefore'; readonly day: string }
  | { readonly op: 'claimDeliveries'; readonly options: ClaimOptions }
  | { readonly op: 'finishDelivery'; readonly outcome: AttemptOutcome }
  | { readonly op: 'dropDeliveriesBefore'; readonly before: number }
  | {
      readonly op: 'updateEndpoint';
      readonly id: string;
      readonly change: Partial<Omit<WebhookEndpointRow, 'id' | 'account'>>;
    };

/**
 * What `recordActivity` answers: where each day is kept (SQLite's row ids, by the delta's place;
 * NaN where not said), or that every delta's sketch is needed.
 */
export type RecordedActivity = { readonly rows: Float64Array } | { readonly sketchesNeeded: true };

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
