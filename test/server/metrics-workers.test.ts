import { request } from 'node:http';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { answerTo } from '../helpers/http-answer.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, seedAccount, type TestDatabase } from '../helpers/test-database.js';

const KEY = 'metrics_workers_key_0123456789';
const TOKEN = 'admin-token-0123456789abcdef';
/** How long the start may take on a loaded machine; the test waits longer (see workers.test.ts). */
const START_MS = 100_000;
vi.setConfig({ testTimeout: 180_000 });
const started: Running[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  for (const database of databases) await database.drop();
});

/** A request on a connection of its own, so the primary hands each to the workers in turn. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}) {
  const outgoing = request({ host: '127.0.0.1', port, method, path, headers, agent: false });
  const answer = answerTo(outgoing);
  outgoing.end();
  return answer;
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics with WORKERS=2', () => {
  it('sums a known burst over both workers, on METRICS_PORT and on /admin/v1/metrics', async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    await seedAccount(database, KEY);
    const server = startNode('src/main.ts', [], {
      built: true,
      cwd: database.dir,
      env: cleanEnv({
        ...database.env,
        WORKERS: '2',
        PORT: '0',
        METRICS_PORT: '0',
        ADMIN_TOKEN: TOKEN,
        LOG_LEVEL: 'debug',
      }),
    });
    started.push(server);
    const [metricsLine] = await server.waitFor(/^.*"msg":"metrics listening".*$/m, START_MS);
    const metricsPort = (JSON.parse(metricsLine) as { port: number }).port;
    const [listening] = await server.waitFor(/^.*"msg":"all workers listening".*$/m, START_MS);
    const port = (JSON.parse(listening) as { port: number }).port;

    for (let n = 0; n < 11; n++)
      expect((await send(port, 'GET', '/api/account/details', { 'x-api-key': KEY })).status).toBe(200);
    for (let n = 0; n < 6; n++) expect((await send(port, 'GET', '/pt/api/items/all')).status).toBe(400);
    const servedBy = new Set(
      server
        .stdout()
        .split('\n')
        .filter((text) => text.includes('"msg":"request"'))
        .map((text) => (JSON.parse(text) as { worker: number }).worker),
    );
    expect(servedBy).toEqual(new Set([1, 2]));

    const scraped = await send(metricsPort, 'GET', '/metrics');
    expect(scraped.status).toBe(200);
    const series = (endpoint: string, variant: string, status: number) =>
      `marketplace_http_requests_total{endpoint="${endpoint}",variant="${variant}",status="${status}"}`;
    expect(sample(scraped.body, series('/api/account/details', 'en', 200))).toBe(11);
    expect(sample(scraped.body, series('/api/items/all', 'pt', 400))).toBe(6);

    // Through the admin API, whichever worker answers asks the primary for the sum.
    for (let n = 0; n < 2; n++) {
      const admin = await send(port, 'GET', '/admin/v1/metrics', { authorization: `Bearer ${TOKEN}` });
      expect(admin.status).toBe(200);
      expect(sample(admin.body, series('/api/account/details', 'en', 200))).toBe(11);
      expect(sample(admin.body, series('/api/items/all', 'pt', 400))).toBe(6);
    }

    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
  });
});
