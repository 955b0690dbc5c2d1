import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresPool, withDefaultUser } from '../../src/store/postgres/postgres-store.js';
import { TEST_POSTGRES_URL } from '../helpers/test-database.js';

/**
 * The store's pool over a real PostgreSQL, when a connection breaks while it is checked out (a
 * transaction between two statements). pg emits that as an error event on the connection; heard by
 * no one, it would end the process (Vitest reports it as an unhandled error and fails the run).
 */
describe.runIf(TEST_POSTGRES_URL !== undefined)('the PostgreSQL pool', () => {
  const url = withDefaultUser(TEST_POSTGRES_URL as string);
  let direct: pg.Client;
  beforeAll(async () => {
    direct = new pg.Client({ connectionString: url });
    await direct.connect();
  });
  afterAll(async () => {
    await direct.end();
  });

  it('outlives a connection terminated while checked out, fails its statements, and drops it', async () => {
    const pool = createPostgresPool(url, 2);
    try {
      const client = await pool.connect();
      await client.query('BEGIN');
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const ended = new Promise((resolve) => client.once('end', resolve));
      await direct.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
      await ended;
      await expect(client.query('SELECT 1')).rejects.toThrow(/not queryable|terminat/i);
      client.release();
      expect(pool.totalCount).toBe(0);
      expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });
});
