import { type Kysely, sql } from 'kysely';
import type { AccountRow, AccountStatus } from '../../records/rows.js';
import type { Database } from '../database.js';
import { namedQuery } from '../named-query.js';
import type { AccountQueries } from '../store.js';
import type { StoreContext } from '../store-context.js';

/** The read queries, compiled once with named parameters (see named-query.ts). */
function compileQueries({ db }: StoreContext) {
  return {
    accountByKeyDigest: namedQuery({ digest: 'text' }, (p) =>
      db.selectFrom('accounts').selectAll().where('key_digest', '=', p.digest),
    ),
    accountByUsername: namedQuery({ username: 'text' }, (p) =>
      db.selectFrom('accounts').selectAll().where('username', '=', p.username),
    ),
    anyAccount: namedQuery({}, () => db.selectFrom('accounts').select('username').limit(1)),
  };
}

/** The accounts: found by key, name or email, their status and password hashes. */
export class AccountRepository implements AccountQueries {
  private readonly db: Kysely<Database>;
  private readonly runner: StoreContext['runner'];
  private readonly queries: ReturnType<typeof compileQueries>;

  constructor(private readonly context: StoreContext) {
    this.db = context.db;
    this.runner = context.runner;
    this.queries = compileQueries(context);
  }

  accountByKeyDigest(digest: string): Promise<AccountRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.accountByKeyDigest, { digest }));
  }

  accountByUsername(username: string): Promise<AccountRow | undefined> {
    return this.guard(() => this.runner.first(this.queries.accountByUsername, { username }));
  }

  accountByEmail(email: string): Promise<AccountRow | undefined> {
    return this.guard(async () => {
      const rows = await this.db
        .selectFrom('accounts')
        .selectAll()
        .where(sql<string>`lower(email)`, '=', email.toLowerCase())
        .limit(2)
        .execute();
      return rows.length === 1 ? rows[0] : undefined;
    });
  }

  isEmpty(): Promise<boolean> {
    return this.guard(async () => (await this.runner.first(this.queries.anyAccount, {})) === undefined);
  }

  anyAccount(): Promise<AccountRow | undefined> {
    // An account without a key (key_cipher '') has nothing to check the secret against.
    return this.guard(() =>
      this.db.selectFrom('accounts').selectAll().where('key_cipher', '<>', '').limit(1).executeTakeFirst(),
    );
  }

  setAccountStatus(username: string, status: AccountStatus): Promise<boolean> {
    return this.write(async () => {
      const result = await this.db
        .updateTable('accounts')
        .set({ status })
        .where('username', '=', username)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    });
  }

  passwordHash(username: string): Promise<string | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('account_credentials')
        .select('password_hash')
        .where('username', '=', username)
        .executeTakeFirst();
      return row?.password_hash;
    });
  }

  setPasswordHash(username: string, passwordHash: string): Promise<boolean> {
    return this.write(async () => {
      if (
        !(await this.db.selectFrom('accounts').select('username').where('username', '=', username).executeTakeFirst())
      )
        return false;
      await this.db
        .insertInto('account_credentials')
        .values({ username, password_hash: passwordHash })
        .onConflict((conflict) => conflict.column('username').doUpdateSet({ password_hash: passwordHash }))
        .execute();
      return true;
    }, false);
  }

  passwordHashSample(limit: number): Promise<string[]> {
    return this.guard(async () => {
      const rows = await this.db.selectFrom('account_credentials').select('password_hash').limit(limit).execute();
      return rows.map((row) => row.password_hash);
    });
  }

  private write<T>(work: () => Promise<T>, changesAccounts = true): Promise<T> {
    return this.context.write(work, changesAccounts);
  }

  private guard<T>(query: () => Promise<T>): Promise<T> {
    return this.context.guard(query);
  }
}
