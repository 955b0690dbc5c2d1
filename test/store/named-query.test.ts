import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { namedQuery } from '../../src/store/named-query.js';

interface Items {
  items: { id: number; account: string; status: string };
}

const sqlite = new BetterSqlite3(':memory:');
sqlite.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, account TEXT NOT NULL, status TEXT NOT NULL)');
const insert = sqlite.prepare('INSERT INTO items (id, account, status) VALUES (?, ?, ?)');
for (let id = 1; id <= 9; id++) insert.run(id, id % 2 === 0 ? 'ann' : 'bob', id % 3 === 0 ? 'pending' : 'approved');
const db = new Kysely<Items>({ dialect: new SqliteDialect({ database: sqlite }) });
// Compiling needs no connection: a pool that is never asked for one.
const postgres = new Kysely<Items>({ dialect: new PostgresDialect({ pool: {} as never }) });

afterAll(async () => {
  await db.destroy();
});

const kinds = { account: 'text', beforeId: 'number', limit: 'number' } as const;

/** The same page query, its where clauses in two orders. */
const pages = (kysely: Kysely<Items>) => ({
  accountFirst: namedQuery(kinds, (p) =>
    kysely
      .selectFrom('items')
      .select('id')
      .where('account', '=', p.account)
      .where('status', '=', 'approved')
      .where('id', '<', p.beforeId)
      .orderBy('id', 'desc')
      .limit(p.limit),
  ),
  idFirst: namedQuery(kinds, (p) =>
    kysely
      .selectFrom('items')
      .select('id')
      .where('id', '<', p.beforeId)
      .where('status', '=', 'approved')
      .where('account', '=', p.account)
      .orderBy('id', 'desc')
      .limit(p.limit),
  ),
});

describe('namedQuery', () => {
  it('binds each value to its own placeholder, whatever the order of the where clauses', () => {
    const { accountFirst, idFirst } = pages(db);
    const values = { account: 'bob', beforeId: 9, limit: 10 };
    expect(accountFirst.bind(values)).toEqual(['bob', 'approved', 9, 10]);
    expect(idFirst.bind(values)).toEqual([9, 'approved', 'bob', 10]);
    const run = (query: typeof accountFirst) => sqlite.prepare(query.sql).all(...query.bind(values));
    expect(run(accountFirst)).toEqual([{ id: 7 }, { id: 5 }, { id: 1 }]);
    expect(run(idFirst)).toEqual(run(accountFirst));
  });

  it('reads the positions from the dialect’s own compiled query', () => {
    const { idFirst } = pages(postgres);
    expect(idFirst.sql).toContain('"id" < $1');
    expect(idFirst.bind({ account: 'ann', beforeId: 5, limit: 2 })).toEqual([5, 'approved', 'ann', 2]);
  });

  it('keeps the constants of the query and binds a name used twice at both places', () => {
    const query = namedQuery({ account: 'text' }, (p) =>
      db
        .selectFrom('items')
        .select('id')
        .where((eb) => eb.or([eb('account', '=', p.account), eb('status', '=', p.account)]))
        .where('status', '<>', 'gone'),
    );
    expect(query.bind({ account: 'ann' })).toEqual(['ann', 'ann', 'gone']);
  });

  it('fails when it is built, not when it runs, for a name the query never uses', () => {
    expect(() =>
      namedQuery({ account: 'text', beforeId: 'number' }, (p) =>
        db.selectFrom('items').select('id').where('account', '=', p.account),
      ),
    ).toThrow(/no placeholder for "beforeId"/);
  });

  it('fails loudly when a value is missing', () => {
    const { accountFirst } = pages(db);
    expect(() => accountFirst.bind({ account: 'bob', limit: 1 } as never)).toThrow(/no value for "beforeId"/);
  });
});
