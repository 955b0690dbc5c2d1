import type { Kysely, Migration } from 'kysely';

/**
 * Who may log in to the workspace, for accounts that come from MarketBob: whether the user is an
 * author (`is_author`: only authors have a seller workspace), and its two-factor secret
 * (`two_factor`: MarketBob's `google2fa_secret` exactly as it stores it, Laravel-encrypted; '' when
 * two-factor login is off; a marker when it is on with no secret to read, see
 * src/marketbob/login-facts.ts). Links written before this migration default to an author without
 * two-factor login until the next sync (every start runs one) says otherwise.
 *
 * `marketbob_login_steps`: the last time step whose code each MarketBob user logged in with, so
 * that a code is used once, whichever process or instance sees it. Keyed by the MarketBob user id
 * rather than the username: it survives a rename and a link rewritten for a changed password, and
 * refers to no account.
 */
export const marketbobLogins: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('marketbob_users')
    .addColumn('is_author', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('marketbob_users')
    .addColumn('two_factor', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .createTable('marketbob_login_steps')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey())
    .addColumn('step', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('marketbob_login_steps').execute();
  await db.schema.alterTable('marketbob_users').dropColumn('two_factor').execute();
  await db.schema.alterTable('marketbob_users').dropColumn('is_author').execute();
}
