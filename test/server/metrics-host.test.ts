import { networkInterfaces } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.js';

const started: Running[] = [];
const databases: TestDatabase[] = [];

afterAll(async () => {
  for (const server of started) server.child.kill('SIGKILL');
  for (const database of databases) await database.drop();
});

/** Starts the server with these settings; the address and port the metrics server says it listens on. */
async function metricsAddress(settings: Record<string, string>): Promise<{ address: string; port: number }> {
  const database = await createTestDatabase('sqlite');
  databases.push(database);
  const server = startNode('src/main.ts', [], {
    cwd: database.dir,
    env: cleanEnv({ ...database.env, PORT: '0', METRICS_PORT: '0', ...settings }),
  });
  started.push(server);
  const [line] = await server.waitFor(/^.*"msg":"metrics listening".*$/m, 120_000);
  await server.waitFor(/Server listening at|"msg":"all workers listening"/, 120_000);
  server.child.kill('SIGTERM');
  await server.exited();
  const { address, port } = JSON.parse(line) as { address: string; port: number };
  return { address, port };
}

describe('the metrics port', () => {
  it('listens on 127.0.0.1 when the API listens on every interface (HOST=0.0.0.0), one process or WORKERS', async () => {
    expect((await metricsAddress({ HOST: '0.0.0.0' })).address).toBe('127.0.0.1');
    expect((await metricsAddress({ HOST: '0.0.0.0', WORKERS: '2' })).address).toBe('127.0.0.1');
  }, 240_000);

  it('listens where METRICS_HOST says', async () => {
    expect((await metricsAddress({ METRICS_HOST: '0.0.0.0' })).address).toBe('0.0.0.0');
    // Some address of this machine other than loopback, when it has one: still only that one.
    const other = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry !== undefined && entry.family === 'IPv4' && !entry.internal);
    if (other !== undefined)
      expect((await metricsAddress({ METRICS_HOST: other.address })).address).toBe(other.address);
  });
});
