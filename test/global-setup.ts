import pg from 'pg';
import { withDefaultUser } from '../src/store/postgres.js';

/**
 * Runs once before the suite: says whether the PostgreSQL variants run, and makes sure the
 * server TEST_POSTGRES_URL names answers, so that a wrong URL fails once, loudly, rather than in
 * every suite.
 */
export async function setup(): Promise<void> {
  const url = process.env.TEST_POSTGRES_URL?.trim();
  if (!url) {
    console.log('PostgreSQL tests skipped: TEST_POSTGRES_URL is not set');
    return;
  }
  const client = new pg.Client({ connectionString: withDefaultUser(url), connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    const where = new URL(url);
    console.log(
      `PostgreSQL tests: on ${where.host} (PostgreSQL ${rows[0]?.server_version}), a fresh database per test file`,
    );
  } catch (error) {
    throw new Error(
      `TEST_POSTGRES_URL is set but PostgreSQL cannot be used there: ${error instanceof Error ? error.message : error}`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}
