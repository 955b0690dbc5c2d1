import type { Kysely, Migration } from 'kysely';

/**
 * How an account's dated key came (see migration 0005): `made` by this service (a rotation, demo
 * data) or `imported` (an import or the MarketBob bridge set it; dated when it arrived, since when
 * it was made elsewhere is not known). Rows written before this migration were all made here; a
 * key imported before it has no row and stays undated.
 */
export const keyOrigins: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('key_dates')
    .addColumn('origin', 'text', (c) => c.notNull().defaultTo('made'))
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('key_dates').dropColumn('origin').execute();
}
