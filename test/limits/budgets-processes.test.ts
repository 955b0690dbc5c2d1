import { writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { openStore } from '../../src/store/open-store.js';
import { answerTo, type HttpAnswer } from '../helpers/http-answer.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, type StoreKind, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';
import { randomRedisPrefix, TEST_REDIS_URL } from '../helpers/test-redis.js';

/**
 * The budgets across real server processes, built as `npm start` runs them (dist/: build first):
 * `WORKERS=2` without Redis (the primary holds the counters), `WORKERS=2` with Redis, and two
 * such instances sharing one Redis. Every request goes on a connection of its own, so that the
 * workers (and the instances) all take their share of each burst, all at once. The workspace's
 * shipped login budgets (5 per account and client, 20 per client), a request budget of 10, and
 * failure budgets of 6 per client (no valid key) and 4 per key and client.
 */

const KEY = 'budgets_test_key_0123456789';
const USERNAME = 'seller';
const PASSWORD = 'a long enough password';
const REQUESTS = 10;
const CLIENT_FAILURES = 6;
const KEY_CLIENT_FAILURES = 4;
const DAY = 86_400;

const started: Running[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  for (const database of databases) await database.drop();
});

/** A fresh store with one seller (a key and a password), and a config trusting the loopback proxy. */
async function preparedDatabase(kind: StoreKind): Promise<{ database: TestDatabase; env: NodeJS.ProcessEnv }> {
  const database = await createTestDatabase(kind);
  databases.push(database);
  const configPath = join(database.dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      trustProxy: ['127.0.0.1'],
      limits: {
        keyRequests: { max: REQUESTS, windowSeconds: DAY },
        clientFailures: { max: CLIENT_FAILURES, windowSeconds: DAY },
        keyClientFailures: { max: KEY_CLIENT_FAILURES, windowSeconds: DAY },
      },
    }),
  );
  const env = cleanEnv({ ...database.env, MARKETPLACE_CONFIG: configPath, PORT: '0', LOG_LEVEL: 'info' });
  const config = loadConfig(database.env);
  const store = await openStore(config.store);
  try {
    const line = {
      type: 'account',
      username: USERNAME,
      email: `${USERNAME}@example.com`,
      api_key: KEY,
      password_hash: await hashPassword(PASSWORD),
      registered_at: '2024-01-01T00:00:00Z',
    };
    const result = await importNdjson(store, loadKeyMaterial(config), Readable.from([`${JSON.stringify(line)}\n`]));
    expect(result.ok).toBe(true);
  } finally {
    await store.close();
  }
  return { database, env };
}

/** Starts a server with two workers and resolves with its port once both listen. */
async function startWorkers(cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const server = startNode('src/main.ts', [], { cwd, env: { ...env, WORKERS: '2' }, built: true });
  started.push(server);
  const [line] = await server.waitFor(/^.*"msg":"all workers listening".*$/m, 100_000);
  // With Redis, both workers have connected before the test counts on it (a first connection
  // that failed on a loaded machine says "is back" when its retry succeeds).
  if (env.REDIS_URL !== undefined) {
    await server.waitForLines(/limits: (counters shared through Redis|Redis is back)/, 2, 60_000);
  }
  return (JSON.parse(line) as { port: number }).port;
}

/** A request on a connection of its own (a pooled one would stay with one worker), from `client`. */
function send(
  port: number,
  client: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string | number> = { 'x-forwarded-for': client, ...options.headers };
  if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
  const outgoing = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', agent: false, headers });
  const answer = answerTo(outgoing);
  outgoing.end(options.body);
  return answer;
}

const cookiesOf = (headers: IncomingHttpHeaders) =>
  (headers['set-cookie'] ?? []).map((cookie) => cookie.split(';')[0] as string).join('; ');

/** A login form of its own (its CSRF cookie and token), as separate browsers would open. */
async function loginForm(port: number, client: string): Promise<{ cookie: string; token: string }> {
  const form = await send(port, client, '/login');
  expect(form.status).toBe(200);
  return { cookie: cookiesOf(form.headers), token: /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '' };
}

/** Posts the login form; the forms are all opened first, so that the posts go together. */
async function concurrentLogins(ports: readonly number[], client: string, usernames: readonly string[]) {
  const forms = await Promise.all(usernames.map((_, n) => loginForm(ports[n % ports.length] as number, client)));
  const answers = await Promise.all(
    usernames.map((username, n) => {
      const { cookie, token } = forms[n] as { cookie: string; token: string };
      const body = new URLSearchParams({ _csrf: token, username, password: 'wrong password' }).toString();
      return send(ports[n % ports.length] as number, client, '/login', {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    }),
  );
  return statusCounts(answers);
}

/** A burst of account details requests with the seller's key, all at once. */
async function requestBurst(ports: readonly number[], client: string, count: number) {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, n) =>
      send(ports[n % ports.length] as number, client, '/api/account/details', { headers: { 'x-api-key': KEY } }),
    ),
  );
  return statusCounts(answers);
}

