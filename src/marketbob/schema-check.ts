import { sql } from 'kysely';
import { DELETION_LOG, DELETION_TRIGGERS, deletionLogDdl, visibleTriggers } from './deletion-log.js';
import { currentDatabase, type MarketbobDb } from './marketbob-connection.js';
import { effectiveTimezone, type MarketbobSettings } from './marketbob-settings.js';

/** The columns the bridge reads, per table: without any of them it cannot serve the contract. */
export const REQUIRED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  users: [
    'id',
    'firstname',
    'lastname',
    'username',
    'email',
    'password',
    'api_key',
    'is_author',
    'balance',
    'avatar',
    'profile_cover',
    'profile_heading',
    'profile_description',
    'profile_contact_email',
    'profile_social_links',
    'status',
    'created_at',
    'updated_at',
  ],
  items: [
    'id',
    'author_id',
    'name',
    'description',
    'category_id',
    'sub_category_id',
    'options',
    'version',
    'demo_link',
    'tags',
    'thumbnail',
    'preview_type',
    'preview_image',
    'preview_video',
    'preview_audio',
    'screenshots',
    'regular_price',
    'extended_price',
    'is_supported',
    'status',
    'created_at',
    'updated_at',
  ],
  categories: ['id', 'name', 'regular_buyer_fee', 'extended_buyer_fee'],
  sub_categories: ['id', 'name'],
  sales: ['id', 'price'],
  purchases: [
    'id',
    'sale_id',
    'item_id',
    'license_type',
    'code',
    'support_expiry_at',
    'is_downloaded',
    'status',
    'created_at',
    'updated_at',
  ],
  settings: ['key', 'value'],
};

/** Columns of the "validity period" migrations (2024-12) and of two-factor login: read when they exist. */
export const OPTIONAL_COLUMNS: readonly { readonly table: string; readonly column: string; readonly use: string }[] = [
  { table: 'items', column: 'validity_prices', use: "not served (MarketBob's API ignores it)" },
  { table: 'items', column: 'original_price', use: 'not served (a display-only "was" price)' },
  { table: 'sales', column: 'validity_period', use: 'not served (the contract has no validity)' },
  { table: 'purchases', column: 'validity_expiry_at', use: 'not served (MarketBob itself validates past it)' },
  { table: 'users', column: 'google2fa_status', use: 'two-factor login: the workspace asks for the code' },
  { table: 'users', column: 'google2fa_secret', use: 'two-factor login: the secret codes are checked against' },
];

/**
 * The indexes the follower's polls read through, beside the primary keys: `updated_at` of the
 * tables it polls, and the items' category columns (a changed category's items are read again;
 * MarketBob's foreign keys give these two).
 */
export const FOLLOWED_INDEXES: readonly { readonly table: string; readonly column: string }[] = [
  { table: 'users', column: 'updated_at' },
  { table: 'items', column: 'updated_at' },
  { table: 'purchases', column: 'updated_at' },
  { table: 'items', column: 'category_id' },
  { table: 'items', column: 'sub_category_id' },
  // A discount created, saved or deleted reaches its item within a poll.
  { table: 'item_discounts', column: 'updated_at' },
  { table: 'item_discounts', column: 'item_id' },
  // The deletion log's triggers find a deleted user's or item's purchases through these (MarketBob's
  // foreign keys give them).
  { table: 'items', column: 'author_id' },
  { table: 'purchases', column: 'user_id' },
  { table: 'purchases', column: 'author_id' },
  { table: 'purchases', column: 'item_id' },
];

/** The columns of `item_discounts` the bridge reads: without one of them the table is not read. */
export const DISCOUNT_COLUMNS: readonly string[] = [
  'id',
  'item_id',
  'regular_price',
  'extended_price',
  'status',
  'updated_at',
];

/** Tables the bridge reads when they exist. */
export const OPTIONAL_TABLES: readonly { readonly table: string; readonly use: string }[] = [
  { table: 'item_discounts', use: 'the price while a discount is active' },
  { table: DELETION_LOG, use: 'deletions followed within a poll (without it: within reconcileMinutes)' },
];

export interface TableReport {
  readonly table: string;
  readonly exists: boolean;
  readonly rows: number;
  readonly missingColumns: readonly string[];
}

