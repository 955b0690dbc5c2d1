import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEMO_ITEM_ID, DEMO_PURCHASE_CODE } from '../../src/demo/demo-data.js';
import { openApiFiles } from '../../src/openapi/openapi-files.js';
import { ALL_LINES, ITEMS, KEYS, PURCHASES, UNKNOWN_KEY } from '../api/fixtures.js';
import { form, multipart, url } from '../api/http-assertions.js';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';

// A parsed OpenAPI document, read freely by the assertions below.
// biome-ignore lint/suspicious/noExplicitAny: the document is JSON of no declared type
type Json = Record<string, any>;

const committed = (lang: string) => readFileSync(new URL(`../../openapi/${lang}.json`, import.meta.url), 'utf8');

describe('the committed OpenAPI documents', () => {
  it('are what the code generates (run `npm run openapi` after changing a schema)', () => {
    const generated = openApiFiles(loadConfig({}));
    expect([...generated.keys()].sort()).toEqual(['en.json', 'pt.json']);
    for (const [name, text] of generated) expect(committed(name.replace('.json', '')), name).toBe(text);
  });

  it.each(VARIANTS)('$lang validates as OpenAPI 3.1 with an independent validator', async (variant) => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(committed(variant.lang)));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });
});

/** The 408 message (not in SPEC 2.3's table; the app answers it since requests have a time limit). */
const REQUEST_TIMEOUT = { en: 'Request timeout', pt: 'Tempo esgotado para a solicitação' } as const;
const ACTIVATION_MESSAGES = {
  en: { activationNotFound: 'Activation not found', activationLimit: 'Activation limit reached' },
  pt: { activationNotFound: 'Ativação não encontrada', activationLimit: 'Limite de ativações atingido' },
} as const;

/** Every example of every response, with its HTTP status and headers. */
function responseExamples(document: Json) {
  const found: { path: string; method: string; status: number; headers: string[]; value: Json }[] = [];
  for (const [path, operations] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const media = response.content?.['application/json'];
        const values = media ? [media.example, ...Object.values<Json>(media.examples ?? {}).map((e) => e.value)] : [];
        for (const value of values.filter(Boolean)) {
          found.push({ path, method, status: Number(status), headers: Object.keys(response.headers ?? {}), value });
        }
      }
    }
  }
  return found;
}