/** A burst of requests that fail, all at once: unknown keys, or the seller's key with codes that do not exist. */
function failureBurst(ports: readonly number[], client: string, count: number, kind: 'unknownKey' | 'invalidCode') {
  return Promise.all(
    Array.from({ length: count }, (_, n) => {
      const port = ports[n % ports.length] as number;
      if (kind === 'unknownKey') {
        return send(port, client, '/api/account/details', { headers: { 'x-api-key': `unknown_key_${n}_0123456789` } });
      }
      return send(port, client, '/api/purchases/validation', {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ purchase_code: `GUESS-${n}` }),
      });
    }),
  );
}

/** Each 429 says when to come back, and shows its budget spent. */
function expectRefusals(answers: readonly HttpAnswer[]): void {
  for (const { status, headers } of answers.filter((answer) => answer.status === 429)) {
    expect([status, headers['ratelimit-remaining'], headers['retry-after']]).toEqual([
      429,
      '0',
      headers['ratelimit-reset'],
    ]);
  }
}

function statusCounts(answers: readonly HttpAnswer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of answers) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

/** The three bursts, each from a client of its own, against the servers on `ports`. */
function budgetCases(ports: () => readonly number[]) {
  it('40 concurrent wrong passwords for one account: exactly 5 are checked (401), the rest refused (429)', async () => {
    const usernames = Array.from({ length: 40 }, () => USERNAME);
    expect(await concurrentLogins(ports(), '198.51.100.1', usernames)).toEqual({ 401: 5, 429: 35 });
  });

  it('60 concurrent wrong logins across usernames from one client: exactly 20 are checked', async () => {
    const usernames = Array.from({ length: 60 }, (_, n) => `nobody-${n}`);
    expect(await concurrentLogins(ports(), '198.51.100.2', usernames)).toEqual({ 401: 20, 429: 40 });
  });

  it(`a burst of 40 API requests with one key from one client: exactly ${REQUESTS} are served`, async () => {
    expect(await requestBurst(ports(), '198.51.100.3', 40)).toEqual({ 200: REQUESTS, 429: 40 - REQUESTS });
    // Another client of the same key has a budget of its own.
    expect(await requestBurst(ports(), '198.51.100.4', 4)).toEqual({ 200: 4 });
  });

  it(`a burst of 30 unknown keys from one client: exactly ${CLIENT_FAILURES} are answered 401, the rest 429`, async () => {
    const answers = await failureBurst(ports(), '198.51.100.5', 30, 'unknownKey');
    expect(statusCounts(answers)).toEqual({ 401: CLIENT_FAILURES, 429: 30 - CLIENT_FAILURES });
    // Each 401 took a place of its own: the remaining budgets it shows are all different.
    const remaining = answers
      .filter(({ status }) => status === 401)
      .map(({ headers }) => headers['ratelimit-remaining']);
    expect(remaining.sort()).toEqual(['0', '1', '2', '3', '4', '5']);
    expectRefusals(answers);
  });

  it(`a burst of 30 invalid codes with one key from one client: exactly ${KEY_CLIENT_FAILURES} are answered 404`, async () => {
    const answers = await failureBurst(ports(), '198.51.100.6', 30, 'invalidCode');
    // The request budget lets 10 in; of those, the failure budget lets 4 be answered as failures.
    expect(statusCounts(answers)).toEqual({ 404: KEY_CLIENT_FAILURES, 429: 30 - KEY_CLIENT_FAILURES });
    expectRefusals(answers);
    // The key's other clients are not refused.
    expect(await requestBurst(ports(), '198.51.100.7', 2)).toEqual({ 200: 2 });
  });
}

describe.each(TEST_STORES)('WORKERS=2 without Redis: the primary holds the budgets (%s)', (kind) => {
  let port = 0;
  beforeAll(async () => {
    const { database, env } = await preparedDatabase(kind);
    port = await startWorkers(database.dir, env);
  }, 180_000);
  budgetCases(() => [port]);
});

describe.runIf(TEST_REDIS_URL !== undefined)('WORKERS=2 with Redis', () => {
  let port = 0;
  beforeAll(async () => {
    const { database, env } = await preparedDatabase('sqlite');
    port = await startWorkers(database.dir, {
      ...env,
      REDIS_URL: TEST_REDIS_URL as string,
      REDIS_KEY_PREFIX: randomRedisPrefix(),
    });
  }, 180_000);
  budgetCases(() => [port]);
});

describe.runIf(TEST_REDIS_URL !== undefined)('two instances of WORKERS=2 sharing Redis and a store', () => {
  const ports: number[] = [];
  beforeAll(async () => {
    const { database, env } = await preparedDatabase(TEST_STORES[TEST_STORES.length - 1] as StoreKind);
    const shared = { ...env, REDIS_URL: TEST_REDIS_URL as string, REDIS_KEY_PREFIX: randomRedisPrefix() };
    // One after the other: the first to start migrates the store.
    ports.push(await startWorkers(database.dir, shared));
    ports.push(await startWorkers(database.dir, shared));
  }, 300_000);
  budgetCases(() => ports);
});
