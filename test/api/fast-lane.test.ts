import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createLogger } from '../../src/logging.js';
import { type Store, StoreUnavailableError } from '../../src/store/store.js';
import { answerTo } from '../helpers/http-answer.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ALL_LINES, KEYS, LONGEST_CODE, UNKNOWN_KEY } from './fixtures.js';
import { rawExchange } from './raw-exchange.js';

/**
 * The fast lane (src/http/fast-lane.ts) answers the API's plain requests without Fastify's
 * lifecycle. Every other suite asks through `inject`, which is Fastify's path; this one asks the
 * same questions of a real server, where the lane takes them, and of a twin app over the same
 * store through `inject`, and requires the very same answer: status, every header (but the date
 * and the connection's own) and the body, byte for byte. The two apps count their own budgets,
 * and are asked the same things in the same order, so their RateLimit-* headers must agree too.
 */

/** Long windows: the run never straddles two (windows are aligned on the clock). */
const DAY = 86_400;
/** Per-connection headers Node writes itself; inject has no connection. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
const TOKEN = 'fast-lane-admin-token-0123456789abcdef';
/** The counters both paths feed (the latency histogram is left out: its buckets hold times). */
const COUNTERS = [
  'marketplace_http_requests_total',
  'marketplace_validations_total',
  'marketplace_limiter_refusals_total',
  'marketplace_cache_lookups_total',
];

interface Ask {
  readonly name: string;
  readonly method: 'GET' | 'POST' | 'HEAD';
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Whether the lane must take it (else Fastify answers it on the real server too). */
  readonly lane: boolean;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

function comparable(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!CONNECTION_HEADERS.has(name) && value !== undefined) kept[name] = String(value);
  }
  return kept;
}

/** One request over a real socket, headers exactly as given (and Host). */
async function overSocket(port: number, ask: Ask): Promise<Answer> {
  const headers = { ...ask.headers };
  if (ask.body !== undefined) headers['content-length'] = String(Buffer.byteLength(ask.body));
  const outgoing = httpRequest({ host: '127.0.0.1', port, method: ask.method, path: ask.url, headers });
  const answer = answerTo(outgoing);
  outgoing.end(ask.body);
  const { status, headers: answered, body } = await answer;
  return { status, headers: comparable(answered), body };
}

async function overInject(app: FastifyInstance, port: number, ask: Ask): Promise<Answer> {
  const response = await app.inject({
    method: ask.method,
    url: ask.url,
    // The socket's request names the real server's host and port: so does this one.
    headers: { host: `127.0.0.1:${port}`, ...ask.headers },
    ...(ask.body === undefined ? {} : { payload: ask.body }),
  });
  return { status: response.statusCode, headers: comparable(response.headers), body: response.body };
}

const json = { 'content-type': 'application/json' };

/** The store as both apps see it: two purchase codes whose lookup fails (unreachable, and broken). */
function failingOn(store: Store): Store {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'purchase') return Reflect.get(target, property, receiver);
      return (codeKey: string) => {
        if (codeKey === 'store-down-1') return Promise.reject(new StoreUnavailableError());
        if (codeKey === 'store-broken-1') return Promise.reject(new Error('broken row'));
        return target.purchase(codeKey);
      };
    },
  });
}