describe.each(TEST_STORES)('%s store: the served documents', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('$lang', (variant) => {
    let document: Json;
    beforeAll(async () => {
      const response = await t.app.inject({ url: `${variant.base}/openapi.json` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      document = JSON.parse(response.body);
    });

    it("is the committed document, with the variant's server and the deployment's public keys", async () => {
      // The committed document names no key (each deployment has its own); the served one names its keys.
      const shipped = JSON.parse(committed(variant.lang));
      const { keys } = JSON.parse((await t.app.inject({ url: `${variant.base}/.well-known/jwks.json` })).body) as {
        keys: { kid: string; x: string }[];
      };
      expect(keys).toHaveLength(1);
      const published = variant.lang === 'pt' ? 'Publicadas agora:' : 'Published now:';
      const listed = keys.map((key) => `\n- \`${key.kid}\`: \`${key.x}\``).join('');
      expect(document.info.description).toBe(`${shipped.info.description}\n\n${published}${listed}`);
      expect({ ...document, info: { ...document.info, description: '' } }).toEqual({
        ...shipped,
        info: { ...shipped.info, description: '' },
      });
      expect(document.servers).toEqual([{ url: variant.base || '/' }]);
      expect(document.openapi).toBe('3.1.0');
    });

    it('has every row of SPEC 2.3 with its example, in the variant’s words', () => {
      const examples = responseExamples(document);
      const rows: [number, string][] = [
        [401, variant.messages.invalidRequest],
        [404, variant.messages.noItems],
        [404, variant.messages.itemNotFound],
        [404, variant.messages.invalidPurchaseCode],
        [404, variant.messages.notFound],
        [404, ACTIVATION_MESSAGES[variant.lang].activationNotFound],
        [405, variant.messages.methodNotAllowed],
        [409, ACTIVATION_MESSAGES[variant.lang].activationLimit],
        [408, REQUEST_TIMEOUT[variant.lang]],
        [413, variant.messages.bodyTooLarge],
        [415, variant.messages.unsupportedContentType],
        [429, variant.messages.tooManyRequests],
        [503, variant.messages.serviceUnavailable],
        [500, variant.messages.internal],
      ];
      for (const [status, msg] of rows) {
        const matching = examples.filter((e) => e.status === status && e.value.msg === msg);
        expect(matching.length, `${status} ${msg}`).toBeGreaterThan(0);
        for (const example of matching) expect(example.value).toEqual({ status: variant.error, msg });
        if (status === 429) for (const example of matching) expect(example.headers).toContain('Retry-After');
        if (status === 405) for (const example of matching) expect(example.headers).toContain('Allow');
      }
      const badParameter = examples.filter((e) => e.status === 400);
      expect(badParameter.map((e) => e.value.msg)).toEqual(
        expect.arrayContaining([expect.stringContaining('api_key'), expect.stringContaining('item_id')]),
      );
      const successes = examples.filter((e) => e.status === 200);
      expect(successes.map((e) => `${e.method} ${e.path}`).sort()).toEqual([
        'get /api/account/details',
        'get /api/items/all',
        'get /api/items/item',
        'get /api/purchases/activity',
        'get /api/purchases/activity/top',
        'post /api/purchases/activations',
        'post /api/purchases/deactivation',
        'post /api/purchases/license',
        'post /api/purchases/validation',
      ]);
      for (const example of successes) expect(example.value.status).toBe(variant.ok);
      expect(successes[0]?.value.data.currency).toBe(variant.currency);
    });

    it('gives each parameter one place, so "Try it out" sends it once; HEAD in words, not as operations', () => {
      expect(document.components.securitySchemes).toEqual({
        apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }),
        bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
        apiKeyQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'api_key' }),
      });
      expect(document.security).toEqual([{ apiKeyHeader: [] }, { bearer: [] }, { apiKeyQuery: [] }]);
      const item = document.paths['/api/items/item'].get;
      // Every operation takes the optional Signature-Nonce header, last.
      const nonce = expect.objectContaining({ name: 'Signature-Nonce', in: 'header', required: false });
      expect(item.parameters).toEqual([
        expect.objectContaining({ name: 'item_id', in: 'query', required: true }),
        nonce,
      ]);
      // The demo data's item and code, so that "Try it out" answers 200 on a store with the demo data.
      expect(item.parameters[0].example).toBe(DEMO_ITEM_ID);
      const validation = document.paths['/api/purchases/validation'].post;
      expect(validation.parameters).toEqual([nonce]);
      expect(validation.requestBody.required).toBe(true);
      expect(Object.keys(validation.requestBody.content)).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
      ]);
      for (const media of Object.values<Json>(validation.requestBody.content)) {
        // `instance` is optional: without it, validation answers as it always did.
        expect(Object.keys(media.schema.properties)).toEqual(['purchase_code', 'instance']);
        expect(media.schema.required).toEqual(['purchase_code']);
        expect(media.example).toEqual({ purchase_code: DEMO_PURCHASE_CODE });
      }
      for (const path of ['/api/account/details', '/api/items/all']) {
        expect(document.paths[path].get.parameters).toEqual([nonce]);
      }
      for (const operations of Object.values<Json>(document.paths)) {
        expect(Object.keys(operations)).toHaveLength(1);
        expect(['get', 'post']).toContain(Object.keys(operations)[0]);
      }
      expect(document.info.description).toContain(
        variant.lang === 'pt' ? 'também responde a HEAD' : 'also answers HEAD',
      );
    });

    it("says the package's version, has one Webhooks section, and types whole numbers as integers", async () => {
      const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
      expect(document.info.version).toBe(manifest.version);
      // Swagger UI heads the webhooks "Webhooks" itself: a tag of that name would be a second heading.
      expect(document.tags.map((tag: Json) => tag.name)).toEqual(['API']);
      for (const hook of Object.values<Json>(document.webhooks)) expect(hook.post.tags).toBeUndefined();
      const itemId = document.paths['/api/items/item'].get.parameters[0];
      expect(itemId.schema).toEqual({ type: 'integer', minimum: 1, maximum: 999_999_999_999_999 });
      const top = document.paths['/api/purchases/activity/top'].get.parameters;
      expect(top.map((param: Json) => [param.name, param.schema, param.example])).toEqual([
        ['days', { type: 'integer', minimum: 1, maximum: 90 }, 30],
        ['limit', { type: 'integer', minimum: 1, maximum: 100 }, 50],
        ['Signature-Nonce', { type: 'string', minLength: 1, maxLength: 255 }, '4f1c2e'],
      ]);
      // An integer in a query string is its digits, which the API reads as one.
      const response = await t.app.inject({
        url: url(variant, '/api/items/item', [['item_id', String(ITEMS.i101.line.id)]]),
        headers: { 'x-api-key': KEYS.alice },
      });
      expect(response.statusCode).toBe(200);
    });

    it("speaks the variant's language in every text", () => {
      const texts: string[] = [];
      const collect = (node: unknown, key = ''): void => {
        if (typeof node === 'string' && ['description', 'summary'].includes(key)) texts.push(node);
        else if (Array.isArray(node)) for (const child of node) collect(child);
        else if (node !== null && typeof node === 'object')
          for (const [childKey, child] of Object.entries(node)) collect(child, childKey);
      };
      collect(document);
      expect(texts.length).toBeGreaterThan(50);
      const english = ['The ', 'Every ', 'Only ', ' the ', ' is ', ' of ', ' and '];
      const portuguese = [' de ', ' da ', ' do ', ' não ', 'Um ', 'Uma ', ' o ', ' é '];
      const found = texts.filter((text) =>
        (variant.lang === 'pt' ? english : portuguese).some((word) => text.includes(word)),
      );
      expect(found).toEqual([]);
      const summaries = Object.values<Json>(document.paths).map(
        (operations) => Object.values<Json>(operations)[0].summary,
      );
      expect(summaries).toEqual(
        variant.lang === 'pt'
          ? [
              'Detalhes da conta',
              'Todos os itens',
              'Um item',
              'Validar um código de compra',
              'Como um código de compra é usado',
              'Códigos usados a partir de mais redes',
              'Ativar uma instalação',
              'Liberar uma instalação',
              'Token de licença offline',
            ]
          : [
              'Account details',
              'All items',
              'One item',
              'Validate a purchase code',
              'How a purchase code is used',
              'Codes used from the most networks',
              'Activate an install',
              'Release an install',
              'Offline license token',
            ],
      );
    });

    it("accepts the API's real answers with its own schemas (each route, each status the test can cause)", async () => {
      // The document's schemas as they are, components by name (strict Ajv knows no `openapi` keyword),
      // in a plain strict Ajv as an integrator would use: no keyword of ours.
      const ajv = new Ajv({ strict: true, allErrors: true });
      const local = (schema: unknown): unknown =>
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"'));
      for (const [name, schema] of Object.entries<Json>(document.components.schemas))
        ajv.addSchema(local(schema) as Json, name);
      const schemaFor = (path: string, method: string, status: number) =>
        ajv.compile(local(document.paths[path][method].responses[status].content['application/json'].schema) as Json);
      const key = { 'x-api-key': KEYS.alice };
      const cases: { path: string; method: 'get' | 'post'; status: number; request: Json }[] = [
        { path: '/api/account/details', method: 'get', status: 200, request: { headers: key } },
        {
          path: '/api/account/details',
          method: 'get',
          status: 401,
          request: { headers: { 'x-api-key': UNKNOWN_KEY } },
        },
        { path: '/api/account/details', method: 'get', status: 400, request: {} },
        { path: '/api/items/all', method: 'get', status: 200, request: { headers: key } },
        { path: '/api/items/all', method: 'get', status: 404, request: { headers: { 'x-api-key': KEYS.cleo } } },
        {
          path: '/api/items/item',
          method: 'get',
          status: 200,
          request: { headers: key, query: { item_id: String(ITEMS.i101.line.id) } },
        },
        {
          path: '/api/items/item',
          method: 'get',
          status: 404,
          request: { headers: key, query: { item_id: '999999' } },
        },
        { path: '/api/items/item', method: 'get', status: 400, request: { headers: key, query: { item_id: 'x' } } },
        { path: '/api/items/item', method: 'get', status: 405, request: { method: 'POST', headers: key } },
        {
          path: '/api/purchases/validation',
          method: 'post',
          status: 200,
          request: { headers: key, payload: { purchase_code: PURCHASES.regular.line.code } },
        },
        {
          path: '/api/purchases/validation',
          method: 'post',
          status: 200,
          request: form([['purchase_code', PURCHASES.extendedUnsupportedItem.line.code as string]], key),
        },
        {
          path: '/api/purchases/validation',
          method: 'post',
          status: 404,
          request: multipart([['purchase_code', 'NOPE-1']], [], key),
        },
        {
          path: '/api/purchases/validation',
          method: 'post',
          status: 400,
          request: { headers: { ...key, 'content-type': 'application/json' }, payload: '{' },
        },
        {
          path: '/api/purchases/validation',
          method: 'post',
          status: 415,
          request: { headers: { ...key, 'content-type': 'text/plain' }, payload: 'x' },
        },
        {
          path: '/api/purchases/validation',
          method: 'post',
          status: 413,
          request: { headers: { ...key, 'content-type': 'application/json' }, payload: `"${'x'.repeat(70_000)}"` },
        },
        { path: '/api/purchases/validation', method: 'post', status: 405, request: { method: 'GET', headers: key } },
      ];
      // Activations: made (201), found again (200), the limit (409), a release (200) and an unknown one (404).
      await t.store.activations().setActivationLimit(ITEMS.i101.line.id as number, 1);
      const activation = (path: string, status: number, instance: string) => ({
        path,
        method: 'post' as const,
        status,
        request: { headers: key, payload: { purchase_code: PURCHASES.regular.line.code, instance } },
      });
      cases.push(
        activation('/api/purchases/activations', 201, `docs-${variant.lang}`),
        activation('/api/purchases/activations', 200, `docs-${variant.lang}`),
        activation('/api/purchases/validation', 200, `docs-${variant.lang}`),
        activation('/api/purchases/activations', 409, `docs-${variant.lang}-2`),
        activation('/api/purchases/deactivation', 200, `docs-${variant.lang}`),
        activation('/api/purchases/deactivation', 404, `docs-${variant.lang}`),
      );
      for (const { path, method, status, request } of cases) {
        const response = await t.app.inject({
          method: method.toUpperCase() as 'GET',
          url: url(variant, path),
          ...request,
        });
        expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(status);
        const validate = schemaFor(path, method, status);
        expect(
          validate(JSON.parse(response.body)),
          `${method} ${path} ${status}: ${JSON.stringify(validate.errors)}`,
        ).toBe(true);
      }
    });
  });

  it("bounds the top list's days by activity.retentionDays, in the document as in the answers", async () => {
    const kept = await createTestApp(kind, { lines: ALL_LINES, configFile: { activity: { retentionDays: 365 } } });
    try {
      const document = JSON.parse((await kept.app.inject({ url: '/openapi.json' })).body) as Json;
      const days = (document.paths['/api/purchases/activity/top'].get.parameters as Json[]).find(
        (parameter) => parameter.name === 'days',
      );
      expect(days?.schema).toEqual({ type: 'integer', minimum: 1, maximum: 365 });
      const top = (query: string) =>
        kept.app.inject({ url: `/api/purchases/activity/top?${query}`, headers: { 'x-api-key': KEYS.alice } });
      expect((await top('days=365')).statusCode).toBe(200);
      const over = await top('days=366');
      expect(over.statusCode).toBe(400);
      expect(JSON.parse(over.body).msg).toContain('365');
    } finally {
      await kept.close();
    }
  });

  it('gives a variant on its own host that host as its server', async () => {
    const hosted = await createTestApp(kind, {
      configFile: {
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'pt', baseUrl: 'https://api.example.com.br/', currency: 'BRL', rate: '5.00' },
        ],
      },
    });
    try {
      const pt = await hosted.app.inject({ url: '/openapi.json', headers: { host: 'api.example.com.br' } });
      expect(JSON.parse(pt.body).servers).toEqual([{ url: 'https://api.example.com.br' }]);
      expect(JSON.parse(pt.body).info.title).toBe('marketplace-api (pt)');
      const en = await hosted.app.inject({ url: '/openapi.json', headers: { host: 'localhost' } });
      expect(JSON.parse(en.body).servers).toEqual([{ url: '/' }]);
      const docs = await hosted.app.inject({ url: '/docs', headers: { host: 'api.example.com.br' } });
      expect(docs.body).toContain('<html lang="pt-BR">');
      const start = await hosted.app.inject({ url: '/docs/docs-start.js', headers: { host: 'api.example.com.br' } });
      expect(start.body).toContain('"url":"/openapi.json"');
      expect(start.body).toContain('"Try it out":"Experimentar"');
    } finally {
      await hosted.close();
    }
  });
});
