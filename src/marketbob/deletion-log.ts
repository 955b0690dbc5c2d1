import { sql } from 'kysely';
import type { MarketbobDb } from './marketbob-connection.js';

/**
 * MarketBob deletes users, items and purchases without a trace (its foreign keys cascade), so a
 * poll cannot see a deletion without comparing every row. The operator may create this table and
 * its triggers (`marketbob check` prints them): each deletion then leaves a row here, which the
 * follower reads by primary key at every poll. A trigger does not fire for rows a foreign key
 * deletes in cascade, so the triggers on `users` and `items` write, before the delete, the rows the
 * cascade will take with it. Without them, deletions are found by the reconciliation only.
 */
export const DELETION_LOG = 'marketbob_api_deletions';

/** The triggers, by name, and the table each watches. */
export const DELETION_TRIGGERS: readonly { readonly name: string; readonly table: string }[] = [
  { name: 'marketbob_api_users_deleted', table: 'users' },
  { name: 'marketbob_api_items_deleted', table: 'items' },
  { name: 'marketbob_api_purchases_deleted', table: 'purchases' },
  { name: 'marketbob_api_item_discounts_deleted', table: 'item_discounts' },
];

const insert = `INSERT INTO ${DELETION_LOG} (row_table, row_id, code)`;

/**
 * The statements that create the log and its triggers (for a user who may: the bridge's own user
 * only reads). Each a single statement: no client `DELIMITER` is needed. The trigger on
 * `item_discounts` is left out when the table does not exist.
 */
export function deletionLogDdl(withDiscounts = true): string[] {
  const statements = [
    `CREATE TABLE ${DELETION_LOG} (
  id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
  row_table varchar(20) NOT NULL,
  row_id bigint unsigned NOT NULL,
  code varchar(255) NULL,
  deleted_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
) ENGINE=InnoDB`,
    `CREATE TRIGGER marketbob_api_users_deleted BEFORE DELETE ON users FOR EACH ROW BEGIN
  ${insert} VALUES ('users', OLD.id, NULL);
  ${insert} SELECT 'items', id, NULL FROM items WHERE author_id = OLD.id;
  ${insert} SELECT 'purchases', id, code FROM purchases WHERE user_id = OLD.id;
  ${insert} SELECT 'purchases', id, code FROM purchases WHERE author_id = OLD.id;
END`,
    `CREATE TRIGGER marketbob_api_items_deleted BEFORE DELETE ON items FOR EACH ROW BEGIN
  ${insert} VALUES ('items', OLD.id, NULL);
  ${insert} SELECT 'purchases', id, code FROM purchases WHERE item_id = OLD.id;
END`,
    `CREATE TRIGGER marketbob_api_purchases_deleted AFTER DELETE ON purchases FOR EACH ROW
  ${insert} VALUES ('purchases', OLD.id, OLD.code)`,
  ];
  if (withDiscounts) {
    statements.push(`CREATE TRIGGER marketbob_api_item_discounts_deleted AFTER DELETE ON item_discounts FOR EACH ROW
  ${insert} VALUES ('item_discounts', OLD.item_id, NULL)`);
  }
  return statements;
}

/** A row of the log: a deleted user, item or purchase (with its code), or an item whose discount was deleted. */
export interface DeletionRow {
  readonly id: number;
  readonly row_table: string;
  readonly row_id: number;
  readonly code: string | null;
}

/** The log's rows after `afterId`, in order: one range of its primary key. */
export async function readDeletions(db: MarketbobDb, afterId: number, limit: number): Promise<DeletionRow[]> {
  const { rows } = await sql<DeletionRow>`
    SELECT id, row_table, row_id, code FROM ${sql.table(DELETION_LOG)}
    WHERE id > ${afterId} ORDER BY id LIMIT ${limit}`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id), row_id: Number(row.row_id) }));
}

/** The log's highest id: where the follower starts reading it (what was deleted before, the reconciliation finds). */
export async function deletionsWatermark(db: MarketbobDb): Promise<number> {
  const { rows } = await sql<{ max_id: number | null }>`
    SELECT MAX(id) AS max_id FROM ${sql.table(DELETION_LOG)}`.execute(db);
  return Number(rows[0]?.max_id ?? 0);
}

/**
 * The triggers this user can see. MariaDB and MySQL show a trigger in information_schema only to a
 * user with the TRIGGER privilege on its table: a read-only user sees none, whatever exists.
 */
export async function visibleTriggers(db: MarketbobDb, database: string): Promise<Set<string>> {
  const { rows } = await sql<{ name: string }>`
    SELECT TRIGGER_NAME AS name FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ${database}`.execute(db);
  return new Set(rows.map((row) => row.name));
}
