import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { importNdjson } from '../../src/importer/import-ndjson.js';
import { loadKeyMaterial } from '../../src/keys/key-material.js';
import { openStore } from '../../src/store/open-store.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestDatabase, TEST_STORES, type TestDatabase } from '../helpers/test-database.js';
import { AUTH, FAST_WEBHOOKS, LINES, TOKEN, verified } from './fixtures.js';
import { payloadOf, Receiver } from './receiver.js';

/**
 * The outbox survives the process: a refund committed, its delivery in flight (the receiver does
 * not answer), the server killed with SIGKILL; the next start sends the event, with the same id.
 */
describe.each(TEST_STORES)('a killed server loses no event (%s)', (kind) => {
  let database: TestDatabase;
  let receiver: Receiver;
  let url: string;
  const running: Running[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    receiver = new Receiver();
    url = await receiver.start();
  });
  afterAll(async () => {
    for (const server of running) server.child.kill('SIGKILL');
    await receiver.close();
    await database.drop();
  });

  async function start(): Promise<{ server: Running; base: string }> {
    const config = join(database.dir, 'config.json');
    writeFileSync(config, JSON.stringify({ webhooks: { ...FAST_WEBHOOKS, timeoutSeconds: 2 } }));
    const server = startNode('src/main.ts', [], {
      cwd: database.dir,
      env: cleanEnv({ ...database.env, PORT: '0', LOG_LEVEL: 'info', ADMIN_TOKEN: TOKEN, MARKETPLACE_CONFIG: config }),
    });
    running.push(server);
    const [, port] = await server.waitFor(/Server listening at http:\/\/127\.0\.0\.1:(\d+)/, 60_000);
    return { server, base: `http://127.0.0.1:${port}` };
  }

  it('sends the event after a restart', async () => {
    // The store filled before the first start, by the real importer, with the key material a server over it uses.
    const config = loadConfig(database.env);
    const store = await openStore(config.store);
    const result = await importNdjson(
      store,
      loadKeyMaterial(config),
      Readable.from([LINES.map((l) => JSON.stringify(l)).join('\n')]),
    );
    await store.close();
    expect(result.ok).toBe(true);
    const first = await start();
    const post = (path: string, body?: object) =>
      fetch(`${first.base}${path}`, {
        method: 'POST',
        headers: { ...AUTH, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    const added = await post('/admin/v1/accounts/jdoe/webhooks', {
      url: `${url}/crash`,
      events: ['purchase.refunded'],
    });
    const { secret } = (await added.json()) as { secret: string };

    receiver.answerNext('hang');
    expect((await post('/admin/v1/purchases/CODE-2/refund')).status).toBe(200);
    const inFlight = await receiver.waitFor((r) => r.path === '/crash');
    first.server.child.kill('SIGKILL');
    expect(await first.server.exited()).toBe('SIGKILL');

    await start();
    const delivered = await receiver.waitFor((r) => r.path === '/crash' && r.answered === 200);
    expect(delivered.headers['webhook-id']).toBe(inFlight.headers['webhook-id']);
    expect(verified(secret, delivered)).toMatchObject({
      type: 'purchase.refunded',
      data: { status: 'refunded', purchase: { purchase_code: 'CODE-2' } },
    });
    expect(payloadOf(delivered).id).toBe(delivered.headers['webhook-id']);
  }, 120_000);
});
