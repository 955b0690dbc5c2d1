import type { Kysely, Migration } from 'kysely';

/**
 * The deployment's key pairs that sign the API's answers and its license tokens, one row per
 * generation: the highest signs, the older ones stay published while tokens they signed may live.
 * The private key is sealed with the server secret, as the API keys are. `generation` is the
 * primary key so that two instances making the first pair (or two rotations) at once cannot both
 * write one: the loser reads back the winner's.
 */
export const signingKeys: Migration = { up, down };

async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('generation', 'integer', (c) => c.primaryKey())
    .addColumn('kid', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
}

async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('signing_keys').execute();
}
