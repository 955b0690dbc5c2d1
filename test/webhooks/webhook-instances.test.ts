import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { purchaseLine } from '../importer/import-fixtures.js';
import { addEndpoint, eventually, FAST_WEBHOOKS, webhooksApp } from './fixtures.js';
import { Receiver } from './receiver.js';

/**
 * Several instances over one store each run a delivery worker; their claims keep any of them from
 * sending the same attempt twice (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite: the write lock).
 */
describe.each(TEST_STORES)('three instances over one store (%s) deliver each event once per attempt', (kind) => {
  let a: TestApp;
  const others: { store: Store; app: FastifyInstance }[] = [];
  let receiver: Receiver;
  let url: string;

  beforeAll(async () => {
    receiver = new Receiver();
    url = await receiver.start();
    a = await webhooksApp(kind, { ...FAST_WEBHOOKS, pollSeconds: 0.01, concurrencyPerEndpoint: 8, timeoutSeconds: 5 });
    const config = loadConfig(a.env);
    for (let n = 0; n < 2; n++) {
      const store = await openStore(config.store);
      const app = await buildApp({ config, store, keys: a.keys, logger: createLogger('silent') });
      await app.ready();
      others.push({ store, app });
    }
  });
  afterAll(async () => {
    for (const { app, store } of others) {
      await app.close();
      await store.close();
    }
    await a.close();
    await receiver.close();
  });

  it('sends 200 events: each request is one recorded attempt, never one attempt sent twice', async () => {
    const { id } = await addEndpoint(a, { url: `${url}/many`, events: ['purchase.created'] });
    // The first attempt of every fifth purchase's event fails: it is sent again (a second attempt).
    const seen = new Set<string>();
    receiver.decide = (body) => {
      const { id: eventId, data } = JSON.parse(body) as { id: string; data: { purchase: { purchase_code: string } } };
      const first = !seen.has(eventId);
      seen.add(eventId);
      return first && Number(data.purchase.purchase_code.slice('MANY-'.length)) % 5 === 0 ? 500 : 200;
    };
    await a.importLines(Array.from({ length: 200 }, (_, i) => purchaseLine({ code: `MANY-${i}` })));
    const deliveries = await eventually(
      () => a.store.webhooks().deliveries(id, 1000),
      (rows) => rows.length === 200 && rows.every((row) => row.state === 'succeeded'),
      '200 deliveries succeeded',
    );
    const requests = new Map<string, number>();
    for (const r of receiver.received) {
      const eventId = r.headers['webhook-id'] as string;
      requests.set(eventId, (requests.get(eventId) ?? 0) + 1);
    }
    // As many requests as attempts the store counted, for every event: no attempt was sent by two instances.
    expect(deliveries.map((row) => [row.event_id, requests.get(row.event_id)])).toEqual(
      deliveries.map((row) => [row.event_id, row.attempts]),
    );
    expect(deliveries.filter((row) => row.attempts >= 2).length).toBeGreaterThanOrEqual(40);
  }, 90_000);
});
