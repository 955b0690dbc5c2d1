import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ACCOUNTS, ALL_LINES, expectedItem, ITEMS, KEYS, UNKNOWN_KEY } from './fixtures.js';
import { expectContractHeaders, expectError, expectJson, url } from './http-assertions.js';

/** SPEC 2, 2.1 and 2.2.1: paths, methods, HEAD, trailing slashes, variant bases. */

type Method = NonNullable<InjectOptions['method']>;

const ENDPOINTS = [
  { path: '/api/account/details', method: 'GET', allow: 'GET, HEAD', query: [] },
  { path: '/api/items/all', method: 'GET', allow: 'GET, HEAD', query: [] },
  { path: '/api/items/item', method: 'GET', allow: 'GET, HEAD', query: [['item_id', '101']] },
  { path: '/api/purchases/validation', method: 'POST', allow: 'POST', query: [['purchase_code', 'ALICE-REG-0001']] },
] as const;

const OTHER_METHODS: Record<'GET' | 'POST', readonly Method[]> = {
  GET: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
  POST: ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
};

describe.each(TEST_STORES)('%s store', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('routing ($lang)', (variant) => {
    const inject = (options: InjectOptions) => t.app.inject(options);

    describe.each(ENDPOINTS)('$method $path', (endpoint) => {
      const query: (readonly [string, string])[] = [['api_key', KEYS.alice], ...endpoint.query];

      it('accepts a trailing slash', async () => {
        const plain = await inject({ method: endpoint.method, url: url(variant, endpoint.path, query) });
        const slashed = await inject({ method: endpoint.method, url: url(variant, `${endpoint.path}/`, query) });
        expect(plain.statusCode).toBe(200);
        expectJson(slashed, 200, JSON.parse(plain.body));
      });

      it.each(OTHER_METHODS[endpoint.method])('answers %s with 405 and Allow', async (method) => {
        for (const path of [endpoint.path, `${endpoint.path}/`]) {
          const response = await inject({ method, url: url(variant, path, query) });
          expect({ path, status: response.statusCode, allow: response.headers.allow }).toEqual({
            path,
            status: 405,
            allow: endpoint.allow,
          });
          expectContractHeaders(response);
          if (method === 'HEAD') expect(response.body).toBe('');
          else expectError(response, variant, 405, variant.messages.methodNotAllowed);
        }
      });
    });

    it('answers OPTIONS, a CORS preflight included, with 405 and no CORS headers', async () => {
      const response = await inject({
        method: 'OPTIONS',
        url: url(variant, '/api/purchases/validation'),
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-api-key',
        },
      });
      expectError(response, variant, 405, variant.messages.methodNotAllowed);
      expect(response.headers.allow).toBe('POST');
    });

    describe('HEAD works where GET does: same status and headers, no body', () => {
      const cases: [string, string, [string, string][]][] = [
        ['200 details', '/api/account/details', [['api_key', KEYS.alice]]],
        ['200 items', '/api/items/all', [['api_key', KEYS.alice]]],
        [
          '200 item',
          '/api/items/item',
          [
            ['api_key', KEYS.alice],
            ['item_id', '7'],
          ],
        ],
        ['200 trailing slash', '/api/items/all/', [['api_key', KEYS.alice]]],
        ['400 missing key', '/api/items/all', []],
        [
          '400 bad item_id',
          '/api/items/item',
          [
            ['api_key', KEYS.alice],
            ['item_id', 'x'],
          ],
        ],
        ['401 unknown key', '/api/account/details', [['api_key', UNKNOWN_KEY]]],
        ['404 no items', '/api/items/all', [['api_key', KEYS.cleo]]],
        [
          '404 item not found',
          '/api/items/item',
          [
            ['api_key', KEYS.alice],
            ['item_id', '201'],
          ],
        ],
        ['404 unknown path', '/api/nothing', [['api_key', KEYS.alice]]],
      ];
      it.each(cases)('%s', async (_name, path, query) => {
        const get = await inject({ method: 'GET', url: url(variant, path, query) });
        const head = await inject({ method: 'HEAD', url: url(variant, path, query) });
        expect(head.statusCode).toBe(get.statusCode);
        expect(head.body).toBe('');
        expectContractHeaders(head);
        expect(head.headers.allow).toBe(get.headers.allow);
      });
    });

    it('answers the variant’s own resources under its base', async () => {
      const response = await inject({
        method: 'GET',
        url: url(variant, '/api/items/item', [['item_id', '301']]),
        headers: { 'x-api-key': KEYS.solo },
      });
      expectJson(response, 200, { status: variant.ok, item: expectedItem(ITEMS.i301, variant) });
    });

    it.each([
      '/',
      '/api',
      '/api/',
      '/api/items',
      '/api/items/',
      '/api/items/alll',
      '/api/items/all/extra',
      '/api/account/details/alice',
      '/api/purchases',
      '/api/purchases/validation/x',
      '/api/items/all.json',
      '/api/pt/items/all',
      '/en/api/items/all',
      '/nothing/here',
    ])('answers 404 "not found" for the unknown path %s, before any check of the key or the body', async (path) => {
      const full = path === '/' && variant.base !== '' ? `${variant.base}/` : `${variant.base}${path}`;
      for (const method of ['GET', 'POST', 'PUT', 'DELETE'] as const) {
        const response = await inject({
          method,
          url: `${full}?api_key=${UNKNOWN_KEY}`,
          headers: { 'content-type': 'application/json' },
          payload: method === 'GET' ? undefined : '{not json',
        });
        expect({ method, status: response.statusCode }).toEqual({ method, status: 404 });
        expectError(response, variant, 404, variant.messages.notFound);
      }
    });
  });

  describe('variant bases match whole path segments', () => {
    const [en, pt] = VARIANTS;

    it('serves /pt/... in pt and /... in en', async () => {
      const headers = { 'x-api-key': KEYS.alice };
      expectJson(await t.app.inject({ method: 'GET', url: '/pt/api/account/details', headers }), 200, {
        status: pt.ok,
        data: ACCOUNTS.alice.expected.pt,
      });
      expectJson(await t.app.inject({ method: 'GET', url: '/api/account/details', headers }), 200, {
        status: en.ok,
        data: ACCOUNTS.alice.expected.en,
      });
    });

    it.each(['/ptx/api/items/all', '/pt-br/api/items/all', '/p/api/items/all', '/ptapi/items/all'])(
      'treats %s as an unknown path in en, not as one under /pt',
      async (path) => {
        const response = await t.app.inject({ method: 'GET', url: path, headers: { 'x-api-key': KEYS.alice } });
        expectError(response, en, 404, en.messages.notFound);
      },
    );

    it('answers unknown paths under /pt in pt, and /pt itself as unknown', async () => {
      for (const path of ['/pt', '/pt/', '/pt/nothing', '/pt/api/items/none', '/pt/pt/api/items/all']) {
        expectError(await t.app.inject({ method: 'GET', url: path }), pt, 404, pt.messages.notFound);
      }
    });

    it('answers a wrong method under /pt in pt', async () => {
      const response = await t.app.inject({ method: 'DELETE', url: '/pt/api/items/all/' });
      expectError(response, pt, 405, pt.messages.methodNotAllowed);
      expect(response.headers.allow).toBe('GET, HEAD');
    });
  });

  describe('variants told apart by host (SPEC 1)', () => {
    let hosted: TestApp;
    const [en, pt] = VARIANTS;
    beforeAll(async () => {
      hosted = await createTestApp(kind, {
        configFile: {
          variants: [
            { lang: 'en', baseUrl: 'https://api.example.com/', currency: 'USD', rate: '1' },
            { lang: 'pt', baseUrl: 'https://api.example.com.br/', currency: 'BRL', rate: '5.00' },
          ],
        },
        lines: ALL_LINES,
      });
    });
    afterAll(async () => {
      await hosted.close();
    });

    it('answers by the Host header on the same path', async () => {
      const request = (host: string) =>
        hosted.app.inject({ method: 'GET', url: '/api/account/details', headers: { host, 'x-api-key': KEYS.alice } });
      expectJson(await request('api.example.com'), 200, { status: en.ok, data: ACCOUNTS.alice.expected.en });
      expectJson(await request('api.example.com.br'), 200, { status: pt.ok, data: ACCOUNTS.alice.expected.pt });
      expectJson(await request('API.Example.com.BR:443'), 200, { status: pt.ok, data: ACCOUNTS.alice.expected.pt });
    });

    it('answers 404 and 405 in the language of the host', async () => {
      const response = await hosted.app.inject({
        method: 'GET',
        url: '/nothing',
        headers: { host: 'api.example.com.br' },
      });
      expectError(response, pt, 404, pt.messages.notFound);
      const wrong = await hosted.app.inject({
        method: 'PUT',
        url: '/api/items/all',
        headers: { host: 'api.example.com.br' },
      });
      expectError(wrong, pt, 405, pt.messages.methodNotAllowed);
    });

    it('serves no variant to a host it does not know', async () => {
      const response = await hosted.app.inject({
        method: 'GET',
        url: '/api/account/details',
        headers: { host: 'other.example', 'x-api-key': KEYS.alice },
      });
      expect(response.statusCode).toBe(404);
      expectContractHeaders(response);
    });
  });
});
