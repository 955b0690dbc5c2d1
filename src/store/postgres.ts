import { userInfo } from 'node:os';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';
import { KyselyStore, migrateToLatest } from './kysely-store.js';
import { listenForChanges } from './postgres-changes.js';
import { runPostgresImport } from './postgres-import.js';
import type { QueryRunner } from './query-runner.js';
import type { Store } from './store.js';

export interface PostgresStoreOptions {
  /** Connections the store's pool may open (the change listener holds one more of its own). */
  readonly poolSize: number;
}

/** How long a query waits for a connection (a new one, or a free one of a full pool) before the store is unavailable. */
const CONNECT_TIMEOUT_MS = 5_000;
const IDLE_TIMEOUT_MS = 30_000;

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

/** Settings every connection of the service uses, pooled or not. */
export function clientConfig(url: string, role: string): pg.ClientConfig {
  return {
    connectionString: withDefaultUser(url),
    types: TYPES,
    keepAlive: true,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: `marketplace-api:${role}`,
  };
}

/** A pool over `url` whose idle connections may die without taking the process down. */
export function createPostgresPool(url: string, size: number): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(url, 'pool'), max: size, idleTimeoutMillis: IDLE_TIMEOUT_MS });
  // An idle connection that breaks (server restart) is dropped by the pool; the next query gets a new one.
  pool.on('error', () => {});
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
/** SQLSTATEs of a server that is going away, starting, or full: 57P01-03 shutdown/startup, 53300 too many connections. */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
/** What pg and pg-pool say, without a code, when a connection is gone or cannot be had in time. */
const UNAVAILABLE_MESSAGES =
  /^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end)/;

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
 * per connection, and each call sends only the values.
 */
export function createPostgresRunner(pool: pg.Pool): QueryRunner {
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
    const result = await pool.query<R & pg.QueryResultRow>({
      name: nameOf(sql),
      text: sql,
      values: parameters as unknown[],
    });
    return result.rows as R[];
  };
  return {
    first: async (query, parameters) => (await run<never>(query.sql, parameters))[0],
    all: (query, parameters) => run(query.sql, parameters),
  };
}

/** Tells the service's listeners about every write to its tables (see `listenForChanges`). */
export const CHANGE_CHANNEL = 'marketplace_changes';
const CHANGE_TRIGGER = 'marketplace_notify_change';
/** Any constant: serialises the step below between instances starting together. */
const CHANGE_TRIGGER_LOCK = 7_310_455_021;

/**
 * The one PostgreSQL-only step besides the portable migrations: a statement-level trigger on
 * each table that sends NOTIFY on the change channel. It fires inside the writing transaction,
 * so listeners hear of the write when it commits, whoever made it: an import, a key rotation,
 * another instance, or someone in psql. Idempotent; instances starting at once take turns.
 */
async function installChangeTrigger(pool: pg.Pool): Promise<void> {
  const tables = ['accounts', 'items', 'purchases'];
  const createTriggers = tables
    .map(
      (table) => `
  IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = '${CHANGE_TRIGGER}' AND tgrelid = '${table}'::regclass) THEN
    CREATE TRIGGER ${CHANGE_TRIGGER} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
      FOR EACH STATEMENT EXECUTE FUNCTION ${CHANGE_TRIGGER}();
  END IF;`,
    )
    .join('');
  await pool.query(`DO $step$
BEGIN
  PERFORM pg_advisory_xact_lock(${CHANGE_TRIGGER_LOCK});
  CREATE OR REPLACE FUNCTION ${CHANGE_TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    PERFORM pg_notify('${CHANGE_CHANNEL}', TG_TABLE_NAME);
    RETURN NULL;
  END
  $fn$;${createTriggers}
END
$step$`);
}

/**
 * Opens the PostgreSQL store at `url`: a pool of `poolSize` connections, the shared migrations,
 * the change trigger, and one listening connection of its own for changes made elsewhere.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions): Promise<Store> {
  const pool = createPostgresPool(url, options.poolSize);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db);
    await installChangeTrigger(pool);
    const changes = await listenForChanges(clientConfig(url, 'listen'), CHANGE_CHANNEL);
    return new KyselyStore(db, {
      dialect: 'postgres',
      runner: createPostgresRunner(pool),
      isUnavailable: isPostgresUnavailable,
      changedSinceLastCheck: () => changes.changedSinceLastCheck(),
      runImport: (_db, work) => runPostgresImport(pool, work),
      async close() {
        await changes.close();
        await db.destroy();
      },
    });
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
