import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { PurchaseRecord } from '../../records/rows.js';
import type { Database } from '../database.js';
import type { WebhookDeliveryRow, WebhookEventRow, WebhookEventType } from './webhook-rows.js';

/**
 * The outbox's writing side: which changes make which events, and the rows that record them in
 * the change's own transaction (an event, and a pending delivery per subscribed endpoint). Shared
 * by the store's single writes and both dialects' imports, which only insert the rows.
 */

/** A new event id, used as the Standard Webhooks `webhook-id`: unique, and the same on every retry. */
export function newWebhookEventId(): string {
  return `evt_${randomUUID().replaceAll('-', '')}`;
}

/** An enabled endpoint, as the outbox sees it: whose it is and what it hears. */
export interface SubscriptionRow {
  readonly id: string;
  readonly account: string;
  readonly events: string;
}

/** The enabled endpoints, by account. */
export class Subscriptions {
  private readonly byAccount = new Map<string, { id: string; events: ReadonlySet<string> }[]>();

  constructor(rows: readonly SubscriptionRow[]) {
    for (const row of rows) {
      const list = this.byAccount.get(row.account) ?? [];
      list.push({ id: row.id, events: new Set(JSON.parse(row.events) as string[]) });
      this.byAccount.set(row.account, list);
    }
  }

  get empty(): boolean {
    return this.byAccount.size === 0;
  }

  /** The account's endpoints subscribed to this event type. */
  endpointsFor(account: string, type: string): string[] {
    return (this.byAccount.get(account) ?? []).filter((endpoint) => endpoint.events.has(type)).map((e) => e.id);
  }

  hasAccount(account: string): boolean {
    return this.byAccount.has(account);
  }
}

/** A purchase's state before a write, as far as events care. */
export interface PurchaseBefore {
  readonly status: string;
  readonly downloaded: number;
}

/**
 * What one purchase write tells: `purchase.created` for a new purchase; `purchase.refunded` or
 * `purchase.cancelled` when the status became that; `purchase.downloaded` when it became
 * downloaded. A purchase set active again, or any other change, makes none.
 */
export function purchaseEventTypes(before: PurchaseBefore | undefined, after: PurchaseRecord): WebhookEventType[] {
  if (before === undefined) return ['purchase.created'];
  const types: WebhookEventType[] = [];
  if (after.status !== before.status && after.status === 'refunded') types.push('purchase.refunded');
  if (after.status !== before.status && after.status === 'cancelled') types.push('purchase.cancelled');
  if (after.downloaded === 1 && before.downloaded !== 1) types.push('purchase.downloaded');
  return types;
}

/** A change to record, before the outbox knows who hears it. */
export interface Change {
  readonly account: string;
  readonly type: string;
  readonly codeKey: string;
  /** The snapshot, as JSON text. */
  readonly data: string;
}

/** The purchase row as the event's snapshot. */
export function purchaseSnapshot(purchase: PurchaseRecord): string {
  return JSON.stringify(purchase);
}

/** The rows a batch of changes writes: only those some endpoint hears make an event at all. */
export interface OutboxRows {
  readonly events: WebhookEventRow[];
  readonly deliveries: WebhookDeliveryRow[];
}

export function outboxRows(subscriptions: Subscriptions, changes: readonly Change[], now: number): OutboxRows {
  const events: WebhookEventRow[] = [];
  const deliveries: WebhookDeliveryRow[] = [];
  for (const change of changes) {
    const endpoints = subscriptions.endpointsFor(change.account, change.type);
    if (endpoints.length === 0) continue;
    const id = newWebhookEventId();
    events.push({
      id,
      account: change.account,
      type: change.type,
      code_key: change.codeKey,
      occurred_at: now,
      data: change.data,
    });
    for (const endpoint of endpoints) deliveries.push(pendingDelivery(id, endpoint, now));
  }
  return { events, deliveries };
}

export function pendingDelivery(eventId: string, endpointId: string, now: number): WebhookDeliveryRow {
  return {
    event_id: eventId,
    endpoint_id: endpointId,
    state: 'pending',
    attempts: 0,
    next_attempt_at: now,
    locked_until: 0,
    last_attempt_at: 0,
    last_status: 0,
    last_error: '',
    created_at: now,
  };
}

type Db = Kysely<Database> | Transaction<Database>;

/** The enabled endpoints of these accounts (of every account when left out). */
export async function loadSubscriptions(db: Db, accounts?: readonly string[]): Promise<Subscriptions> {
  if (accounts !== undefined && accounts.length === 0) return new Subscriptions([]);
  let query = db.selectFrom('webhook_endpoints').select(['id', 'account', 'events']).where('enabled', '=', 1);
  if (accounts !== undefined) query = query.where('account', 'in', accounts);
  return new Subscriptions(await query.execute());
}

/** Records these changes in the caller's transaction, for whoever hears them. */
export async function recordChanges(trx: Db, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return;
  const subscriptions = await loadSubscriptions(trx, [...new Set(changes.map((change) => change.account))]);
  if (subscriptions.empty) return;
  await insertOutboxRows(trx, outboxRows(subscriptions, changes, Date.now()));
}

/** Rows per INSERT: well under both stores' limit of bound values. */
const CHUNK = 200;

export async function insertOutboxRows(db: Db, rows: OutboxRows): Promise<void> {
  for (let start = 0; start < rows.events.length; start += CHUNK) {
    await db
      .insertInto('webhook_events')
      .values(rows.events.slice(start, start + CHUNK))
      .execute();
  }
  for (let start = 0; start < rows.deliveries.length; start += CHUNK) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.deliveries.slice(start, start + CHUNK))
      .execute();
  }
}
