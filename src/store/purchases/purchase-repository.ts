import type { Kysely } from 'kysely';
import type { PurchaseRow, PurchaseStatus } from '../../records/rows.js';
import { endActivations } from '../activations/activation-store.js';
import type { Database } from '../database.js';
import { namedQuery } from '../named-query.js';
import type { PurchaseQueries } from '../store.js';
import type { StoreContext } from '../store-context.js';
import { type Change, purchaseEventTypes, purchaseSnapshot, recordChanges } from '../webhooks/webhook-outbox.js';
import { writeTransaction } from '../write-transaction.js';

/** The read queries, compiled once with named parameters (see named-query.ts). */
function compileQueries({ db }: StoreContext) {
  return {
    purchase: namedQuery({ codeKey: 'text' }, (p) =>
      db.selectFrom('purchases').selectAll().where('code_key', '=', p.codeKey),
    ),
  };
}

/** The purchases: found by code, their status and download changed (with the webhook events and the activations a change ends, in one transaction). */
export class PurchaseRepository implements PurchaseQueries {
  private readonly db: Kysely<Database>;
  private readonly dialect: StoreContext['dialect'];
  private readonly runner: StoreContext['runner'];
  private readonly queries: ReturnType<typeof compileQueries>;

  constructor(private readonly context: StoreContext) {
    this.db = context.db;
    this.dialect = context.dialect;
    this.runner = context.runner;
    this.queries = compileQueries(context);
  }

  purchase(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.purchase, { codeKey }));
  }

  setPurchaseStatus(codeKey: string, status: PurchaseStatus): Promise<PurchaseRow | undefined> {
    return this.updatePurchase(codeKey, { status });
  }

  markPurchaseDownloaded(codeKey: string): Promise<PurchaseRow | undefined> {
    return this.updatePurchase(codeKey, { downloaded: 1 });
  }

  private updatePurchase(
    codeKey: string,
    change: Partial<Pick<PurchaseRow, 'status' | 'downloaded'>>,
  ): Promise<PurchaseRow | undefined> {
    return this.write(() =>
      // One transaction: the change and the webhook events it makes (the outbox) commit together.
      writeTransaction(this.db, this.dialect, async (trx) => {
        const before = await trx
          .selectFrom('purchases')
          .select(['status', 'downloaded'])
          .where('code_key', '=', codeKey)
          .executeTakeFirst();
        if (!before) return undefined;
        // RETURNING: both SQLite (3.35+) and PostgreSQL give the row as written, in one statement.
        const row = (await trx
          .updateTable('purchases')
          .set(change)
          .where('code_key', '=', codeKey)
          .returningAll()
          .executeTakeFirst()) as PurchaseRow | undefined;
        if (!row) return undefined;
        const types = purchaseEventTypes(before, row);
        const ended = row.status !== 'active' && before.status === 'active';
        if (types.length > 0 || ended) {
          const item = await trx.selectFrom('items').select('account').where('id', '=', row.item_id).executeTakeFirst();
          if (item) {
            const data = purchaseSnapshot(row);
            const changes: Change[] = types.map((type) => ({ account: item.account, type, codeKey, data }));
            await recordChanges(trx, changes);
            // A refund or cancellation ends the code's activations, in the same transaction.
            if (ended)
              await endActivations(trx, codeKey, row.code, item.account, row.status as 'refunded' | 'cancelled');
          }
        }
        return row;
      }),
    );
  }

  private write<T>(work: () => Promise<T>, changesAccounts = true): Promise<T> {
    return this.context.write(work, changesAccounts);
  }

  private guard<T>(query: () => Promise<T>): Promise<T> {
    return this.context.guard(query);
  }
}
