import { Kysely, MysqlDialect, type MysqlPool, type MysqlPoolConnection, sql } from 'kysely';
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
  // A connection that cannot be made says which setting names the database (never its URL).
  const explained: MysqlPool = {
    getConnection: (callback) =>
      pool.getConnection((error, connection) =>
        callback(error ? explainConnectError(error, url) : error, connection as unknown as MysqlPoolConnection),
      ),
    end: (callback) => pool.end(callback),
  };
  return new Kysely({ dialect: new MysqlDialect({ pool: explained }) });
}

const CONNECT_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused: is MySQL or MariaDB running there, on that port?',
  ENOTFOUND: 'that host name is not known',
  ETIMEDOUT: 'no answer in time (a firewall, or the wrong host?)',
  EHOSTUNREACH: 'that host cannot be reached',
  ER_ACCESS_DENIED_ERROR: 'the user name or password was refused',
  ER_BAD_DB_ERROR: 'the database it names does not exist',
  ER_DBACCESS_DENIED_ERROR: 'this user may not read that database',
};

/** A connection error naming MARKETBOB_DATABASE_URL and the host, with the driver's code kept. */
function explainConnectError(error: NodeJS.ErrnoException, url: string): NodeJS.ErrnoException {
  const reason = error.code === undefined ? undefined : CONNECT_REASONS[error.code];
  if (reason === undefined) return error;
  let at = 'the host it names';
  try {
    const parsed = new URL(url);
    at = `${parsed.hostname}:${parsed.port || 3306}`;
  } catch {}
  const explained: NodeJS.ErrnoException = new Error(
    `cannot connect to MarketBob's database at ${at} (MARKETBOB_DATABASE_URL, or marketbob.url in MARKETPLACE_CONFIG): ${reason}`,
    { cause: error },
  );
  if (error.code !== undefined) explained.code = error.code;
  return explained;
}

/** The name of the database the pool reads (the URL's path). */
export async function currentDatabase(db: MarketbobDb): Promise<string> {
  const { rows } = await sql<{ name: string }>`SELECT DATABASE() AS name`.execute(db);
  const name = rows[0]?.name;
  if (!name) throw new Error('the MarketBob URL names no database');
  return name;
}
