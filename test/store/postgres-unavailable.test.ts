import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isPostgresUnavailable } from '../../src/store/postgres/postgres-store.js';

/** An error as pg reports one from the server. */
const serverError = (code: string, message = 'server says no') => Object.assign(new Error(message), { code });

describe('isPostgresUnavailable: which errors answer 503', () => {
  it('is true for a server that cannot be reached', async () => {
    // Nothing listens on port 1: a real refused connection, as pg reports it.
    const client = new pg.Client({ host: '127.0.0.1', port: 1, user: 'x', connectionTimeoutMillis: 2000 });
    const error = await client.connect().then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(isPostgresUnavailable(error)).toBe(true);
  });

  it.each([
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['ETIMEDOUT', Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' })],
    ['ENOTFOUND', Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' })],
    ['a refused connection to every address of a name', new AggregateError([serverError('ECONNREFUSED')], 'x')],
    ['SQLSTATE 08006 (connection failure)', serverError('08006')],
    ['57P01 (admin shutdown)', serverError('57P01')],
    ['57P02 (crash shutdown)', serverError('57P02')],
    ['57P03 (cannot connect now)', serverError('57P03')],
    ['53300 (too many connections)', serverError('53300')],
    ['a pool that had no free connection in time', new Error('timeout exceeded when trying to connect')],
    ['a connection lost mid-query', new Error('Connection terminated unexpectedly')],
    [
      'a connection timeout, as the cause',
      new Error('Connection terminated due to connection timeout', { cause: new Error('x') }),
    ],
    ['a closed store', new Error('Cannot use a pool after calling end on the pool')],
  ])('is true for %s', (_case, error) => {
    expect(isPostgresUnavailable(error)).toBe(true);
  });

  it.each([
    ['a syntax error', serverError('42601')],
    ['a unique violation', serverError('23505')],
    ['a missing table', serverError('42P01')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a non-error', 'ECONNREFUSED'],
  ])('is false for %s', (_case, error) => {
    expect(isPostgresUnavailable(error)).toBe(false);
  });
});
