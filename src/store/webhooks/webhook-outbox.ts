import { randomUUID } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { PurchaseRecord } from '../../records/rows.js';
import type { Queries } from '../write-transaction.js';
import type { WebhookDeliveryRow, WebhookEndpointRow, WebhookEventRow, WebhookEventType } from './webhook-rows.js';

/**
 * The outbox's writing side, and its only writer: which changes make which events, and the rows
 * that record them in the change's own transaction (an event, and a pending delivery per
 * subscribed endpoint). The store's single writes (`recordChanges`), the test event
 * (`recordEventFor`) and both dialects' imports (`SqliteImportOutbox`, `PostgresImportOutbox`)
 * hand it their changes; no other module inserts an event.
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

function outboxRows(subscriptions: Subscriptions, changes: readonly Change[], now: number): OutboxRows {
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

/** A delivery to attempt as soon as possible: a new event's, or a replayed one's. */
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

/** The enabled endpoints of these accounts (of every account when left out). */
export async function loadSubscriptions(db: Queries, accounts?: readonly string[]): Promise<Subscriptions> {
  if (accounts !== undefined && accounts.length === 0) return new Subscriptions([]);
  let query = db.selectFrom('webhook_endpoints').select(['id', 'account', 'events']).where('enabled', '=', 1);
  if (accounts !== undefined) query = query.where('account', 'in', accounts);
  return new Subscriptions(await query.execute());
}

/** Records these changes in the caller's transaction, for whoever hears them. */
export async function recordChanges(trx: Queries, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return;
  const subscriptions = await loadSubscriptions(trx, [...new Set(changes.map((change) => change.account))]);
  if (subscriptions.empty) return;
  await insertOutboxRows(trx, outboxRows(subscriptions, changes, Date.now()));
}

/** Records one event for one endpoint only (the test event), in the caller's transaction; its id. */
export async function recordEventFor(
  trx: Queries,
  endpoint: Pick<WebhookEndpointRow, 'id' | 'account'>,
  type: string,
  data: string,
  now: number,
): Promise<string> {
  const id = newWebhookEventId();
  await insertOutboxRows(trx, {
    events: [{ id, account: endpoint.account, type, code_key: '', occurred_at: now, data }],
    deliveries: [pendingDelivery(id, endpoint.id, now)],
  });
  return id;
}

/** Rows per INSERT: well under both stores' limit of bound values. */
const CHUNK = 200;

async function insertOutboxRows(db: Queries, rows: OutboxRows): Promise<void> {
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

const SELECT_SUBSCRIPTIONS = 'SELECT id, account, events FROM webhook_endpoints WHERE enabled = 1';

/**
 * The outbox as an SQLite import writes it, on the import's connection: the enabled endpoints as
 * the import began, and one statement per row, prepared once per import (better-sqlite3 is
 * synchronous, and a row costs little).
 */
export class SqliteImportOutbox {
  readonly subscriptions: Subscriptions;
  private statements:
    | { readonly event: BetterSqlite3.Statement; readonly delivery: BetterSqlite3.Statement }
    | undefined;

  constructor(private readonly db: BetterSqlite3.Database) {
    this.subscriptions = new Subscriptions(db.prepare<[], SubscriptionRow>(SELECT_SUBSCRIPTIONS).all());
  }

  /** Records these changes, for whoever hears them. */
  record(changes: readonly Change[]): void {
    const rows = outboxRows(this.subscriptions, changes, Date.now());
    if (rows.events.length === 0) return;
    this.statements ??= {
      event: this.db.prepare(
        'INSERT INTO webhook_events (id, account, type, code_key, occurred_at, data) ' +
          'VALUES (@id, @account, @type, @code_key, @occurred_at, @data)',
      ),
      delivery: this.db.prepare(
        'INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_attempt_at, locked_until, ' +
          'last_attempt_at, last_status, last_error, created_at) VALUES (@event_id, @endpoint_id, @state, @attempts, ' +
          '@next_attempt_at, @locked_until, @last_attempt_at, @last_status, @last_error, @created_at)',
      ),
    };
    for (const event of rows.events) this.statements.event.run(event);
    for (const delivery of rows.deliveries) this.statements.delivery.run(delivery);
  }
}

/**
 * The outbox as a PostgreSQL import writes it, on the import's connection: the enabled endpoints
 * read on the first write that may tell them, and each batch's rows in two statements.
 */
export class PostgresImportOutbox {
  private read: Promise<Subscriptions> | undefined;

  constructor(private readonly client: pg.ClientBase) {}

  /** The enabled endpoints: none, and an import writes its purchases as they are. */
  subscriptions(): Promise<Subscriptions> {
    this.read ??= this.client.query<SubscriptionRow>(SELECT_SUBSCRIPTIONS).then(({ rows }) => new Subscriptions(rows));
    return this.read;
  }

  /** Records these changes, for whoever hears them. */
  async record(changes: readonly Change[]): Promise<void> {
    const { events, deliveries } = outboxRows(await this.subscriptions(), changes, Date.now());
    if (events.length === 0) return;
    await this.client.query({
      name: 'import_webhook_events',
      text:
        'INSERT INTO webhook_events (id, account, type, code_key, occurred_at, data) ' +
        'SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::text[])',
      values: [
        events.map((e) => e.id),
        events.map((e) => e.account),
        events.map((e) => e.type),
        events.map((e) => e.code_key),
        events.map((e) => e.occurred_at),
        events.map((e) => e.data),
      ],
    });
    await this.client.query({
      name: 'import_webhook_deliveries',
      text:
        'INSERT INTO webhook_deliveries (event_id, endpoint_id, state, attempts, next_attempt_at, locked_until, ' +
        "last_attempt_at, last_status, last_error, created_at) SELECT e, p, 'pending', 0, $3::int8, 0, 0, 0, '', $3::int8 " +
        'FROM unnest($1::text[], $2::text[]) AS d(e, p)',
      values: [deliveries.map((d) => d.event_id), deliveries.map((d) => d.endpoint_id), deliveries[0]?.created_at ?? 0],
    });
  }
}
