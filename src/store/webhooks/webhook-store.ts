import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';
import type { Dialect } from '../dialect.js';
import { type WriteTransaction, writeTransaction } from '../write-transaction.js';
import { pendingDelivery, recordEventFor } from './webhook-outbox.js';
import type { WebhookDeliveryRow, WebhookDeliveryState, WebhookEndpointRow, WebhookEventRow } from './webhook-rows.js';

/** An endpoint with how its deliveries stand. */
export interface WebhookEndpointHealth extends WebhookEndpointRow {
  /** Deliveries still to be made (waiting, or in flight). */
  readonly pending: number;
}

/** A delivery with its event's type and time, as the workspace lists them. */
export interface WebhookDeliveryListing extends WebhookDeliveryRow {
  readonly type: string;
  readonly occurred_at: number;
}

/** A claimed attempt: the delivery, its event and its endpoint. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDeliveryRow;
  readonly event: WebhookEventRow;
  readonly endpoint: WebhookEndpointRow;
}

/** What an attempt came to. */
export interface AttemptOutcome {
  readonly eventId: string;
  readonly endpointId: string;
  /**
   * The claim's lease end (the claimed row's `locked_until`): the outcome is recorded only on that
   * claim. A retry or replay made while the attempt was in flight has set the delivery pending
   * again, and a claim whose lease ran out was taken by another; either stays as it is.
   */
  readonly claimedUntil: number;
  readonly at: number;
  /** The answer's HTTP status; 0 when there was none. */
  readonly status: number;
  /** '' on success; otherwise a short sanitised description. */
  readonly error: string;
  /** succeeded; pending again at `nextAttemptAt`; or failed for good. */
  readonly state: WebhookDeliveryState;
  readonly nextAttemptAt: number;
  /** On a failure: an endpoint failing since this time or earlier is disabled. */
  readonly disableIfFailingSince: number;
}

/** The claim's limits. */
export interface ClaimOptions {
  readonly now: number;
  /** At most this many deliveries. */
  readonly limit: number;
  /** Until when the claimed deliveries are this instance's: another takes them after that. */
  readonly leaseUntil: number;
  /** At most this many attempts in flight per endpoint. */
  readonly perEndpoint: number;
}

type Guard = <T>(work: () => Promise<T>) => Promise<T>;

/** The queue's writes a delivering process makes for no request (they may go to a writer of their own). */
export type DeliveryBookkeeping = Pick<WebhookStore, 'claim' | 'finish' | 'dropBefore' | 'updateEndpoint'>;

/**
 * The webhook tables as the service manages them: endpoints, the delivery queue, its history.
 * (Events are written by the change's own transaction: see webhook-outbox.ts.) None of these
 * writes is a change the API's caches must hear of.
 */
