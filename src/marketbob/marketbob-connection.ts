import { Kysely, MysqlDialect, sql } from 'kysely';
import { createPool } from 'mysql2';

/**
 * A connection pool to MarketBob's database, through Kysely's MySQL dialect over mysql2. Rows
 * are read as MarketBob's tables hold them; tables are not typed here (which columns exist
 * depends on the migrations a marketplace ran: see `schema-check.ts`), so queries name their
 * columns and their rows' types.
 */
export type MarketbobDb = Kysely<Record<string, Record<string, unknown>>>;

export interface MarketbobConnectionOptions {
  /** Connections in the pool: the sync reads one table at a time, the follower one query per poll. */
  readonly connections?: number;
  readonly connectTimeoutMs?: number;
}

/**
 * Opens a pool to `url` (mysql://USER:PASS@HOST:PORT/DB). Dates and datetimes come back as the
 * text MySQL holds (`dateStrings`): they are wall-clock times in MarketBob's APP_TIMEZONE, which
 * the mapping turns into UTC itself; letting the driver read them in this process's zone would
 * shift them. Big integers (ids) come back as numbers when they fit, which MarketBob's always do.
 */
export function openMarketbob(url: string, options: MarketbobConnectionOptions = {}): MarketbobDb {
  const pool = createPool({
    uri: url,
    connectionLimit: options.connections ?? 2,
    connectTimeout: options.connectTimeoutMs ?? 5_000,
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    charset: 'utf8mb4_unicode_ci',
    // A read-only bridge: one statement per query, never several in one string.
    multipleStatements: false,
  });
  return new Kysely({ dialect: new MysqlDialect({ pool }) });
}

/** The name of the database the pool reads (the URL's path). */
export async function currentDatabase(db: MarketbobDb): Promise<string> {
  const { rows } = await sql<{ name: string }>`SELECT DATABASE() AS name`.execute(db);
  const name = rows[0]?.name;
  if (!name) throw new Error('the MarketBob URL names no database');
  return name;
}