/** The contract's cases for every endpoint and variant, and a few the lane must leave to Fastify. */
function asks(behindProxy: boolean): Ask[] {
  const list: Ask[] = [];
  for (const variant of VARIANTS) {
    const at = (path: string) => `${variant.base}${path}`;
    const add = (ask: Omit<Ask, 'name' | 'lane'> & { lane?: boolean }, name: string) =>
      list.push({ lane: true, ...ask, name: `${variant.lang} ${name}` });
    const details = at('/api/account/details');
    add({ method: 'GET', url: details, headers: { 'x-api-key': KEYS.alice } }, 'details, X-Api-Key');
    add({ method: 'GET', url: `${details}/`, headers: { authorization: `Bearer ${KEYS.bob}` } }, 'details, Bearer');
    add({ method: 'GET', url: `${details}?api_key=${KEYS.cleo}` }, 'details, query');
    add({ method: 'GET', url: `${details}?api_key=${KEYS.cleo}&x=1`, headers: { 'x-api-key': KEYS.cleo } }, 'twice');
    add({ method: 'GET', url: `${details}?api_key=${KEYS.bob}`, headers: { 'x-api-key': KEYS.alice } }, 'conflict');
    add({ method: 'GET', url: `${details}?api_key=a&api_key=b` }, 'key repeated');
    add({ method: 'GET', url: details }, 'details, no key');
    add({ method: 'GET', url: `${details}?api_key=%20%20` }, 'details, blank key');
    add({ method: 'GET', url: details, headers: { 'x-api-key': UNKNOWN_KEY } }, 'details, unknown key');
    add({ method: 'GET', url: details, headers: { 'x-api-key': KEYS.sam } }, 'details, suspended');
    add({ method: 'GET', url: details, headers: { 'x-api-key': KEYS.alice, 'x-request-id': 'req-1' } }, 'own id');
    add({ method: 'GET', url: details, headers: { 'x-api-key': KEYS.alice, 'x-request-id': 'bad id!' } }, 'bad id');

    const all = at('/api/items/all');
    add({ method: 'GET', url: all, headers: { 'x-api-key': KEYS.alice } }, 'items of alice');
    add({ method: 'GET', url: `${all}/?junk=%zz`, headers: { 'x-api-key': KEYS.cleo } }, 'items of cleo');
    add({ method: 'GET', url: all, headers: { 'x-api-key': KEYS.dora } }, 'no approved items');
    add({ method: 'GET', url: all, headers: { 'x-api-key': UNKNOWN_KEY } }, 'items, unknown key');

    const item = at('/api/items/item');
    for (const id of ['101', '007', ' 103 ', '105', '201', '999999', 'abc', '0', '-1', '1234567890123456', '']) {
      add(
        { method: 'GET', url: `${item}?item_id=${encodeURIComponent(id)}`, headers: { 'x-api-key': KEYS.alice } },
        `item ${id}`,
      );
    }
    add({ method: 'GET', url: `${item}?item_id=101&item_id=102`, headers: { 'x-api-key': KEYS.alice } }, 'two ids');
    add({ method: 'GET', url: item, headers: { 'x-api-key': KEYS.alice } }, 'item, no id');

    const validation = at('/api/purchases/validation');
    const post = (body: string, name: string, headers: Record<string, string> = json, lane = true) =>
      add({ method: 'POST', url: validation, headers: { 'x-api-key': KEYS.alice, ...headers }, body, lane }, name);
    for (const code of [
      'ALICE-REG-0001',
      '  aLiCe-ReG-0001 ',
      'Alice-Ext-0002',
      'alice_nosupport_3',
      'ALICE-REFUNDED-4',
      'ALICE-CANCELLED-5',
      'alice-rejected-item-7',
      'BOB-0001',
      LONGEST_CODE,
      `${LONGEST_CODE}x`,
      'bad code!',
      'NO-SUCH-CODE',
      '   ',
    ]) {
      post(JSON.stringify({ purchase_code: code }), `code ${JSON.stringify(code)}`);
    }
    post(JSON.stringify({ purchase_code: 'STORE-DOWN-1' }), 'store unavailable');
    post(JSON.stringify({ purchase_code: 'STORE-BROKEN-1' }), 'store broken');
    post(JSON.stringify({ purchase_code: 12345 }), 'code as a number');
    post(JSON.stringify({ purchase_code: ['BOB-0001'] }), 'code in an array');
    post(JSON.stringify({ purchase_code: { a: 1 } }), 'code as an object');
    post(JSON.stringify({}), 'no code');
    post(JSON.stringify({ purchase_code: 'ALICE-REG-0001', api_key: KEYS.alice }), 'key in body too');
    post(JSON.stringify({ purchase_code: 'ALICE-REG-0001', api_key: KEYS.bob }), 'key in body differs');
    post('{"purchase_code":', 'malformed JSON');
    post('', 'empty body');
    post('{"__proto__":{"x":1},"purchase_code":"ALICE-REG-0001"}', 'proto key');
    post('[1,2]', 'an array');
    post('null', 'null');
    post('"text"', 'a string');
    post('\ufeff{"purchase_code":"ALICE-REG-0001"}', 'BOM');
    post(JSON.stringify({ purchase_code: 'ALICE-REG-0001' }), 'charset', {
      'content-type': 'application/json; charset=utf-8',
    });
    add(
      {
        method: 'POST',
        url: `${validation}?purchase_code=BOB-0001`,
        headers: { ...json, 'x-api-key': KEYS.bob },
        body: '{}',
      },
      'code in the query',
    );
    add(
      {
        method: 'POST',
        url: `${validation}/`,
        headers: { ...json, authorization: `Bearer ${KEYS.bob}` },
        body: '{"purchase_code":"BOB-0001"}',
      },
      'trailing slash, Bearer',
    );
    // Left to Fastify: other bodies, other methods, content types the lane does not read as such.
    post('purchase_code=BOB-0001', 'form body', { 'content-type': 'application/x-www-form-urlencoded' }, false);
    post('{"purchase_code":"ALICE-REG-0001"}', 'JSON in upper case', { 'content-type': 'Application/JSON' }, false);
    post('{"purchase_code":"ALICE-REG-0001"}', 'text', { 'content-type': 'text/plain' }, false);
    add({ method: 'HEAD', url: details, headers: { 'x-api-key': KEYS.alice }, lane: false }, 'HEAD');
    add({ method: 'GET', url: validation, headers: { 'x-api-key': KEYS.alice }, lane: false }, 'wrong method');
    add({ method: 'GET', url: `${details};x`, headers: { 'x-api-key': KEYS.alice }, lane: false }, 'semicolon');
  }
  if (!behindProxy) return list;
  // Behind a trusted proxy: the forwarded client is the one counted, each with a budget of its own;
  // a forwarded host is Fastify's to read.
  const clients = ['203.0.113.7', '2001:db8::1', '198.51.100.1, 203.0.113.8'];
  const forwarded: Ask[] = list.map((ask, index) => ({
    ...ask,
    headers: { ...ask.headers, 'x-forwarded-for': clients[index % clients.length] as string },
  }));
  forwarded.push({
    name: 'forwarded host',
    method: 'GET',
    url: '/pt/api/account/details',
    headers: { 'x-api-key': KEYS.alice, 'x-forwarded-for': '203.0.113.9', 'x-forwarded-host': 'api.example.com' },
    lane: false,
  });
  return forwarded;
}

