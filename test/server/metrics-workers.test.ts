import { request } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import { openStore } from '../../src/store/open-store.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const KEY = 'metrics_workers_key_0123456789';
const TOKEN = 'admin-token-0123456789abcdef';
const started: Running[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  for (const database of databases) await database.drop();
});

/** A request on a connection of its own, so the primary hands each to the workers in turn. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics with WORKERS=2', () => {
  it('sums a known burst over both workers, on METRICS_PORT and on /admin/v1/metrics', async () => {
    const database = await createTestDatabase('sqlite');
    databases.push(database);
    const config = loadConfig(database.env);
    const store = await openStore(config.store);
    try {
      const line = {
        type: 'account',
        username: 'w',
        email: 'w@example.com',
        api_key: KEY,
        registered_at: '2024-01-01T00:00:00Z',
      };
      expect((await importNdjson(store, loadKeyMaterial(config), Readable.from([JSON.stringify(line)]))).ok).toBe(true);
    } finally {
      await store.close();
    }
    const server = startNode('src/main.ts', [], {
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
    const [metricsLine] = await server.waitFor(/^.*"msg":"metrics listening".*$/m, 60_000);
    const metricsPort = (JSON.parse(metricsLine) as { port: number }).port;
    const [listening] = await server.waitFor(/^.*"msg":"all workers listening".*$/m, 60_000);
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
