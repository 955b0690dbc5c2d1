import type { Kysely, Migration } from 'kysely';

/**
 * What a workspace session is bound to: the CSRF secret of its forms (made at login, kept only
 * here), a digest of the account's password hash at login (a session whose account's hash has
 * changed since is over), and a message shown once on the next page (the flash of a
 * Post/Redirect/Get). Sessions older than this migration have neither secret nor digest, so they
 * end at their next use: their sellers log in again.
 */
export const sessionBindings: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  await db.schema
    .alterTable('workspace_sessions')
    .addColumn('csrf_secret', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema
    .alterTable('workspace_sessions')
    .addColumn('credential_tag', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('workspace_sessions').addColumn('flash', 'text').execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('workspace_sessions').dropColumn('flash').execute();
  await db.schema.alterTable('workspace_sessions').dropColumn('credential_tag').execute();
  await db.schema.alterTable('workspace_sessions').dropColumn('csrf_secret').execute();
}
