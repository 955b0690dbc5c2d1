import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { setSourceProbe } from '../../src/health/source-probe.js';
import { createLogger } from '../../src/logging.js';
import type { SourceHealth } from '../../src/marketbob/source-health.js';
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

  it('with a MarketBob source, /readyz says how far behind it the store is, and stays 200 while it is behind', async () => {
    const readyz = async () => json(await t.app.inject({ method: 'GET', url: '/readyz' }));
    let health: SourceHealth = { state: 'following', lagSeconds: 1.75 };
    // What main.ts sets when the bridge is on (the follower in this process, or a question to the primary).
    setSourceProbe(async () => health);
    try {
      expect(await readyz()).toEqual({
        status: 200,
        type: 'application/json; charset=utf-8',
        cache: 'no-store',
        code: undefined,
        body: { status: 'ready', marketbob: { state: 'following', lag_seconds: 1 } },
      });
      health = { state: 'behind', lagSeconds: 42.9, reason: 'source_unreachable' };
      expect((await t.app.inject({ method: 'GET', url: '/readyz' })).body).toBe(
        '{"status":"ready","marketbob":{"state":"behind","lag_seconds":42,"reason":"source_unreachable"}}',
      );
      health = { state: 'standby', lagSeconds: null };
      expect((await readyz()).body).toEqual({ status: 'ready', marketbob: { state: 'standby', lag_seconds: null } });
      // A probe that fails says nothing it does not know.
      setSourceProbe(() => Promise.reject(new Error('no answer')));
      expect((await readyz()).body).toEqual({ status: 'ready', marketbob: { state: 'unknown', lag_seconds: null } });
    } finally {
      setSourceProbe(undefined);
    }
    expect((await readyz()).body).toEqual({ status: 'ready' });
  });
});
