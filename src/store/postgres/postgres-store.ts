import { userInfo } from 'node:os';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { type ActivityDatabase, ActivityTables } from '../activity/activity-tables.js';
import {
  CHANGE_CHANNEL,
  PRUNE_INTERVAL_MS,
  PRUNE_SQL,
  postgresChangeLogSql,
  RETENTION_MS,
} from '../changes/change-log.js';
import type { Database } from '../database.js';
import { KyselyStore, migrateToLatest } from '../kysely-store.js';
import type { QueryRunner } from '../query-runner.js';
import type { Store } from '../store.js';
import { DEFAULT_POSTGRES_TIMEOUTS, type PostgresTimeouts } from '../store-location.js';
import { listenForChanges } from './postgres-changes.js';
import { runPostgresImport } from './postgres-import.js';

export interface PostgresStoreOptions extends Partial<PostgresTimeouts> {
  /** Connections the store's pool may open (the change listener holds one more of its own). */
  readonly poolSize: number;
  /**
   * A store that makes background writes only (the writer thread's): the schema as the serving
   * store left it, no listening connection and no pruning of the change log. Its commits are
   * heard by the serving store's listener, as another process's are.
   */
  readonly backgroundWrites?: boolean;
}

const IDLE_TIMEOUT_MS = 30_000;
/**
 * How much longer than the statement timeout the client waits for an answer before it gives up on
 * the connection itself: the server cancels a slow statement on its own, so only a server or a
 * network that no longer answers at all gets this far.
 */
const READ_TIMEOUT_MARGIN_MS = 1_000;

const INT8_OID = 20;
/**
 * Every number the store keeps is bounded to a safe JS integer by the importer (money up to
 * 2^53-1 minor units, item ids up to 15 digits), so int8 columns are read back as plain numbers,
 * as SQLite gives them. Set per client through the pool, never globally on `pg.types`.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/**
 * The URL with a user name when it names none: PGUSER, else the operating system's user, as
 * psql and libpq take it (pg would take only $USER, which a service manager may leave unset).
 */
export function withDefaultUser(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.username !== '' || parsed.host === '') return url;
  parsed.username = encodeURIComponent(process.env.PGUSER || process.env.USER || userInfo().username);
  return parsed.href;
}

/**
 * Settings every connection of the service uses, pooled or not. `connectTimeoutMs` bounds how long
 * a query waits for a connection (a new one, or a free one of a full pool) before the store is
 * unavailable.
 */
export function clientConfig(
  url: string,
  role: string,
  connectTimeoutMs = DEFAULT_POSTGRES_TIMEOUTS.connectTimeoutMs,
): pg.ClientConfig {
  return {
    connectionString: withDefaultUser(url),
    types: TYPES,
    keepAlive: true,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: `marketplace-api:${role}`,
  };
}

/**
 * A pool over `url` whose idle connections may die without taking the process down. With a
 * `statementTimeoutMs`, every statement on its connections is cancelled by the server past it
 * (an import lifts it for its own transaction); without, statements run as long as they take.
 * `role` names its connections to the server (`application_name`, as pg_stat_activity shows it).
 */
export function createPostgresPool(
  url: string,
  size: number,
  timeouts: Partial<PostgresTimeouts> = {},
  role = 'pool',
): pg.Pool {
  const pool = new pg.Pool({
    ...clientConfig(url, role, timeouts.connectTimeoutMs),
    ...(timeouts.statementTimeoutMs ? { statement_timeout: timeouts.statementTimeoutMs } : {}),
    max: size,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
  });
  // An idle connection that breaks (server restart) is dropped by the pool; the next query gets a new one.
  pool.on('error', () => {});
  // The pool listens for errors only while a connection is idle. One that breaks while checked out
  // (a transaction between statements, a terminated backend) would emit an error nobody hears, which
  // ends the process. Its statements fail by themselves, and the pool drops it when it is released.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Network errors that mean the server cannot be reached. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
/**
 * SQLSTATEs of a server that is going away, starting, full or too slow: 57P01-03 shutdown/startup,
 * 53300 too many connections, 57014 a statement cancelled (by statement_timeout).
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);
/** What pg and pg-pool say, without a code, when a connection is gone, silent, or cannot be had in time. */
const UNAVAILABLE_MESSAGES =
  /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end|Query read timeout)/;

/** True for errors that mean PostgreSQL cannot be used right now (answered with 503), rather than a bad query. */
export function isPostgresUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
  }
  if (UNAVAILABLE_MESSAGES.test(error.message)) return true;
  // Node reports a refused connection to every address of a name as one AggregateError.
  if (error instanceof AggregateError && error.errors.some((inner) => isPostgresUnavailable(inner, depth + 1))) {
    return true;
  }
  return isPostgresUnavailable(error.cause, depth + 1);
}

