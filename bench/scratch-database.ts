import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDefaultUser } from '../src/store/postgres/postgres-store.js';

/** The PostgreSQL server the benchmarks use unless BENCH_POSTGRES_URL names another. */
export const DEFAULT_BENCH_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** A database made for one run, on a server given by the URL of any database there. */
export interface ScratchDatabase {
  readonly name: string;
  /** The URL of the new database. */
  readonly url: string;
  sizeBytes(): Promise<number>;
  /** Transactions committed or rolled back in it so far, as PostgreSQL's statistics have them. */
  transactions(): Promise<number>;
  /** Drops it, closing whatever is still connected to it. */
  drop(): Promise<void>;
}

/** Creates a fresh database named `<prefix>_<random>` beside the one `serverUrl` names. */
export async function createScratchDatabase(serverUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: withDefaultUser(serverUrl) });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  await admin((client) => client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`));
  const url = new URL(withDefaultUser(serverUrl));
  url.pathname = `/${name}`;
  const number = (sql: string) =>
    admin(async (client) => {
      const { rows } = await client.query<{ n: string }>(sql, [name]);
      return Number(rows[0]?.n);
    });
  return {
    name,
    url: url.href,
    sizeBytes: () => number('SELECT pg_database_size($1)::text AS n'),
    transactions: () =>
      number('SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = $1'),
    drop: () =>
      admin((client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)).then(
        () => {},
      ),
  };
}
