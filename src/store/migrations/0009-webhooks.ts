import type { Kysely, Migration } from 'kysely';

/**
 * Signed webhooks. `webhook_endpoints`: where a seller wants to hear of changes, the
 * events it subscribes to, the language variant of its payloads, and its signing secret sealed
 * with the server secret (it must be read back to sign, so it cannot be a digest), with the
 * previous secret while a rotation's overlap lasts. `webhook_events` is the outbox: written in
 * the very transaction of the change it tells of, and only for accounts that have an endpoint
 * subscribed to it. `webhook_deliveries`: one row per event and endpoint, the attempts' state;
 * the worker claims due rows (`locked_until` is its lease), a replay or a retry sets one pending
 * again. The indexes serve the worker's due-rows query and the workspace's "last deliveries".
 */
export const webhooks: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull().references('accounts.username'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('lang', 'text', (c) => c.notNull())
    .addColumn('secret_cipher', 'text', (c) => c.notNull())
    .addColumn('previous_secret_cipher', 'text', (c) => c.notNull())
    .addColumn('previous_secret_until', 'bigint', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text', (c) => c.notNull())
    .addColumn('failing_since', 'bigint', (c) => c.notNull())
    .addColumn('last_success_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_account').on('webhook_endpoints').column('account').execute();
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account', 'text', (c) => c.notNull().references('accounts.username'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('code_key', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_events_account_time')
    .on('webhook_events')
    .columns(['account', 'occurred_at'])
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addColumn('last_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('last_status', 'integer', (c) => c.notNull())
    .addColumn('last_error', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_deliveries_pkey', ['event_id', 'endpoint_id'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['state', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at'])
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_events').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
