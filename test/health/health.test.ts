import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/logging.js';
import { type Store, StoreUnavailableError } from '../../src/store/store.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

const json = (response: { statusCode: number; headers: Record<string, unknown>; body: string }) => ({
  status: response.statusCode,
  type: response.headers['content-type'],
  cache: response.headers['cache-control'],
  code: response.headers['x-error-code'],
  body: JSON.parse(response.body) as unknown,
});

describe.each(TEST_STORES)('health on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(() => t.close());

  it('answers /healthz and /readyz with 200, in JSON, at the root only', async () => {
    expect(json(await t.app.inject({ method: 'GET', url: '/healthz' }))).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
      code: undefined,
      body: { status: 'ok' },
    });
    expect(json(await t.app.inject({ method: 'GET', url: '/readyz' }))).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      cache: 'no-store',
      code: undefined,
      body: { status: 'ready' },
    });
    expect((await t.app.inject({ method: 'HEAD', url: '/readyz' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/pt/healthz' })).statusCode).toBe(404);
  });

  it('says 503 on /readyz while the store does not answer, and /healthz still 200', async () => {
    const broken = new Proxy(t.store, {
      get(target, property, receiver) {
        if (property === 'isEmpty') return () => Promise.reject(new StoreUnavailableError());
        return Reflect.get(target, property, receiver);
      },
    }) as Store;
    const app = await buildApp({ config: t.config, store: broken, keys: t.keys, logger: createLogger('silent') });
    try {
      expect(json(await app.inject({ method: 'GET', url: '/readyz' }))).toEqual({
        status: 503,
        type: 'application/json; charset=utf-8',
        cache: 'no-store',
        code: 'service_unavailable',
        body: { status: 'unavailable', reason: 'store_unavailable' },
      });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('says 503 on /readyz once the server is shutting down', async () => {
    let stopping = false;
    const app = await buildApp({
      config: t.config,
      store: t.store,
      keys: t.keys,
      logger: createLogger('silent'),
      isShuttingDown: () => stopping,
    });
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      // What main.ts does on SIGTERM, before the requests in flight finish.
      stopping = true;
      expect(json(await app.inject({ method: 'GET', url: '/readyz' }))).toEqual({
        status: 503,
        type: 'application/json; charset=utf-8',
        cache: 'no-store',
        code: 'service_unavailable',
        body: { status: 'unavailable', reason: 'shutting_down' },
      });
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
