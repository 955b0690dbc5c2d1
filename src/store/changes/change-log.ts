/**
 * The change log (migration 0016): every write to a table the API's caches hold rows of adds
 * entries naming what it changed, in the same transaction, each with a sequence number. Every
 * process reads the entries after the last one it read and drops just those cache entries; a
 * write that changes nothing (an update to the values a row already has) adds nothing.
 *
 * Ordinary writes are logged by row triggers, whoever makes them (this service, the CLI, another
 * instance, someone in psql or sqlite3). An import mutes the triggers for its transaction and
 * writes its entries itself as it commits (ImportChanges): per key while they are few, one
 * "wholesale" entry per table beyond IMPORT_KEY_LIMIT, so a million-row import costs a handful
 * of log rows and its readers one clearing.
 *
 * A new table whose rows the API's caches keep (or derive answers from) opts in by an entry in
 * LOGGED_TABLES below: its name and, per column, the kind of cache entry that column's value
 * names. The triggers are made from that list when a store opens (installSqliteChangeLog,
 * postgresChangeLogSql), on both stores. Tables whose writes must never cost the caches anything
 * (sessions, key usage, webhook bookkeeping, activity) are simply not listed.
 */

/** What a log entry names: a cache entry's kind, or `table` for a whole table (its name as key). */
export type ChangeKind = 'account' | 'item' | 'item_list' | 'purchase' | 'setting' | 'table';

/** A table logged, and the kinds its columns name. */
export interface LoggedTable {
  readonly table: string;
  readonly names: readonly { readonly kind: Exclude<ChangeKind, 'table'>; readonly column: string }[];
}

export const LOGGED_TABLES: readonly LoggedTable[] = [
  // An account's cache entries are found by the username they belong to.
  { table: 'accounts', names: [{ kind: 'account', column: 'username' }] },
  // An item's row is in its own entry, in the purchases that embed it, and in its seller's list.
  {
    table: 'items',
    names: [
      { kind: 'item', column: 'id' },
      { kind: 'item_list', column: 'account' },
    ],
  },
  { table: 'purchases', names: [{ kind: 'purchase', column: 'code_key' }] },
  { table: 'source_settings', names: [{ kind: 'setting', column: 'name' }] },
  // A named key is kept in the cache with its account's entries: a new, revoked or renamed key
  // drops them (and the unknown keys), as a change of the account's own key does.
  { table: 'api_keys', names: [{ kind: 'account', column: 'username' }] },
];

/** Which table's rows a kind names (a wholesale entry for it stands for every key). */
export const TABLE_OF_KIND: Readonly<Record<Exclude<ChangeKind, 'table'>, string>> = {
  account: 'accounts',
  item: 'items',
  item_list: 'items',
  purchase: 'purchases',
  setting: 'source_settings',
};

/** One entry of the log. */
export interface ChangeEntry {
  readonly kind: ChangeKind;
  readonly key: string;
}

/** The entry every store's log starts with (migration 0016): the log is never empty (see readChanges). */
export const FIRST_ENTRY: ChangeEntry = { kind: 'table', key: '' };

/**
 * Keys an import names one by one; past this many (all kinds together), each further table it
 * changes is named whole. A reader that sees more entries than READ_LIMIT at once clears everything.
 */
export const IMPORT_KEY_LIMIT = 5_000;
export const READ_LIMIT = 20_000;
/** How long entries are kept: a process that has not read the log for longer clears everything once. */
export const RETENTION_MS = 10 * 60_000;
/** How often each store prunes the log (any one store's pruning serves every reader). */
export const PRUNE_INTERVAL_MS = 60_000;

/** Channel PostgreSQL's log triggers NOTIFY on (no payload: listeners read the log). */
export const CHANGE_CHANNEL = 'marketplace_changes';
/**
 * Any constant: a PostgreSQL transaction takes it (until it ends) before it adds entries, so
 * sequence numbers are taken in commit order and a reader that has read up to one has seen every
 * entry before it.
 */
export const CHANGE_LOG_LOCK = 7_310_455_031;
/** The setting an import sets (SET LOCAL) to mute PostgreSQL's log triggers in its transaction. */
export const MUTE_SETTING = 'marketplace.change_log';

/**
 * What changed in the store since a process last asked: everything (`all`: its log was not
 * followed, or too much changed to name), or the keys and whole tables the log named.
 */
export class StoreChanges {
  all = false;
  readonly tables = new Set<string>();
  readonly accounts = new Set<string>();
  readonly items = new Set<number>();
  readonly itemLists = new Set<string>();
  readonly purchases = new Set<string>();
  readonly settings = new Set<string>();

