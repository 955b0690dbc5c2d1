import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { NetworkSketch } from '../../src/activity/network-sketch.js';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import { openStore } from '../../src/store/open-store.js';
import type { ActivityDay } from '../../src/store/store.js';
import { ALL_LINES, KEYS } from '../api/fixtures.js';
import { activityDelta } from '../helpers/activity-delta.js';
import { historyDay } from '../helpers/activity-history.js';
import { answerTo, type HttpAnswer } from '../helpers/http-answer.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

/**
 * Activity across real server processes, built as `npm start` runs them (dist/): nothing gathered
 * is lost when SIGTERM stops a server (the counts are written at close), the workers of one
 * machine add up (SQLite: in the activity file; PostgreSQL: in the store), and so do two
 * instances on one PostgreSQL, whose network sketches merge. Counting is flushed only at close
 * here (flushSeconds 300), so what the store holds afterwards came from the shutdown.
 */

const CODE = 'ALICE-REG-0001';
const started: Running[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  for (const database of databases) await database.drop();
});

/** A fresh store of `kind` holding the HTTP suites' data, and a config file trusting the loopback proxy. */
async function preparedDatabase(
  kind: 'sqlite' | 'postgres',
): Promise<{ database: TestDatabase; env: NodeJS.ProcessEnv }> {
  const database = await createTestDatabase(kind);
  databases.push(database);
  const configPath = join(database.dir, 'config.json');
  writeFileSync(configPath, JSON.stringify({ trustProxy: ['127.0.0.1'], activity: { flushSeconds: 300 } }));
  const env = cleanEnv({ ...database.env, MARKETPLACE_CONFIG: configPath, PORT: '0', LOG_LEVEL: 'info' });
  const config = loadConfig(database.env);
  const store = await openStore(config.store);
  try {
    const lines = Readable.from(ALL_LINES.map((line) => `${JSON.stringify(line)}\n`));
    expect((await importNdjson(store, loadKeyMaterial(config), lines)).ok).toBe(true);
  } finally {
    await store.close();
  }
  return { database, env };
}

/** A validation on a connection of its own (a pooled one would stay with one worker), from `client`. */
function validateOnNewConnection(port: number, client: string): Promise<HttpAnswer> {
  const body = JSON.stringify({ purchase_code: CODE });
  const outgoing = request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/purchases/validation',
    agent: false,
    headers: {
      'x-api-key': KEYS.alice,
      'x-forwarded-for': client,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const answer = answerTo(outgoing);
  outgoing.end(body);
  return answer;
}

/** The 198.18.0.0/15 benchmarking range's /24 number `n`. */
const network = (n: number, host = 1) => `198.${18 + (n >> 8)}.${n & 255}.${host}`;

/** What the store holds for the code: validations and distinct networks over every stored day. */
async function storedActivity(
  database: TestDatabase,
): Promise<{ validations: number; networks: number; days: number }> {
  const store = await openStore(loadConfig(database.env).store);
  try {
    const days: ActivityDay[] = await store.activityDays('alice', [CODE.toLowerCase()], '0000-01-01');
    const sketch = new NetworkSketch();
    for (const day of days) sketch.merge(NetworkSketch.parse(day.sketch));
    return {
      validations: days.reduce((sum, day) => sum + day.validations, 0),
      networks: sketch.estimate(),
      days: days.length,
    };
  } finally {
    await store.close();
  }
}

async function listeningPort(server: Running, workers: number): Promise<number> {
  if (workers === 1)
    return Number((await server.waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/, 60_000))[1]);
  const [line] = await server.waitFor(/^.*"msg":"all workers listening".*$/m, 60_000);
  return (JSON.parse(line) as { port: number }).port;
}