export class WebhookStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly guard: Guard,
  ) {}

  private transaction<T>(work: (trx: WriteTransaction) => Promise<T>): Promise<T> {
    return writeTransaction(this.db, this.dialect, work);
  }

  /**
   * Adds an endpoint unless the account has `max` already: 'created', 'limit', or 'no_account'.
   * The count and the insert are one step: the transaction holds the account's row (FOR UPDATE on
   * PostgreSQL; SQLite's write lock, taken as it begins), so adds made at once, on any instance,
   * are counted one after the other and never pass the cap together.
   */
  createEndpoint(row: WebhookEndpointRow, max: number): Promise<'created' | 'limit' | 'no_account'> {
    return this.guard(() =>
      this.transaction(async (trx) => {
        let owner = trx.selectFrom('accounts').select('username').where('username', '=', row.account);
        if (this.dialect === 'postgres') owner = owner.forUpdate();
        if (!(await owner.executeTakeFirst())) return 'no_account';
        const held = await trx
          .selectFrom('webhook_endpoints')
          .select(sql<number>`count(*)`.as('n'))
          .where('account', '=', row.account)
          .executeTakeFirstOrThrow();
        if (Number(held.n) >= max) return 'limit';
        await trx.insertInto('webhook_endpoints').values(row).execute();
        return 'created';
      }),
    );
  }

  /** The account's endpoints, oldest first, with their pending deliveries counted. */
  endpoints(account: string): Promise<WebhookEndpointHealth[]> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom('webhook_endpoints as e')
        .selectAll('e')
        .select((eb) =>
          eb
            .selectFrom('webhook_deliveries as d')
            .select(eb.fn.countAll<number>().as('n'))
            .whereRef('d.endpoint_id', '=', 'e.id')
            .where('d.state', '=', 'pending')
            .as('pending'),
        )
        .where('e.account', '=', account)
        .orderBy('e.created_at')
        .orderBy('e.id')
        .execute();
      return rows.map((row) => numbers({ ...row, pending: Number(row.pending ?? 0) }));
    });
  }

  endpoint(id: string): Promise<WebhookEndpointRow | undefined> {
    return this.guard(async () => {
      const row = await this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
      return row && numbers(row);
    });
  }

  /** Changes an endpoint; false when there is none. */
  updateEndpoint(id: string, change: Partial<Omit<WebhookEndpointRow, 'id' | 'account'>>): Promise<boolean> {
    return this.guard(async () => {
      const result = await this.db.updateTable('webhook_endpoints').set(change).where('id', '=', id).executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  /** Deletes an endpoint of the account, with its deliveries; false when it has none by that id. */
  deleteEndpoint(account: string, id: string): Promise<boolean> {
    return this.guard(() =>
      this.transaction(async (trx) => {
        const found = await trx
          .selectFrom('webhook_endpoints')
          .select('id')
          .where('id', '=', id)
          .where('account', '=', account)
          .executeTakeFirst();
        if (!found) return false;
        await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
        await trx.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
        return true;
      }),
    );
  }

  /** Records an event for one endpoint only (the test event); its id. */
  addEventFor(endpoint: WebhookEndpointRow, type: string, data: string, now: number): Promise<string> {
    return this.guard(() => this.transaction((trx) => recordEventFor(trx, endpoint, type, data, now)));
  }

  /** The endpoint's latest deliveries, newest first. */
  deliveries(endpointId: string, limit: number): Promise<WebhookDeliveryListing[]> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_events as v', 'v.id', 'd.event_id')
        .selectAll('d')
        .select(['v.type', 'v.occurred_at'])
        .where('d.endpoint_id', '=', endpointId)
        .orderBy('d.created_at', 'desc')
        .orderBy('v.occurred_at', 'desc')
        .orderBy('d.event_id', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => numbers(row));
    });
  }

  /** Sets one delivery pending again, due now, with its attempts counted afresh; false when there is none. */
  retry(endpointId: string, eventId: string, now: number): Promise<boolean> {
    return this.guard(async () => {
      const result = await this.db
        .updateTable('webhook_deliveries')
        .set({ state: 'pending', attempts: 0, next_attempt_at: now, locked_until: 0 })
        .where('endpoint_id', '=', endpointId)
        .where('event_id', '=', eventId)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  /**
   * Sends again every recorded event of the endpoint's account from `from` to `to` (ms, both
   * included) of a type it subscribes to: a delivery already there is set pending again, a
   * missing one (an event from before it subscribed) is added. How many.
   */
  replay(endpoint: WebhookEndpointRow, from: number, to: number, now: number): Promise<number> {
    return this.guard(() =>
      this.transaction(async (trx) => {
        const types = JSON.parse(endpoint.events) as string[];
        if (types.length === 0) return 0;
        const events = await trx
          .selectFrom('webhook_events')
          .select('id')
          .where('account', '=', endpoint.account)
          .where('occurred_at', '>=', from)
          .where('occurred_at', '<=', to)
          .where('type', 'in', types)
          .execute();
        for (const { id } of events) {
          await trx
            .insertInto('webhook_deliveries')
            .values(pendingDelivery(id, endpoint.id, now))
            .onConflict((conflict) =>
              conflict
                .columns(['event_id', 'endpoint_id'])
                .doUpdateSet({ state: 'pending', attempts: 0, next_attempt_at: now, locked_until: 0 }),
            )
            .execute();
        }
        return events.length;
      }),
    );
  }

  /**
   * Drops what retention no longer keeps: deliveries finished (delivered or failed for good) before
   * `before`, then events older than that with no delivery left. Pending deliveries and their
   * events stay, however old (a disabled endpoint's, say). How many events were dropped.
   */
  dropBefore(before: number): Promise<number> {
    return this.guard(() =>
      this.transaction(async (trx) => {
        await trx
          .deleteFrom('webhook_deliveries')
          .where('state', '<>', 'pending')
          .where('created_at', '<', before)
          .execute();
        const dropped = await trx
          .deleteFrom('webhook_events')
          .where('occurred_at', '<', before)
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('webhook_deliveries as d')
                  .select('d.event_id')
                  .whereRef('d.event_id', '=', 'webhook_events.id'),
              ),
            ),
          )
          .executeTakeFirst();
        return Number(dropped.numDeletedRows);
      }),
    );
  }

  /** True when some delivery is due (a read only: the worker writes only when there is work). */
  anyDue(now: number): Promise<boolean> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('webhook_deliveries')
        .select('event_id')
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where('locked_until', '<=', now)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    });
  }

  /**
   * Claims due deliveries of enabled endpoints for one attempt each, in one short transaction:
   * on PostgreSQL `FOR UPDATE SKIP LOCKED`, so instances claiming at once never take the same row
   * (and a row is only taken while its lease has run out); on SQLite the transaction holds the
   * file's write lock. Each claimed row's attempts count one more, whether the attempt ends or
   * its process dies: a delivery is never tried forever.
   */
  claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    const { now, limit, leaseUntil, perEndpoint } = options;
    return this.guard(() =>
      this.transaction(async (trx) => {
        let due = trx
          .selectFrom('webhook_deliveries as d')
          .select(['d.event_id', 'd.endpoint_id'])
          .where('d.state', '=', 'pending')
          .where('d.next_attempt_at', '<=', now)
          .where('d.locked_until', '<=', now)
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom('webhook_endpoints as e')
                .select('e.id')
                .whereRef('e.id', '=', 'd.endpoint_id')
                .where('e.enabled', '=', 1),
            ),
          )
          .orderBy('d.next_attempt_at')
          .limit(limit * 4);
        if (this.dialect === 'postgres') due = due.forUpdate().skipLocked();
        const candidates = await due.execute();
        if (candidates.length === 0) return [];
        const endpointIds = [...new Set(candidates.map((row) => row.endpoint_id))];
        const inFlight = await trx
          .selectFrom('webhook_deliveries')
          .select(['endpoint_id', sql<number>`count(*)`.as('n')])
          .where('endpoint_id', 'in', endpointIds)
          .where('state', '=', 'pending')
          .where('locked_until', '>', now)
          .groupBy('endpoint_id')
          .execute();
        const busy = new Map(inFlight.map((row) => [row.endpoint_id, Number(row.n)]));
        const claimed: WebhookDeliveryRow[] = [];
        for (const candidate of candidates) {
          if (claimed.length >= limit) break;
          const running = busy.get(candidate.endpoint_id) ?? 0;
          if (running >= perEndpoint) continue;
          const row = await trx
            .updateTable('webhook_deliveries')
            .set((eb) => ({ locked_until: leaseUntil, attempts: eb('attempts', '+', 1) }))
            .where('event_id', '=', candidate.event_id)
            .where('endpoint_id', '=', candidate.endpoint_id)
            .where('locked_until', '<=', now)
            .where('state', '=', 'pending')
            .returningAll()
            .executeTakeFirst();
          if (!row) continue;
          busy.set(candidate.endpoint_id, running + 1);
          claimed.push(numbers(row));
        }
        if (claimed.length === 0) return [];
        const events = await trx
          .selectFrom('webhook_events')
          .selectAll()
          .where('id', 'in', [...new Set(claimed.map((row) => row.event_id))])
          .execute();
        const endpoints = await trx
          .selectFrom('webhook_endpoints')
          .selectAll()
          .where('id', 'in', [...new Set(claimed.map((row) => row.endpoint_id))])
          .execute();
        const eventById = new Map(events.map((row) => [row.id, numbers(row)]));
        const endpointById = new Map(endpoints.map((row) => [row.id, numbers(row)]));
        return claimed.map((delivery) => ({
          delivery,
          event: eventById.get(delivery.event_id) as WebhookEventRow,
          endpoint: endpointById.get(delivery.endpoint_id) as WebhookEndpointRow,
        }));
      }),
    );
  }

  /**
   * Records an attempt's outcome on its claim (see `claimedUntil`), and the endpoint's health
   * whatever became of the claim: a success ends its run of failures;
   * a failure starts one (or goes on with it), and an endpoint failing since
   * `disableIfFailingSince` or earlier is disabled. True when this outcome disabled it.
   */
  finish(outcome: AttemptOutcome): Promise<boolean> {
    return this.guard(() =>
      this.transaction(async (trx) => {
        await trx
          .updateTable('webhook_deliveries')
          .set({
            state: outcome.state,
            next_attempt_at: outcome.nextAttemptAt,
            locked_until: 0,
            last_attempt_at: outcome.at,
            last_status: outcome.status,
            last_error: outcome.error,
          })
          .where('event_id', '=', outcome.eventId)
          .where('endpoint_id', '=', outcome.endpointId)
          .where('state', '=', 'pending')
          .where('locked_until', '=', outcome.claimedUntil)
          .execute();
        if (outcome.state === 'succeeded') {
          await trx
            .updateTable('webhook_endpoints')
            .set({ failing_since: 0, last_success_at: outcome.at })
            .where('id', '=', outcome.endpointId)
            .execute();
          return false;
        }
        await trx
          .updateTable('webhook_endpoints')
          .set({ failing_since: outcome.at })
          .where('id', '=', outcome.endpointId)
          .where('failing_since', '=', 0)
          .execute();
        const disabled = await trx
          .updateTable('webhook_endpoints')
          .set({ enabled: 0, disabled_reason: 'failures' })
          .where('id', '=', outcome.endpointId)
          .where('enabled', '=', 1)
          .where('failing_since', '>', 0)
          .where('failing_since', '<=', outcome.disableIfFailingSince)
          .executeTakeFirst();
        return disabled.numUpdatedRows > 0n;
      }),
    );
  }
}

/** PostgreSQL returns bigint columns as strings: the rows' times and counts as numbers. */
function numbers<T extends object>(row: T): T {
  const out = { ...row } as Record<string, unknown>;
  for (const key of NUMERIC) if (typeof out[key] === 'string') out[key] = Number(out[key]);
  return out as T;
}

const NUMERIC = [
  'previous_secret_until',
  'enabled',
  'failing_since',
  'last_success_at',
  'created_at',
  'occurred_at',
  'attempts',
  'next_attempt_at',
  'locked_until',
  'last_attempt_at',
  'last_status',
  'pending',
];