/**
 * Budgets no case spends, and failure budgets the cases spend part-way: the client's is refused at
 * admission, the key and client's in the endpoint (where a spent key's request budget is refused too).
 */
const BUDGETS = {
  ample: { clientFailures: 10_000, keyClientFailures: 10_000, keyRequests: 10_000 },
  spent: { clientFailures: 4, keyClientFailures: 3, keyRequests: 10_000 },
};
const SETTINGS = TEST_STORES.flatMap((kind) => [
  { kind, behindProxy: false, budgets: 'ample' as const },
  { kind, behindProxy: true, budgets: 'ample' as const },
  { kind, behindProxy: false, budgets: 'spent' as const },
]);

describe.each(SETTINGS)(
  '$kind store, behind a proxy: $behindProxy, budgets: $budgets',
  ({ kind, behindProxy, budgets }) => {
    let t: TestApp;
    let twin: FastifyInstance;
    let port: number;
    const twinLog: string[] = [];

    beforeAll(async () => {
      // At info, not debug: at debug the access log is Fastify's, and the lane stays shut.
      const configFile = {
        limits: {
          clientFailures: { max: BUDGETS[budgets].clientFailures, windowSeconds: DAY },
          keyClientFailures: { max: BUDGETS[budgets].keyClientFailures, windowSeconds: DAY },
          keyRequests: { max: BUDGETS[budgets].keyRequests, windowSeconds: DAY },
        },
        trustProxy: behindProxy ? ['loopback'] : [],
      };
      t = await createTestApp(kind, {
        lines: ALL_LINES,
        logLevel: 'info',
        configFile,
        env: { ADMIN_TOKEN: TOKEN },
        wrapStore: failingOn,
      });
      const sink = new Writable({
        write(chunk, _encoding, done) {
          twinLog.push(String(chunk));
          done();
        },
      });
      twin = await buildApp({
        config: t.config,
        store: failingOn(t.store),
        keys: t.keys,
        logger: createLogger('info', sink),
      });
      const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
      port = Number(new URL(address).port);
    });
    afterAll(async () => {
      await twin.close();
      await t.close();
    });

    it('answers every case exactly as Fastify does, and takes exactly the plain API requests', async () => {
      const cases = asks(behindProxy);
      const refused: string[] = [];
      for (const ask of cases) {
        const before = t.app.fastLane.taken;
        const laneAnswer = await overSocket(port, ask);
        expect({ case: ask.name, taken: t.app.fastLane.taken - before }).toEqual({
          case: ask.name,
          taken: ask.lane ? 1 : 0,
        });
        const fastifyAnswer = await overInject(twin, port, ask);
        const requestId = laneAnswer.headers['x-request-id'];
        if (ask.headers?.['x-request-id'] === 'req-1') {
          expect(requestId).toBe('req-1');
        } else {
          // A new id each time: each side's own, a UUID.
          expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
          fastifyAnswer.headers['x-request-id'] = requestId as string;
        }
        // Seconds to the window's end, read by each side as it answers: the two reads may straddle a second.
        for (const name of ['ratelimit-reset', 'retry-after']) {
          const [lane, fastify] = [Number(laneAnswer.headers[name]), Number(fastifyAnswer.headers[name])];
          if (Math.abs(lane - fastify) === 1) fastifyAnswer.headers[name] = String(lane);
        }
        expect({ case: ask.name, ...laneAnswer }).toEqual({ case: ask.name, ...fastifyAnswer });
        if (laneAnswer.status === 429) refused.push(laneAnswer.headers['ratelimit-limit'] as string);
      }
      // Spent budgets: both failure budgets refused, each by its own limit.
      expect(new Set(refused)).toEqual(budgets === 'spent' ? new Set(['3', '4']) : new Set());
      expect(twin.fastLane.taken).toBe(0);
      // Both sides logged the same failures of the store's, and only those (with spent budgets some
      // of those asks are refused before the store is reached).
      const errors = (lines: readonly string[]) =>
        lines
          .map((line) => JSON.parse(line))
          .filter((entry) => entry.level >= 50)
          .map((entry) => entry.msg);
      expect(errors(t.logs)).toEqual(errors(twinLog));
      if (budgets === 'ample') {
        expect(errors(t.logs)).toEqual([
          'store unavailable',
          'unexpected error',
          'store unavailable',
          'unexpected error',
        ]);
      }
      expect(cases.filter((ask) => ask.lane).length).toBeGreaterThan(100);
    });

    it('counts what it answered in the same metrics as the Fastify routes (after the cases above)', async () => {
      const counters = async (app: FastifyInstance) => {
        const response = await app.inject({
          method: 'GET',
          url: '/admin/v1/metrics',
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(response.statusCode).toBe(200);
        return response.body
          .split('\n')
          .filter((line) => COUNTERS.some((name) => line.startsWith(`${name}{`)) && !line.includes('/admin/'));
      };
      const laneCounters = await counters(t.app);
      expect(laneCounters.some((line) => line.includes('endpoint="/api/purchases/validation"'))).toBe(true);
      expect(laneCounters).toEqual(await counters(twin));
    });
  },
);

/**
 * Issue 20, item 15: after a malformed body, Fastify's body parser answers 400 with
 * `Connection: close` and reads nothing more on the connection. The lane does the same: a request
 * pipelined behind the broken body is not answered.
 */
describe('a malformed body closes the connection, on the lane as on Fastify', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ lines: ALL_LINES, logLevel: 'info' });
    const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(address).port);
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (base: string, contentType: string, body: string) =>
    `POST ${base}/api/purchases/validation HTTP/1.1\r\nHost: localhost\r\nContent-Type: ${contentType}\r\n` +
    `X-Api-Key: ${KEYS.alice}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const behind = (base: string) =>
    `GET ${base}/api/account/details HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${KEYS.alice}\r\n\r\n`;

  describe.each(VARIANTS)('$lang', (variant) => {
    it.each([
      ['cut JSON', '{"purchase_code":'],
      ['an empty body', ''],
      ['a __proto__ key', '{"__proto__":{"x":1},"purchase_code":"ALICE-REG-0001"}'],
    ])('%s: one 400 with Connection: close, and the pipelined request behind it is not answered', async (_, body) => {
      // `application/json` is the lane's; `Application/JSON` it leaves to Fastify's parser.
      const answered = async (contentType: string, lane: boolean) => {
        const before = t.app.fastLane.taken;
        const { answers, trailing } = await rawExchange(port, [
          post(variant.base, contentType, body),
          behind(variant.base),
        ]);
        // The lane took the broken POST (the cases above show it leaves `Application/JSON` alone).
        if (lane) expect(t.app.fastLane.taken).toBeGreaterThan(before);
        expect(trailing).toBe('');
        return answers.map(({ status, headers, body: text }) => ({
          status,
          connection: headers.connection,
          errorCode: headers['x-error-code'],
          body: text,
        }));
      };
      const lane = await answered('application/json', true);
      const fastify = await answered('Application/JSON', false);
      expect(lane).toEqual([
        { status: 400, connection: 'close', errorCode: 'malformed_request', body: expect.any(String) },
      ]);
      expect(JSON.parse(lane[0]?.body ?? '')).toEqual({ status: variant.error, msg: expect.any(String) });
      // The same answer, byte for byte, as Fastify's.
      expect(lane).toEqual(fastify);
    });
  });
});