export interface MissingIndex {
  readonly table: string;
  /** The statement that creates it (a read-only user cannot: the operator runs it). */
  readonly statement: string;
}

/** What `marketbob check` finds. */
export interface SchemaReport {
  readonly database: string;
  readonly version: string;
  readonly tables: readonly TableReport[];
  readonly optional: readonly { readonly table: string; readonly column: string; readonly present: boolean }[];
  readonly missingIndexes: readonly MissingIndex[];
  readonly optionalTables: readonly {
    readonly table: string;
    readonly present: boolean;
    /** Columns the bridge reads that the table lacks (it is then not read). */
    readonly missingColumns: readonly string[];
  }[];
  /** The deletion log's triggers this user can see (see deletion-log.ts: a read-only user sees none). */
  readonly triggers: readonly string[];
  /** What creates the deletion log, when it is missing. */
  readonly deletionLogDdl: readonly string[];
  /** True when every required table and column exists: a sync can run. */
  readonly usable: boolean;
}

/** The columns each table has, from information_schema. */
export async function tableColumns(db: MarketbobDb, database: string): Promise<Map<string, Set<string>>> {
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    SELECT TABLE_NAME AS table_name, COLUMN_NAME AS column_name
    FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ${database}`.execute(db);
  const columns = new Map<string, Set<string>>();
  for (const row of rows) {
    let set = columns.get(row.table_name);
    if (set === undefined) {
      set = new Set();
      columns.set(row.table_name, set);
    }
    set.add(row.column_name);
  }
  return columns;
}

/** Reads information_schema (and counts rows) to say what the bridge will read and what is missing. */
export async function checkSchema(db: MarketbobDb): Promise<SchemaReport> {
  const database = await currentDatabase(db);
  const { rows: versionRows } = await sql<{ version: string }>`SELECT VERSION() AS version`.execute(db);
  const columns = await tableColumns(db, database);
  const tables: TableReport[] = [];
  for (const [table, required] of Object.entries(REQUIRED_COLUMNS)) {
    const present = columns.get(table);
    if (present === undefined) {
      tables.push({ table, exists: false, rows: 0, missingColumns: [...required] });
      continue;
    }
    const { rows } = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${sql.table(table)}`.execute(db);
    tables.push({
      table,
      exists: true,
      rows: Number(rows[0]?.n ?? 0),
      missingColumns: required.filter((column) => !present.has(column)),
    });
  }
  const { rows: indexed } = await sql<{ table_name: string; column_name: string }>`
    SELECT DISTINCT TABLE_NAME AS table_name, COLUMN_NAME AS column_name FROM information_schema.STATISTICS
    WHERE TABLE_SCHEMA = ${database} AND SEQ_IN_INDEX = 1`.execute(db);
  const hasIndex = new Set(indexed.map((row) => `${row.table_name}.${row.column_name}`));
  const missingIndexes = FOLLOWED_INDEXES.filter(
    ({ table, column }) => columns.get(table)?.has(column) === true && !hasIndex.has(`${table}.${column}`),
  ).map(({ table, column }) => ({
    table,
    statement: `CREATE INDEX marketbob_follow_${table}_${column} ON ${table} (${column});`,
  }));
  const visible = await visibleTriggers(db, database);
  return {
    database,
    version: versionRows[0]?.version ?? '',
    optionalTables: OPTIONAL_TABLES.map(({ table }) => ({
      table,
      present: columns.has(table),
      missingColumns:
        table === 'item_discounts' && columns.has(table)
          ? DISCOUNT_COLUMNS.filter((column) => !columns.get(table)?.has(column))
          : [],
    })),
    triggers: DELETION_TRIGGERS.filter(({ name }) => visible.has(name)).map(({ name }) => name),
    deletionLogDdl: columns.has(DELETION_LOG) ? [] : deletionLogDdl(columns.has('item_discounts')),
    tables,
    optional: OPTIONAL_COLUMNS.map(({ table, column }) => ({
      table,
      column,
      present: columns.get(table)?.has(column) ?? false,
    })),
    missingIndexes,
    usable: tables.every((table) => table.exists && table.missingColumns.length === 0),
  };
}