/**
 * Runs each compiled query as a named prepared statement: PostgreSQL parses and plans it once
 * per connection, and each call sends only the values. With `readTimeoutMs`, a query that gets no
 * answer in that time fails (and its connection is dropped by the pool).
 */
export function createPostgresRunner(pool: pg.Pool, readTimeoutMs?: number): QueryRunner {
  const names = new Map<string, string>();
  const nameOf = (sql: string) => {
    let name = names.get(sql);
    if (name === undefined) {
      name = `marketplace_read_${names.size + 1}`;
      names.set(sql, name);
    }
    return name;
  };
  const run = async <R>(sql: string, parameters: readonly unknown[]) => {
    // pg reads query_timeout per query, though its types do not list it.
    const query: pg.QueryConfig & { query_timeout?: number } = {
      name: nameOf(sql),
      text: sql,
      values: parameters as unknown[],
      query_timeout: readTimeoutMs,
    };
    const result = await pool.query<R & pg.QueryResultRow>(query);
    return result.rows as R[];
  };
  return {
    first: async (query, values) => (await run<never>(query.sql, query.bind(values)))[0],
    all: (query, values) => run(query.sql, query.bind(values)),
  };
}

/** Any constant: serialises the activity flushes of every process and instance (see ActivityTransaction). */
const ACTIVITY_LOCK = 7_310_455_024;

/** The activity tables on the store's own pool: a flush is one transaction, taken in turns. */
function postgresActivity(db: Kysely<Database>): ActivityTables {
  const activityDb = db as unknown as Kysely<ActivityDatabase>;
  return new ActivityTables(activityDb, (work) =>
    activityDb.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${sql.lit(ACTIVITY_LOCK)})`.execute(trx);
      return work(trx);
    }),
  );
}

export { CHANGE_CHANNEL } from '../changes/change-log.js';

/** Any constant: serialises the step below between instances starting together. */
const CHANGE_TRIGGER_LOCK = 7_310_455_021;

/**
 * The one PostgreSQL-only step besides the portable migrations: the change log's triggers on each
 * logged table (see change-log.ts). They fire inside the writing transaction, so listeners hear
 * of the write when it commits, whoever made it: an import, a key rotation, another instance, or
 * someone in psql. Idempotent; instances starting at once take turns.
 */
async function installChangeTrigger(pool: pg.Pool): Promise<void> {
  await pool.query(`DO $step$
BEGIN
  PERFORM pg_advisory_xact_lock(${CHANGE_TRIGGER_LOCK});${postgresChangeLogSql()}
END
$step$`);
}

/** Prunes the change log now and then (see change-log.ts); a failure is tried again next time. */
function pruneChangeLog(pool: pg.Pool): NodeJS.Timeout {
  const timer = setInterval(() => {
    pool.query(PRUNE_SQL('$1'), [Date.now() - RETENTION_MS]).catch(() => {});
  }, PRUNE_INTERVAL_MS);
  timer.unref();
  return timer;
}

/** Kysely ends the pool only if it ever used it itself (reads go to the pool directly). */
async function closePool(db: Kysely<Database>, pool: pg.Pool): Promise<void> {
  await db.destroy();
  if (!pool.ended) await pool.end();
}

/** The migrations and the change trigger, on a connection of their own with no statement timeout (an index on a big table takes its time). */
async function prepareSchema(url: string, connectTimeoutMs: number | undefined): Promise<void> {
  const pool = createPostgresPool(url, 1, { connectTimeoutMs });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db, 'postgres');
    await installChangeTrigger(pool);
  } finally {
    await db.destroy();
  }
}

/**
 * Opens the PostgreSQL store at `url`: the shared migrations, the change trigger, a pool of
 * `poolSize` connections whose statements are bounded by `statementTimeoutMs`, and one listening
 * connection of its own for changes made elsewhere.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions): Promise<Store> {
  const serving = options.backgroundWrites !== true;
  if (serving) await prepareSchema(url, options.connectTimeoutMs);
  const pool = createPostgresPool(url, options.poolSize, options, serving ? 'pool' : 'writer');
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  const readTimeoutMs = options.statementTimeoutMs && options.statementTimeoutMs + READ_TIMEOUT_MARGIN_MS;
  try {
    const changes = serving
      ? await listenForChanges(clientConfig(url, 'listen', options.connectTimeoutMs), CHANGE_CHANNEL)
      : undefined;
    const pruning = serving ? pruneChangeLog(pool) : undefined;
    return new KyselyStore(db, {
      dialect: 'postgres',
      runner: createPostgresRunner(pool, readTimeoutMs),
      isUnavailable: isPostgresUnavailable,
      changes: () => changes?.changes(),
      ownWrite: () => changes?.catchUp(),
      activity: postgresActivity(db),
      runImport: (work) => runPostgresImport(pool, work),
      async close() {
        clearInterval(pruning);
        await changes?.close();
        await closePool(db, pool);
      },
    });
  } catch (error) {
    await closePool(db, pool);
    throw error;
  }
}