  static everything(): StoreChanges {
    const changes = new StoreChanges();
    changes.all = true;
    return changes;
  }

  add({ kind, key }: { readonly kind: string; readonly key: string }): void {
    switch (kind) {
      case 'account':
        this.accounts.add(key);
        break;
      case 'item':
        this.items.add(Number(key));
        break;
      case 'item_list':
        this.itemLists.add(key);
        break;
      case 'purchase':
        this.purchases.add(key);
        break;
      case 'setting':
        this.settings.add(key);
        break;
      default:
        if (key !== '') this.tables.add(key);
    }
  }

  /** Adds what `other` names to this. */
  merge(other: StoreChanges): void {
    this.all ||= other.all;
    for (const table of other.tables) this.tables.add(table);
    for (const key of other.accounts) this.accounts.add(key);
    for (const id of other.items) this.items.add(id);
    for (const key of other.itemLists) this.itemLists.add(key);
    for (const key of other.purchases) this.purchases.add(key);
    for (const key of other.settings) this.settings.add(key);
  }
}

/** A log row as read. */
export interface ChangeRow {
  readonly seq: number;
  readonly kind: string;
  readonly key: string;
}

/**
 * What the rows read after the last seq read (`WHERE seq >= last ORDER BY seq LIMIT READ_LIMIT + 2`)
 * say, and the seq to read after next time. The entry at `last` itself is read too: it is gone only
 * when the log was pruned past it (pruning keeps the newest entry), and then entries may have been
 * missed: everything changed. `newest` gives the log's last seq when the rows cannot say it.
 */
export function changesFrom(
  rows: readonly ChangeRow[],
  last: number,
  newest: () => number,
): { changes: StoreChanges | undefined; last: number } {
  if (rows[0]?.seq !== last || rows.length > READ_LIMIT + 1) {
    return { changes: StoreChanges.everything(), last: newest() };
  }
  if (rows.length === 1) return { changes: undefined, last };
  const changes = new StoreChanges();
  for (let index = 1; index < rows.length; index++) changes.add(rows[index] as ChangeRow);
  return { changes, last: (rows[rows.length - 1] as ChangeRow).seq };
}

/**
 * The keys one import changed (see the module's comment), collected as it writes and logged by
 * its session as it commits. Muted triggers leave the naming to it.
 */
export class ImportChanges {
  private readonly keys = new Map<string, ChangeEntry>();
  private readonly wholeTables = new Set<string>();

  /** Whether `table` is named whole already: its keys need not be found. */
  isWhole(table: string): boolean {
    return this.wholeTables.has(table);
  }

  add(kind: Exclude<ChangeKind, 'table'>, key: string | number): void {
    const table = TABLE_OF_KIND[kind];
    if (this.wholeTables.has(table)) return;
    const text = String(key);
    this.keys.set(`${kind}\u0000${text}`, { kind, key: text });
    if (this.keys.size > IMPORT_KEY_LIMIT) this.whole(table);
  }

  /** The whole table changed (a rename moves rows between keys, say). */
  whole(table: string): void {
    this.wholeTables.add(table);
    for (const [id, entry] of this.keys) {
      if (entry.kind !== 'table' && TABLE_OF_KIND[entry.kind] === table) this.keys.delete(id);
    }
  }

  entries(): ChangeEntry[] {
    return [...[...this.wholeTables].map((table) => ({ kind: 'table' as const, key: table })), ...this.keys.values()];
  }
}

/** Milliseconds since the epoch, in SQL, as each store writes it in its triggers. */
const SQLITE_NOW = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
export const POSTGRES_NOW = '(extract(epoch from clock_timestamp()) * 1000)::int8';

/** SQLite: the row an import adds to this table (and removes before it commits) mutes the triggers. */
export const SQLITE_MUTE_TABLE = 'change_log_mute';

/**
 * SQLite's triggers of one logged table, by name: an insert, an update that changes any column (of
 * `columns`, every column of the table), a delete. Each adds an entry per name of the row (OLD's,
 * and NEW's where it differs).
 */
