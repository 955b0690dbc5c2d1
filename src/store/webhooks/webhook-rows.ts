/**
 * The webhook tables' rows (see migration 0009). Times are ms since the epoch; 0 means "never".
 */

/** The events a seller may subscribe to, and the test event the workspace sends. */
export const WEBHOOK_EVENT_TYPES = [
  'purchase.created',
  'purchase.refunded',
  'purchase.cancelled',
  'purchase.downloaded',
  'api_key.rotated',
  'activation.created',
  'activation.released',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent only on request, to one endpoint, whatever it subscribes to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** Where a seller hears of changes. */
export interface WebhookEndpointRow {
  id: string;
  account: string;
  url: string;
  /** The subscribed event types, as a JSON array. */
  events: string;
  /** The language variant its payloads are written in. */
  lang: string;
  /** The signing secret (`whsec_...`), sealed with the server secret. */
  secret_cipher: string;
  /** The secret a rotation replaced, still signing until `previous_secret_until`; '' when none. */
  previous_secret_cipher: string;
  previous_secret_until: number;
  enabled: number;
  /** Why it was disabled: '' (enabled), 'seller' or 'failures'. */
  disabled_reason: string;
  /** When its current run of failed attempts began; 0 when its last attempt succeeded. */
  failing_since: number;
  last_success_at: number;
  created_at: number;
}

/** A new endpoint's row: enabled, no secret being rotated out, and no attempt made yet. */
export function newEndpointRow(
  fields: Pick<WebhookEndpointRow, 'id' | 'account' | 'url' | 'events' | 'lang' | 'secret_cipher'>,
  now: number,
): WebhookEndpointRow {
  return {
    ...fields,
    previous_secret_cipher: '',
    previous_secret_until: 0,
    enabled: 1,
    disabled_reason: '',
    failing_since: 0,
    last_success_at: 0,
    created_at: now,
  };
}

/** One change to tell of: the outbox, written in the change's own transaction. */
export interface WebhookEventRow {
  id: string;
  account: string;
  type: string;
  /** The purchase's code key; '' for an account event. */
  code_key: string;
  occurred_at: number;
  /** A JSON snapshot: the purchase row as the change left it, or the event's own fields. */
  data: string;
}

export type WebhookDeliveryState = 'pending' | 'succeeded' | 'failed';

/** One event's delivery to one endpoint. */
export interface WebhookDeliveryRow {
  event_id: string;
  endpoint_id: string;
  state: WebhookDeliveryState;
  attempts: number;
  next_attempt_at: number;
  /** While an attempt is in flight: until when the instance that claimed it holds it. */
  locked_until: number;
  last_attempt_at: number;
  /** The HTTP status of the last answer; 0 when there was none (refused, timed out). */
  last_status: number;
  /** A short, sanitised account of the last failure; '' after a success. */
  last_error: string;
  created_at: number;
}
