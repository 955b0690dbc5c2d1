import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { Dialect } from '../dialect.js';
import { type Change, recordChanges } from '../webhooks/webhook-outbox.js';
import { type Queries, writeTransaction } from '../write-transaction.js';
import type { ActivationRow } from './activation-rows.js';

export type { ActivationRow, ItemActivationLimitRow } from './activation-rows.js';

/** How many instances a code holds, and how many it may (null: no limit). */
export interface ActivationCount {
  readonly used: number;
  readonly limit: number | null;
}

/**
 * What an activation came to: the purchase is not active (or gone) after all; the instance was
 * activated now, or had been before (the same row); or the code holds as many as it may.
 */
export type ActivationOutcome =
  | { readonly kind: 'inactive' }
  | { readonly kind: 'created' | 'existing'; readonly activation: ActivationRow; readonly count: ActivationCount }
  | { readonly kind: 'full'; readonly count: ActivationCount };

/** What a release came to: the instance's place freed, or no such instance on the code. */
export type ReleaseOutcome =
  | { readonly kind: 'released'; readonly activation: ActivationRow; readonly count: ActivationCount }
  | { readonly kind: 'unknown' };

/** Why an activation ended: its owner (or the seller) released it, or its purchase stopped being active. */
export type ReleaseReason = 'released' | 'refunded' | 'cancelled';

/** The activation as events and answers show it. */
export function activationView(row: ActivationRow): { id: string; instance: string; created_at: string } {
  return { id: row.id, instance: row.instance, created_at: new Date(row.created_at).toISOString() };
}

/** A new activation id: opaque, unique. */
export function newActivationId(): string {
  return `act_${randomUUID().replaceAll('-', '')}`;
}

/** The `activation.created` or `activation.released` event's own fields, as the outbox keeps them. */
export function activationEventData(
  code: string,
  row: ActivationRow,
  extra: { readonly activations: ActivationCount } | { readonly reason: ReleaseReason },
): string {
  return JSON.stringify({ purchase_code: code, activation: activationView(row), ...extra });
}

/**
 * How stale an instance's "last validated" may be before a validation writes it again: the
 * workspace shows it to the minute, and a client validating on every start must not make a write
 * of every validation.
 */
export const LAST_VALIDATED_RESOLUTION_MS = 60_000;

type Db = Queries;
type Guard = <T>(work: () => Promise<T>) => Promise<T>;

const numbers = (row: ActivationRow): ActivationRow => ({
  ...row,
  created_at: Number(row.created_at),
  last_validated_at: Number(row.last_validated_at),
});

async function limitOf(db: Db, itemId: number): Promise<number | null> {
  const row = await db
    .selectFrom('item_activation_limits')
    .select('activation_limit')
    .where('item_id', '=', itemId)
    .executeTakeFirst();
  return row === undefined ? null : Number(row.activation_limit);
}

/** The code's activation on `instance`, if it holds one. */
function activationOn(db: Db, codeKey: string, instance: string) {
  return db
    .selectFrom('activations')
    .selectAll()
    .where('code_key', '=', codeKey)
    .where('instance', '=', instance)
    .executeTakeFirst();
}