describe.each(TEST_STORES)('activity across processes (%s)', (kind) => {
  it('WORKERS=2: every validation of both workers is written at SIGTERM, and they add up', async () => {
    const { database, env } = await preparedDatabase(kind);
    const server = startNode('src/main.ts', [], { cwd: database.dir, env: { ...env, WORKERS: '2' }, built: true });
    started.push(server);
    const port = await listeningPort(server, 2);
    for (let n = 0; n < 24; n++) expect((await validateOnNewConnection(port, network(n))).status).toBe(200);
    for (let n = 0; n < 6; n++) expect((await validateOnNewConnection(port, network(n, 99))).status).toBe(200);
    // Nothing is written before the flush (every 300 s here), so the store holds nothing yet.
    expect((await storedActivity(database)).validations).toBe(0);
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    const stored = await storedActivity(database);
    expect([stored.validations, stored.networks]).toEqual([30, 24]);
  });

  it('WORKERS=2: whichever worker answers makes the top list and a code’s activity on its report thread', async () => {
    const { database, env } = await preparedDatabase(kind);
    const now = Date.now();
    const store = await openStore(loadConfig(database.env).store);
    try {
      const days = [0, 1, 2].map((ago) => historyDay('alice', CODE.toLowerCase(), now, ago, [1, 2, 3 + ago], 4));
      await store.recordActivity(days.map((day) => activityDelta(day)));
    } finally {
      await store.close();
    }
    const server = startNode('src/main.ts', [], { cwd: database.dir, env: { ...env, WORKERS: '2' }, built: true });
    started.push(server);
    const port = await listeningPort(server, 2);
    for (let asked = 0; asked < 2; asked++) {
      // A connection each: the two may reach both workers.
      const top = await fetch(`http://127.0.0.1:${port}/api/purchases/activity/top?limit=1`, {
        headers: { 'x-api-key': KEYS.alice, connection: 'close' },
      });
      const body = (await top.json()) as { data: { codes: Record<string, unknown>[] } };
      expect([top.status, body.data.codes.length]).toEqual([200, 1]);
      expect(body.data.codes[0]).toMatchObject({ purchase_code: CODE, validations: 12, networks: 5 });
      const code = await fetch(`http://127.0.0.1:${port}/api/purchases/activity?purchase_code=${CODE}`, {
        headers: { 'x-api-key': KEYS.alice, connection: 'close' },
      });
      const activity = ((await code.json()) as { data: { activity: Record<string, unknown> } }).data.activity;
      expect([code.status, activity.validations, activity.networks]).toEqual([200, 12, 5]);
    }
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    // Two workers, each starting its report thread: longer than one server's start on a busy machine.
  }, 150_000);
});

describe.runIf(TEST_STORES.includes('postgres'))('two instances on one PostgreSQL', () => {
  it('add up their validations and merge their networks', async () => {
    const { database, env } = await preparedDatabase('postgres');
    const servers = [0, 1].map(() => startNode('src/main.ts', [], { cwd: database.dir, env, built: true }));
    started.push(...servers);
    const [first, second] = await Promise.all(servers.map((server) => listeningPort(server, 1)));
    // Networks 0-29 through the first, 20-49 through the second: 60 validations, 50 networks.
    for (let n = 0; n < 30; n++) expect((await validateOnNewConnection(first as number, network(n))).status).toBe(200);
    for (let n = 20; n < 50; n++)
      expect((await validateOnNewConnection(second as number, network(n))).status).toBe(200);
    const activity = async () => {
      const response = await fetch(`http://127.0.0.1:${first}/api/purchases/activity?purchase_code=${CODE}`, {
        headers: { 'x-api-key': KEYS.alice },
      });
      return ((await response.json()) as { data: { activity: { validations: number; networks: number } } }).data
        .activity;
    };
    // Asking writes the asking instance's own counts first; the other's come at its flush.
    expect(await activity()).toMatchObject({ validations: 30, networks: 30 });
    servers[1]?.child.kill('SIGTERM');
    expect(await servers[1]?.exited()).toBe(0);
    // The first's report of a moment ago may be given again for a few seconds, but not once it
    // wrote the seller's counts since: one more validation there (from a network seen) shows both.
    expect((await validateOnNewConnection(first as number, network(0))).status).toBe(200);
    expect(await activity()).toMatchObject({ validations: 61, networks: 50 });
    servers[0]?.child.kill('SIGTERM');
    expect(await servers[0]?.exited()).toBe(0);
    expect(await storedActivity(database)).toMatchObject({ validations: 61, networks: 50 });
  });
});
