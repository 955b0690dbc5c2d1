import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { answerTo, type HttpAnswer } from '../helpers/http-answer.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, seedAccount, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

const KEY = 'workers_test_key_0123456789';
/**
 * How long the start may take on a loaded machine; a test waits longer, so that a slow start fails
 * on its own message, not on the test's timeout. From dist/, as `npm start` runs it: three processes
 * compiling the sources through tsx were slower still.
 */
const START_MS = 100_000;
vi.setConfig({ testTimeout: 180_000 });
const started: Running[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  for (const database of databases) await database.drop();
});

/** A GET on a connection of its own (fetch would keep one connection, and so one worker, for all). */
function getOnNewConnection(port: number, path: string, headers: Record<string, string>): Promise<HttpAnswer> {
  // get() ends the request itself.
  return answerTo(get({ host: '127.0.0.1', port, path, headers, agent: false }));
}

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern, 'g'))?.length ?? 0;

/** The port the primary reports once every worker listens. */
async function portOf(server: Running): Promise<number> {
  const [line] = await server.waitFor(/^.*"msg":"all workers listening".*$/m, START_MS);
  return (JSON.parse(line) as { port: number }).port;
}

describe.each(TEST_STORES)('WORKERS=2 (%s)', (kind) => {
  it('serves the port from two processes, and stops them all on SIGTERM with exit 0', async () => {
    const database = await createTestDatabase(kind);
    databases.push(database);
    await seedAccount(database, KEY);

    const server = startNode('src/main.ts', [], {
      built: true,
      cwd: database.dir,
      env: cleanEnv({ ...database.env, WORKERS: '2', PORT: '0', LOG_LEVEL: 'debug' }),
    });
    started.push(server);
    const port = await portOf(server);
    // Each worker writes its own line to the shared stdout: the primary's may come before the last.
    await server.waitForLines(/Server listening at/, 2);
    expect(count(server.stdout(), /Server listening at/)).toBe(2);

    // A new connection per request: the primary hands connections to the workers in turn.
    for (let n = 0; n < 12; n++) {
      const { status, body } = await getOnNewConnection(port, '/api/account/details', { 'x-api-key': KEY });
      expect(status).toBe(200);
      expect((JSON.parse(body) as { data: { username: string } }).data.username).toBe('w');
    }
    // Each request's log line is written once its answer is sent: wait for all twelve.
    await server.waitForLines(/"msg":"request"/, 12);
    const servedBy = new Set(
      server
        .stdout()
        .split('\n')
        .filter((text) => text.includes('"msg":"request"'))
        .map((text) => (JSON.parse(text) as { worker: number }).worker),
    );
    expect(servedBy).toEqual(new Set([1, 2]));

    const stoppedAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    expect(count(server.stdout(), /"msg":"stopped"/)).toBe(2);
  });
});

describe('WORKERS=2 when a worker dies', () => {
  it('starts another in its place, and the port keeps answering', async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const server = startNode('src/main.ts', [], {
      built: true,
      cwd: database.dir,
      env: cleanEnv({ ...database.env, WORKERS: '2', PORT: '0', LOG_LEVEL: 'info' }),
    });
    started.push(server);
    const port = await portOf(server);
    const workers = execFileSync('ps', ['-o', 'pid=', '--ppid', String(server.child.pid)], { encoding: 'utf8' })
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(workers).toHaveLength(2);
    process.kill(workers[0] as number, 'SIGKILL');
    await server.waitFor(/"msg":"a worker exited; starting another"/);
    await server.waitFor(/(Server listening at[^\n]*\n[\s\S]*){3}/);
    for (let n = 0; n < 4; n++) {
      expect((await getOnNewConnection(port, '/api/account/details', {})).status).toBe(400);
    }
    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
  });
});

describe('WORKERS=2 on a fresh clone', () => {
  it('loads the demo data and prints its banner once, from the primary', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'marketplace-workers-'));
    const server = startNode('src/main.ts', [], { cwd, env: cleanEnv({ WORKERS: '2', PORT: '0', LOG_LEVEL: 'info' }) });
    started.push(server);
    await portOf(server);
    await server.waitFor(/purchase_code=DEMO-VALID-0001'\n={78}\n/);
    const [, key] = server.stdout().match(/API key of "demo-seller": (\w+)/) ?? [];
    const port = await portOf(server);
    const response = await fetch(`http://127.0.0.1:${port}/api/account/details`, {
      headers: { 'x-api-key': key ?? '' },
    });
    expect(response.status).toBe(200);
    expect(count(server.stdout(), /DEMO DATA/)).toBe(1);
    server.child.kill('SIGINT');
    expect(await server.exited()).toBe(0);
  });
});