async function usedBy(db: Db, codeKey: string): Promise<number> {
  const row = await db
    .selectFrom('activations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('code_key', '=', codeKey)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Ends every activation of the purchase, in the caller's transaction (a refund's, a
 * cancellation's), telling `activation.released` for each, on behalf of `account` (the item's owner).
 */
export async function endActivations(
  trx: Db,
  codeKey: string,
  code: string,
  account: string,
  reason: ReleaseReason,
): Promise<void> {
  const rows = await trx.selectFrom('activations').selectAll().where('code_key', '=', codeKey).execute();
  if (rows.length === 0) return;
  await trx.deleteFrom('activations').where('code_key', '=', codeKey).execute();
  await recordChanges(
    trx,
    rows.map((row) => ({
      account,
      type: 'activation.released',
      codeKey,
      data: activationEventData(code, numbers(row), { reason }),
    })),
  );
}

/**
 * Activation limits per item and the instances each purchase code holds (migration 0015). An
 * activation and a release are each one transaction that holds the purchase (SQLite: the write
 * lock; PostgreSQL: the purchase's row lock) from counting to writing, so that activations made
 * at once never go past the limit. None of these writes is a change the API's caches hear of.
 */
export class ActivationStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly guard: Guard,
  ) {}

  /** The item's limit; null when it has none (undefined when there is no such item). */
  activationLimit(itemId: number): Promise<number | null | undefined> {
    return this.guard(async () => {
      const item = await this.db.selectFrom('items').select('id').where('id', '=', itemId).executeTakeFirst();
      return item === undefined ? undefined : limitOf(this.db, itemId);
    });
  }

  /** The limits of these items that have one. */
  activationLimits(itemIds: readonly number[]): Promise<Map<number, number>> {
    return this.guard(async () => {
      if (itemIds.length === 0) return new Map();
      const rows = await this.db
        .selectFrom('item_activation_limits')
        .selectAll()
        .where('item_id', 'in', itemIds)
        .execute();
      return new Map(rows.map((row) => [Number(row.item_id), Number(row.activation_limit)]));
    });
  }

  /**
   * Sets the item's limit (null: no limit); false when there is no such item. Instances activated
   * already stay when a lower limit is set: the code takes no new one until enough are released.
   */
  setActivationLimit(itemId: number, limit: number | null): Promise<boolean> {
    return this.guard(() =>
      writeTransaction(this.db, this.dialect, async (trx) => {
        const item = await trx.selectFrom('items').select('id').where('id', '=', itemId).executeTakeFirst();
        if (item === undefined) return false;
        if (limit === null) {
          await trx.deleteFrom('item_activation_limits').where('item_id', '=', itemId).execute();
        } else {
          await trx
            .insertInto('item_activation_limits')
            .values({ item_id: itemId, activation_limit: limit })
            .onConflict((conflict) => conflict.column('item_id').doUpdateSet({ activation_limit: limit }))
            .execute();
        }
        return true;
      }),
    );
  }

  /**
   * Activates `instance` on the purchase (by its code's key): the instance's activation when it
   * has one already, else a new one unless the code holds as many as its item allows.
   */
  activate(codeKey: string, instance: string, now: number): Promise<ActivationOutcome> {
    return this.guard(() =>
      writeTransaction(this.db, this.dialect, async (trx) => {
        // The purchase's row lock on PostgreSQL: concurrent activations of one code take turns
        // from here to their commit (SQLite's BEGIN IMMEDIATE already holds the write lock).
        const purchase = await trx
          .selectFrom('purchases')
          .select(['code', 'status', 'item_id'])
          .where('code_key', '=', codeKey)
          .$if(this.dialect === 'postgres', (query) => query.forUpdate())
          .executeTakeFirst();
        if (purchase === undefined || purchase.status !== 'active') return { kind: 'inactive' } as const;
        const itemId = Number(purchase.item_id);
        const limit = await limitOf(trx, itemId);
        const found = await activationOn(trx, codeKey, instance);
        const used = await usedBy(trx, codeKey);
        if (found !== undefined)
          return { kind: 'existing', activation: numbers(found), count: { used, limit } } as const;
        if (limit !== null && used >= limit) return { kind: 'full', count: { used, limit } } as const;
        const activation: ActivationRow = {
          id: newActivationId(),
          code_key: codeKey,
          instance,
          created_at: now,
          last_validated_at: 0,
        };
        await trx.insertInto('activations').values(activation).execute();
        const count = { used: used + 1, limit };
        const item = await trx.selectFrom('items').select('account').where('id', '=', itemId).executeTakeFirst();
        if (item !== undefined) {
          await recordChanges(trx, [
            {
              account: item.account,
              type: 'activation.created',
              codeKey,
              data: activationEventData(purchase.code, activation, { activations: count }),
            },
          ]);
        }
        return { kind: 'created', activation, count } as const;
      }),
    );
  }

  /** Releases `instance` from the purchase (by its code's key), freeing its place. */
  release(codeKey: string, instance: string): Promise<ReleaseOutcome> {
    return this.guard(() =>
      writeTransaction(this.db, this.dialect, async (trx) => {
        const purchase = await trx
          .selectFrom('purchases')
          .innerJoin('items', 'items.id', 'purchases.item_id')
          .select(['purchases.code', 'purchases.item_id', 'items.account'])
          .where('purchases.code_key', '=', codeKey)
          .$if(this.dialect === 'postgres', (query) => query.forUpdate('purchases'))
          .executeTakeFirst();
        if (purchase === undefined) return { kind: 'unknown' } as const;
        const found = await activationOn(trx, codeKey, instance);
        if (found === undefined) return { kind: 'unknown' } as const;
        await trx.deleteFrom('activations').where('id', '=', found.id).execute();
        const activation = numbers(found);
        const changes: Change[] = [
          {
            account: purchase.account,
            type: 'activation.released',
            codeKey,
            data: activationEventData(purchase.code, activation, { reason: 'released' }),
          },
        ];
        await recordChanges(trx, changes);
        const count = { used: await usedBy(trx, codeKey), limit: await limitOf(trx, Number(purchase.item_id)) };
        return { kind: 'released', activation, count } as const;
      }),
    );
  }

  /**
   * The instance's activation on the code, if it has one, its "last validated" brought up to `now`
   * (written only when it is older than LAST_VALIDATED_RESOLUTION_MS).
   */
  validated(codeKey: string, instance: string, now: number): Promise<ActivationRow | undefined> {
    return this.guard(async () => {
      const found = await this.db
        .selectFrom('activations')
        .selectAll()
        .where('code_key', '=', codeKey)
        .where('instance', '=', instance)
        .executeTakeFirst();
      if (found === undefined) return undefined;
      const row = numbers(found);
      if (now - row.last_validated_at >= LAST_VALIDATED_RESOLUTION_MS) {
        await this.db
          .updateTable('activations')
          .set({ last_validated_at: now })
          .where('id', '=', row.id)
          .where('last_validated_at', '<', now)
          .execute();
        row.last_validated_at = now;
      }
      return row;
    });
  }

  /** The code's activations, oldest first. */
  ofCode(codeKey: string): Promise<ActivationRow[]> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom('activations')
        .selectAll()
        .where('code_key', '=', codeKey)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(numbers);
    });
  }

  /** The code's count: instances held, and its item's limit. */
  countOf(codeKey: string, itemId: number): Promise<ActivationCount> {
    return this.guard(async () => ({ used: await usedBy(this.db, codeKey), limit: await limitOf(this.db, itemId) }));
  }
}