export function sqliteTriggers(logged: LoggedTable, columns: readonly string[]): Map<string, string> {
  const { table, names } = logged;
  const values = (row: 'OLD' | 'NEW') =>
    names.map(({ kind, column }) => `('${kind}', ${row}.${column}, ${SQLITE_NOW})`).join(', ');
  const insert = (row: 'OLD' | 'NEW') => `INSERT INTO change_log (kind, key, at) VALUES ${values(row)};`;
  const unmuted = `NOT EXISTS (SELECT 1 FROM ${SQLITE_MUTE_TABLE})`;
  const differs = (cols: readonly string[]) =>
    `(${cols.map((c) => `OLD.${c}`).join(', ')}) IS NOT (${cols.map((c) => `NEW.${c}`).join(', ')})`;
  const moved = names
    .map(
      ({ kind, column }) =>
        `INSERT INTO change_log (kind, key, at) SELECT '${kind}', NEW.${column}, ${SQLITE_NOW} WHERE NEW.${column} IS NOT OLD.${column};`,
    )
    .join(' ');
  const name = (event: string) => `change_log_${table}_${event}`;
  return new Map([
    [
      name('insert'),
      `CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${table} WHEN ${unmuted} BEGIN ${insert('NEW')} END`,
    ],
    [
      name('update'),
      `CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${table} WHEN ${unmuted} AND ${differs(columns)} BEGIN ${insert('OLD')} ${moved} END`,
    ],
    [
      name('delete'),
      `CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${table} WHEN ${unmuted} BEGIN ${insert('OLD')} END`,
    ],
  ]);
}

/** PostgreSQL's trigger function of one logged table (see postgresChangeLogSql). */
function postgresFunction(logged: LoggedTable): string {
  const values = (row: 'OLD' | 'NEW') =>
    logged.names.map(({ kind, column }) => `('${kind}', ${row}.${column}::text, now_ms)`).join(', ');
  const moved = logged.names
    .map(
      ({ kind, column }) => `
    IF TG_OP = 'UPDATE' AND NEW.${column} IS DISTINCT FROM OLD.${column} THEN
      INSERT INTO change_log (kind, key, at) VALUES ('${kind}', NEW.${column}::text, now_ms);
    END IF;`,
    )
    .join('');
  return `CREATE OR REPLACE FUNCTION marketplace_log_${logged.table}() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE now_ms int8;
  BEGIN
    IF current_setting('${MUTE_SETTING}', true) = 'off' THEN RETURN NULL; END IF;
    PERFORM pg_advisory_xact_lock(${CHANGE_LOG_LOCK});
    now_ms := ${POSTGRES_NOW};
    IF TG_OP = 'TRUNCATE' THEN
      INSERT INTO change_log (kind, key, at) VALUES ('table', TG_TABLE_NAME, now_ms);
    ELSIF TG_OP = 'INSERT' THEN
      INSERT INTO change_log (kind, key, at) VALUES ${values('NEW')};
    ELSE
      INSERT INTO change_log (kind, key, at) VALUES ${values('OLD')};${moved}
    END IF;
    PERFORM pg_notify('${CHANGE_CHANNEL}', '');
    RETURN NULL;
  END
  $fn$;`;
}

/**
 * The statement-level trigger the service used before the log: removed where it is still there
 * (looked for first: dropping a trigger locks its table, which a start should not do for nothing).
 */
const OLD_NOTIFY_TRIGGER = 'marketplace_notify_change';

/**
 * PostgreSQL's triggers, as one DO block's statements: per logged table, its function (replaced
 * every time, so that a changed LOGGED_TABLES takes effect) and, where missing, a row trigger for
 * inserts and deletes, one for updates that change the row (`OLD.* IS DISTINCT FROM NEW.*`), and a
 * statement trigger for TRUNCATE.
 */
export function postgresChangeLogSql(): string {
  return LOGGED_TABLES.map((logged) => {
    const { table } = logged;
    const fn = `marketplace_log_${table}()`;
    const trigger = (name: string, definition: string) => `
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${name}' AND tgrelid = '${table}'::regclass) THEN
    CREATE TRIGGER ${name} ${definition};
  END IF;`;
    return `
  ${postgresFunction(logged)}
  IF EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${OLD_NOTIFY_TRIGGER}' AND tgrelid = '${table}'::regclass) THEN
    DROP TRIGGER ${OLD_NOTIFY_TRIGGER} ON ${table};
  END IF;${trigger(
    'marketplace_log_write',
    `AFTER INSERT OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${fn}`,
  )}${trigger(
    'marketplace_log_update',
    `AFTER UPDATE ON ${table} FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION ${fn}`,
  )}${trigger('marketplace_log_truncate', `AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}`)}`;
  }).join('');
}

/** Deletes every entry older than `cutoff` (ms since the epoch) but the newest, as a prefix of the log. */
export const PRUNE_SQL = (cutoff: string) =>
  `DELETE FROM change_log WHERE seq < COALESCE((SELECT min(seq) FROM change_log WHERE at >= ${cutoff}), (SELECT max(seq) FROM change_log))`;

/** The rows a reader reads (see changesFrom); `$last`/`$limit` as the dialect binds them. */
export const READ_SQL = (last: string, limit: string) =>
  `SELECT seq, kind, key FROM change_log WHERE seq >= ${last} ORDER BY seq LIMIT ${limit}`;
