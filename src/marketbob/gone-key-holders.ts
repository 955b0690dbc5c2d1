import { sql } from 'kysely';
import type { DeletionRow } from './deletion-log.js';
import type { MarketbobDb } from './marketbob-connection.js';

/** Ids asked for in one statement: one range of the primary key each. */
const IDS_A_STATEMENT = 1000;

/**
 * Without the deletion log (its triggers not created in MarketBob), the users who hold a key here
 * are looked up by primary key at every poll, so that a seller deleted there stops opening our API
 * within the follow bound all the same: `SELECT id FROM users WHERE id IN (...)`, a thousand ids a
 * statement, read from the primary key alone. What else a deletion takes (a buyer's purchases, an
 * item) waits for the reconciliation then: those are too many rows to ask for at every poll.
 * Gives the missing users as the log would have said them.
 */
export async function goneKeyHolders(db: MarketbobDb, holders: Iterable<number>): Promise<DeletionRow[]> {
  const ids = [...new Set(holders)].sort((a, b) => a - b);
  const gone: DeletionRow[] = [];
  for (let at = 0; at < ids.length; at += IDS_A_STATEMENT) {
    const chunk = ids.slice(at, at + IDS_A_STATEMENT);
    const { rows } = await sql<{ id: number | string }>`
      SELECT id FROM users WHERE id IN (${sql.join(chunk)})`.execute(db);
    const present = new Set(rows.map((row) => Number(row.id)));
    for (const id of chunk) {
      if (!present.has(id)) gone.push({ id: 0, row_table: 'users', row_id: id, code: null });
    }
  }
  return gone;
}
