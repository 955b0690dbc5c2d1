import { ACCOUNT_KEY_COLUMNS, ACCOUNTS } from '../../records/account-table.js';

/**
 * Every column that refers to `accounts.username`, by table: what a rename moves. A migration
 * that adds a reference to accounts adds it here (test/store/account-rename.test.ts compares this
 * list with the schema's foreign keys).
 */
export const ACCOUNT_REFERENCES: readonly { readonly table: string; readonly column: string }[] = [
  { table: 'items', column: 'account' },
  { table: 'account_credentials', column: 'username' },
  { table: 'workspace_sessions', column: 'username' },
  { table: 'retired_keys', column: 'username' },
  { table: 'replaced_keys', column: 'username' },
  { table: 'key_dates', column: 'username' },
  { table: 'key_usage', column: 'username' },
  { table: 'marketbob_users', column: 'username' },
  { table: 'webhook_endpoints', column: 'account' },
  { table: 'webhook_events', column: 'account' },
  { table: 'api_keys', column: 'username' },
];

/** Set on the key digest while the renamed row and its copy both exist (the column is unique); 9 characters. */
const MOVING = 'renaming:';

/**
 * The statements that rename an account whose username is the `from` placeholder to the `to`
 * one, in one transaction of the caller's, with foreign keys checked at each statement (neither
 * store's references cascade updates, and PostgreSQL's are not deferrable): the row is copied
 * under the new name, every reference moved to it, and the old row deleted. Written once for
 * both stores; the placeholders are the dialect's (`$1`/`$2`, `@from`/`@to`). Whether `to` is
 * free is for the caller to check first.
 */
export function renameStatements(from: string, to: string): string[] {
  const columns = [...ACCOUNTS.valueColumns, ...Object.keys(ACCOUNT_KEY_COLUMNS)];
  const copied = columns.map((column) =>
    column === 'key_digest' ? `substr(key_digest, ${MOVING.length + 1})` : column,
  );
  return [
    `UPDATE accounts SET key_digest = '${MOVING}' || key_digest WHERE username = ${from}`,
    `INSERT INTO accounts (username, ${columns.join(', ')}) SELECT ${to}, ${copied.join(', ')} FROM accounts WHERE username = ${from}`,
    ...ACCOUNT_REFERENCES.map(({ table, column }) => `UPDATE ${table} SET ${column} = ${to} WHERE ${column} = ${from}`),
    `DELETE FROM accounts WHERE username = ${from}`,
  ];
}