/** The report as the CLI prints it. */
export function schemaReportLines(report: SchemaReport): string[] {
  const lines = [`MarketBob database ${report.database} (server ${report.version})`, 'reads:'];
  for (const table of report.tables) {
    if (!table.exists) lines.push(`  ${table.table}: MISSING TABLE`);
    else if (table.missingColumns.length > 0)
      lines.push(`  ${table.table}: ${table.rows} rows; MISSING COLUMNS ${table.missingColumns.join(', ')}`);
    else lines.push(`  ${table.table}: ${table.rows} rows (${REQUIRED_COLUMNS[table.table]?.join(', ')})`);
  }
  lines.push('optional columns (validity period, two-factor login):');
  for (const optional of report.optional) {
    const use = OPTIONAL_COLUMNS.find((o) => o.table === optional.table && o.column === optional.column)?.use ?? '';
    lines.push(`  ${optional.table}.${optional.column}: ${optional.present ? 'present' : 'absent'} (${use})`);
  }
  lines.push('optional tables:');
  for (const optional of report.optionalTables) {
    const use = OPTIONAL_TABLES.find((o) => o.table === optional.table)?.use ?? '';
    const state = !optional.present
      ? 'absent'
      : optional.missingColumns.length > 0
        ? `present, without ${optional.missingColumns.join(', ')}: not read`
        : 'present';
    lines.push(`  ${optional.table}: ${state} (${use})`);
  }
  if (report.deletionLogDdl.length > 0) {
    lines.push(
      "deletions: MarketBob leaves no trace of a deleted row; to follow them within a poll, create the log and its triggers (as a user who may; MarketBob's own user writes it):",
    );
    // The triggers' bodies hold semicolons: the mysql client needs another delimiter.
    lines.push('  DELIMITER //');
    for (const statement of report.deletionLogDdl) lines.push(`  ${statement.replaceAll('\n', '\n  ')} //`);
    lines.push('  DELIMITER ;');
  } else {
    const seen =
      report.triggers.length > 0
        ? report.triggers.join(', ')
        : 'none visible to this user (a user without the TRIGGER privilege sees none)';
    lines.push(`deletions: followed through ${DELETION_LOG}; its triggers: ${seen}`);
  }
  lines.push("not read: refunds (a purchase's own status says whether it validates), sales fees and taxes");
  if (report.missingIndexes.length === 0) lines.push('indexes: the follower has every index it needs');
  else {
    lines.push('indexes the follower needs and the database lacks (without them each poll scans the table):');
    for (const missing of report.missingIndexes) lines.push(`  ${missing.statement}`);
  }
  lines.push(
    report.usable
      ? 'ok: a sync can read this database'
      : 'failed: tables or columns the bridge reads are missing; is this a MarketBob database?',
  );
  return lines;
}

/** The settings as `marketbob check` prints them, with a warning where the config disagrees. */
export function settingsReportLines(
  settings: MarketbobSettings,
  configuredZone: string | undefined,
  variants: readonly { readonly lang: string; readonly currency: string }[],
): string[] {
  const { zone, source } = effectiveTimezone(configuredZone, settings);
  const lines = ['settings:'];
  if (source === 'config') {
    lines.push(
      `  time zone: ${zone} (from MARKETBOB_TIMEZONE / marketbob.timezone, over the general.timezone setting)`,
    );
  } else if (source === 'settings') lines.push(`  time zone: ${zone} (from MarketBob's general.timezone setting)`);
  else lines.push(`  time zone: ${zone} (neither the config nor MarketBob's general.timezone names one)`);
  lines.push(`  currency: ${settings.currencyCode ?? '(none: currency.code is not set)'}`);
  lines.push(`  support dates: ${settings.supportOn ? 'shown' : 'not shown'} (item.support_status)`);
  const api = settings.apiOn === undefined ? 'on (actions.api is not set)' : settings.apiOn ? 'on' : 'off';
  lines.push(`  MarketBob's API: ${api} (actions.api)`);
  if (source === 'config' && settings.timezone !== undefined && settings.timezone !== zone) {
    lines.push(
      `warning: the configured time zone ${zone} differs from MarketBob's general.timezone ${settings.timezone}: dates are read in ${zone}`,
    );
  }
  if (settings.currencyCode !== undefined) {
    for (const variant of variants) {
      if (variant.currency === settings.currencyCode) continue;
      lines.push(
        `warning: the variant ${variant.lang} serves ${variant.currency} and MarketBob's currency.code is ${settings.currencyCode}`,
      );
    }
  }
  return lines;
}
