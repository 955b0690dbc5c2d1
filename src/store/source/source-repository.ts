import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { MarketbobLoginFacts, SourceQueries, SourceSettingName } from '../store.js';
import type { StoreContext } from '../store-context.js';

/** The data's source (MarketBob): which user an account comes from, its login facts and steps, the source's settings. */
export class SourceRepository implements SourceQueries {
  private readonly db: Kysely<Database>;

  constructor(private readonly context: StoreContext) {
    this.db = context.db;
  }

  marketbobUserId(username: string): Promise<number | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('marketbob_users')
        .select('user_id')
        .where('username', '=', username)
        .executeTakeFirst();
      return row === undefined ? undefined : Number(row.user_id);
    });
  }

  marketbobLogin(username: string): Promise<MarketbobLoginFacts | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('marketbob_users')
        .select(['user_id', 'is_author', 'two_factor'])
        .where('username', '=', username)
        .executeTakeFirst();
      return row && { userId: Number(row.user_id), isAuthor: Number(row.is_author) === 1, twoFactor: row.two_factor };
    });
  }

  claimLoginStep(userId: number, step: number): Promise<boolean> {
    return this.write(async () => {
      const result = await this.db
        .insertInto('marketbob_login_steps')
        .values({ user_id: userId, step })
        .onConflict((conflict) =>
          conflict
            .column('user_id')
            .doUpdateSet({ step: (eb) => eb.ref('excluded.step') })
            .where('marketbob_login_steps.step', '<', step),
        )
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    }, false);
  }

  sourceSetting(name: SourceSettingName): Promise<string | undefined> {
    return this.guard(async () => {
      const row = await this.db
        .selectFrom('source_settings')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirst();
      return row?.value;
    });
  }

  async setSourceSetting(name: SourceSettingName, value: string): Promise<void> {
    // Asked first: the follower writes its settings on every pass, and an unchanged one must not
    // clear every process's caches.
    if ((await this.sourceSetting(name)) === value) return;
    await this.write(() =>
      this.db
        .insertInto('source_settings')
        .values({ name, value })
        .onConflict((conflict) => conflict.column('name').doUpdateSet({ value }))
        .execute(),
    );
  }

  private write<T>(work: () => Promise<T>, changesAccounts = true): Promise<T> {
    return this.context.write(work, changesAccounts);
  }

  private guard<T>(query: () => Promise<T>): Promise<T> {
    return this.context.guard(query);
  }
}
