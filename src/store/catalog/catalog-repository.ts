import type { ItemRow, ListedItem } from '../../records/rows.js';
import { namedQuery } from '../named-query.js';
import type { CatalogQueries } from '../store.js';
import type { StoreContext } from '../store-context.js';
import { itemHeadSql } from './item-head-sql.js';

/** The read queries, compiled once with named parameters (see named-query.ts). */
function compileQueries({ db, dialect }: StoreContext) {
  return {
    item: namedQuery({ id: 'number' }, (p) => db.selectFrom('items').selectAll().where('id', '=', p.id)),
    approvedItemsPage: namedQuery({ username: 'text', beforeId: 'number', limit: 'number' }, (p) =>
      db
        .selectFrom('items')
        .select(['id', itemHeadSql(dialect).as('head'), 'price_regular', 'price_extended', 'published_at'])
        .where('account', '=', p.username)
        .where('status', '=', 'approved')
        .where('id', '<', p.beforeId)
        .orderBy('id', 'desc')
        .limit(p.limit),
    ),
    approvedItemRowsPage: namedQuery({ username: 'text', beforeId: 'number', limit: 'number' }, (p) =>
      db
        .selectFrom('items')
        .selectAll()
        .where('account', '=', p.username)
        .where('status', '=', 'approved')
        .where('id', '<', p.beforeId)
        .orderBy('id', 'desc')
        .limit(p.limit),
    ),
  };
}

/** The items and each seller's list of them. */
export class CatalogRepository implements CatalogQueries {
  private readonly runner: StoreContext['runner'];
  private readonly queries: ReturnType<typeof compileQueries>;

  constructor(private readonly context: StoreContext) {
    this.runner = context.runner;
    this.queries = compileQueries(context);
  }

  item(id: number): Promise<ItemRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.item, { id }));
  }

  approvedItemsPage(username: string, beforeId: number, limit: number): Promise<ListedItem[]> {
    return this.guard(() => this.runner.all(this.queries.approvedItemsPage, { username, beforeId, limit }));
  }

  approvedItemRowsPage(username: string, beforeId: number, limit: number): Promise<ItemRow[]> {
    return this.guard(() => this.runner.all(this.queries.approvedItemRowsPage, { username, beforeId, limit }));
  }

  private guard<T>(query: () => Promise<T>): Promise<T> {
    return this.context.guard(query);
  }
}
