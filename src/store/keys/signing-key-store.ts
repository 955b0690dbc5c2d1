import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { SigningKeyRow } from './key-rows.js';

type Guard = <T>(work: () => Promise<T>) => Promise<T>;

/**
 * The deployment's signing key pairs (migration 0017). Adding one is insert-if-absent by its
 * generation, so that instances racing to make the first pair, or two rotations at once, leave
 * exactly one row per generation; none of these writes is a change the API's caches hear of.
 */
export class SigningKeyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly read: Guard,
    private readonly write: Guard,
  ) {}

  /** Every generation, newest first. */
  all(): Promise<SigningKeyRow[]> {
    return this.read(() => this.db.selectFrom('signing_keys').selectAll().orderBy('generation', 'desc').execute());
  }

  /** Adds the pair unless its generation (or its kid) is taken already: true when this one was written. */
  add(row: SigningKeyRow): Promise<boolean> {
    return this.write(async () => {
      const result = await this.db
        .insertInto('signing_keys')
        .values(row)
        .onConflict((conflict) => conflict.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
    });
  }
}
