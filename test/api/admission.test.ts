import { mkdtempSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { rawExchange } from '../helpers/raw-http.js';
import { createTestApp, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ALL_LINES, KEYS } from './fixtures.js';

/**
 * Issue 10's admission: a client that trickles its headers or body, drops it halfway, declares a
 * huge body, or holds sockets idle cannot hold the process. Over a real port with raw sockets:
 * `inject` has no sockets to be slow on.
 */

const SHORT_TIMEOUTS = {
  server: {
    requestTimeoutSeconds: 1,
    headersTimeoutSeconds: 0.5,
    keepAliveTimeoutSeconds: 0.5,
    maxRequestsPerSocket: 2,
    maxConnections: 3,
  },
};

const validation = (base: string, contentType: string, length: number, body: string) =>
  `POST ${base}/api/purchases/validation HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${contentType}\r\n` +
  `X-Api-Key: ${KEYS.alice}\r\nContent-Length: ${length}\r\n\r\n${body}`;
const details = (connection: 'keep-alive' | 'close') =>
  `GET /api/account/details HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${KEYS.alice}\r\nConnection: ${connection}\r\n\r\n`;

const BODIES = [
  ['JSON', 'application/json', '{"purchase_code":'],
  ['form', 'application/x-www-form-urlencoded', 'purchase_code='],
  ['multipart', 'multipart/form-data; boundary=XYZ', '--XYZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n'],
] as const;

describe('timeouts and connection limits (config server.*)', () => {
  let t: TestApp;
  let port: number;
  /** Resolves once the server's count of open connections passes `test` (Node counts them as it accepts and closes). */
  const connectionCount = (test: (count: number) => boolean) =>
    new Promise<void>((resolve) => {
      const poll = () => t.app.server.getConnections((_, count) => (test(count) ? resolve() : setImmediate(poll)));
      poll();
    });
  const errorLines = () => t.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);

  beforeAll(async () => {
    t = await createTestApp({ configFile: SHORT_TIMEOUTS, lines: ALL_LINES, logLevel: 'info' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('$lang', (variant) => {
    it.each(BODIES)(
      'answers a %s body that stops halfway with 408 in the envelope, and closes',
      async (_, type, body) => {
        const answer = await rawExchange(port, [validation(variant.base, type, 200, body)]);
        expect(answer.status).toBe(408);
        expect(JSON.parse(answer.body)).toEqual({
          status: variant.error,
          msg: variant.lang === 'en' ? 'Request timeout' : 'Tempo esgotado para a solicitação',
        });
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(answer.headers['cache-control']).toBe('no-store');
        expect(answer.headers.connection).toBe('close');
        expect(answer.closedByServer).toBe(true);
        expect(errorLines()).toEqual([]);
      },
    );

    it('closes at once, with 413, a request that declares a body over 64 KiB, without reading it', async () => {
      const answer = await rawExchange(port, [validation(variant.base, 'application/json', 100_000_000, '{')]);
      expect(answer.status).toBe(413);
      expect(JSON.parse(answer.body)).toEqual({ status: variant.error, msg: variant.messages.bodyTooLarge });
      expect(answer.headers.connection).toBe('close');
      expect(answer.closedByServer).toBe(true);
    });
  });

  it('answers headers that never end with 408', async () => {
    const answer = await rawExchange(port, ['GET /api/account/details HTTP/1.1\r\nHost: localhost\r\n']);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ status: 'error', msg: 'Request timeout' });
    expect(answer.closedByServer).toBe(true);
  });

  it.each(BODIES)(
    'logs nothing above debug for a %s body the client drops halfway, and serves on',
    async (_, type, body) => {
      const answer = await rawExchange(port, [validation('', type, 200, body)], { abortAfterWrite: true });
      expect(answer.status).toBe(0);
      const next = await rawExchange(port, [details('close')]);
      expect(next.status).toBe(200);
      expect(errorLines()).toEqual([]);
    },
  );

  it('closes a keep-alive connection left idle, after its answer', async () => {
    const answer = await rawExchange(port, [details('keep-alive')]);
    expect(answer.status).toBe(200);
    expect(answer.closedByServer).toBe(true);
  });

  it('closes a connection after maxRequestsPerSocket requests, saying so', async () => {
    const answer = await rawExchange(port, [details('keep-alive'), details('keep-alive')]);
    expect(answer.status).toBe(200);
    // The second answer of the two is the last this connection carries.
    expect(answer.body.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(1);
    expect(answer.body).toMatch(/connection: close/i);
    expect(answer.closedByServer).toBe(true);
  });

  it('refuses connections past maxConnections at once, and takes them again when some close', async () => {
    const held = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => resolve(socket));
          }),
      ),
    );
    await connectionCount((count) => count === 3);
    const refused = await rawExchange(port, [details('close')]);
    expect(refused.status).toBe(0);
    for (const socket of held) socket.destroy();
    await connectionCount((count) => count === 0);
    expect((await rawExchange(port, [details('close')])).status).toBe(200);
  });
});

describe('the server section of the config', () => {
  const load = (server: object) => {
    const path = join(mkdtempSync(join(tmpdir(), 'marketplace-config-')), 'config.json');
    writeFileSync(path, JSON.stringify({ server }));
    return loadConfig({ MARKETPLACE_CONFIG: path });
  };

  it('has safe defaults: 10 s for a request, 5 s for its headers', () => {
    expect(load({}).server).toEqual({
      requestTimeoutMs: 10_000,
      headersTimeoutMs: 5_000,
      keepAliveTimeoutMs: 65_000,
      maxRequestsPerSocket: 10_000,
      maxConnections: 10_000,
    });
  });

  it('refuses a headers timeout longer than the request timeout, saying so', () => {
    expect(() => load({ requestTimeoutSeconds: 2, headersTimeoutSeconds: 3 })).toThrow(
      'server.headersTimeoutSeconds: must not be more than server.requestTimeoutSeconds',
    );
  });

  it.each([
    [{ requestTimeoutSeconds: 0 }, 'server.requestTimeoutSeconds'],
    [{ maxConnections: 0 }, 'server.maxConnections'],
    [{ keepAlive: 5 }, 'server.keepAlive'],
  ])('refuses %j', (server, where) => {
    expect(() => load(server)).toThrow(ConfigError);
    expect(() => load(server)).toThrow(where);
  });
});
