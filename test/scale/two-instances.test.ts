import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import { openStore } from '../../src/store/open-store.js';
import { ALL_LINES, KEYS, PURCHASES } from '../api/fixtures.js';
import { cleanEnv, type Running, runCli, startNode } from '../helpers/processes.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';

/** How soon every instance must see a change made elsewhere (issue 3), and how often it is asked. */
const WITHIN_MS = 1000;
const POLL_MS = 50;

const CODE = PURCHASES.regular.line.code;

interface Instance {
  readonly server: Running;
  readonly base: string;
}

/**
 * Two real server processes on one PostgreSQL database, sharing SECRET_KEY, as two machines
 * behind a load balancer would be. Whatever they cache, a change made elsewhere (here by the CLI,
 * another process) must reach both within a second.
 */
describe.runIf(TEST_STORES.includes('postgres'))('two instances, one truth (PostgreSQL)', () => {
  let database: TestDatabase;
  let env: NodeJS.ProcessEnv;
  const instances: Instance[] = [];
  /** Alice's key once rotated. */
  let aliceKey: string = KEYS.alice;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    env = cleanEnv({ ...database.env, PORT: '0', LOG_LEVEL: 'info' });
    const config = loadConfig(database.env);
    const store = await openStore(config.store);
    try {
      const seeded = await importNdjson(
        store,
        loadKeyMaterial(config),
        Readable.from(ALL_LINES.map((line) => `${JSON.stringify(line)}\n`)),
      );
      expect(seeded.ok).toBe(true);
    } finally {
      await store.close();
    }
    for (let n = 0; n < 2; n++) {
      const server = startNode('src/main.ts', [], { cwd: database.dir, env });
      const [, port] = await server.waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/);
      instances.push({ server, base: `http://127.0.0.1:${port}` });
    }
  });

  afterAll(async () => {
    for (const { server } of instances) server.child.kill('SIGKILL');
    await Promise.all(instances.map(({ server }) => server.exited()));
    await database?.drop();
  });

  const details = (instance: Instance, key: string) =>
    fetch(`${instance.base}/api/account/details`, { headers: { 'x-api-key': key } }).then((r) => r.status);
  const validate = (instance: Instance, key: string, code: string) =>
    fetch(`${instance.base}/api/purchases/validation`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ purchase_code: code }),
    }).then((r) => r.status);

  /** Asks every instance every 50 ms until each answers `status`; the time that took, or a failure after 1 s. */
  async function allAnswerWithin(ask: (instance: Instance) => Promise<number>, status: number): Promise<number> {
    const started = Date.now();
    const pending = new Set(instances);
    const last = new Map<Instance, number>();
    while (pending.size > 0) {
      for (const instance of [...pending]) {
        const answer = await ask(instance);
        last.set(instance, answer);
        if (answer === status) pending.delete(instance);
      }
      if (pending.size === 0) break;
      if (Date.now() - started > WITHIN_MS) {
        throw new Error(
          `after ${WITHIN_MS} ms, instances still answered ${instances.map((i) => last.get(i)).join(' and ')}, not ${status}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return Date.now() - started;
  }

  it('both answer from the shared store once warmed up', async () => {
    for (const instance of instances) {
      for (let n = 0; n < 5; n++) {
        expect(await details(instance, KEYS.alice)).toBe(200);
        expect(await validate(instance, KEYS.alice, CODE)).toBe(200);
        expect(await validate(instance, KEYS.alice, CODE.toLowerCase())).toBe(200);
      }
    }
  });

  it('a key rotated with the CLI gets 401 from both within 1 s, and the new key works on both', async () => {
    const rotated = await runCli(['keys', 'rotate', 'alice'], { cwd: database.dir, env });
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKey = rotated.stdout.trim();
    aliceKey = newKey;
    const took = await allAnswerWithin((instance) => details(instance, KEYS.alice), 401);
    expect(took).toBeLessThanOrEqual(WITHIN_MS);
    for (const instance of instances) expect(await details(instance, newKey)).toBe(200);
    for (const instance of instances) expect(await validate(instance, newKey, CODE)).toBe(200);
  });

  it('a purchase refunded by an import gets 404 from both within 1 s', async () => {
    const key = aliceKey;
    for (const instance of instances) expect(await validate(instance, key, CODE)).toBe(200);
    const file = join(database.dir, 'refund.ndjson');
    writeFileSync(file, `${JSON.stringify({ ...PURCHASES.regular.line, status: 'refunded' })}\n`);
    const imported = await runCli(['import', file], { cwd: database.dir, env });
    expect(imported.stdout).toContain('purchases: 0 inserted, 1 updated, 0 unchanged');
    const took = await allAnswerWithin((instance) => validate(instance, key, CODE), 404);
    expect(took).toBeLessThanOrEqual(WITHIN_MS);
  });
});
