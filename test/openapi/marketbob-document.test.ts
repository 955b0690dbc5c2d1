import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { marketbobMessages } from '../../src/variants/marketbob-texts.js';
import { MARKETBOB_BODIES, MARKETBOB_PURCHASE } from '../helpers/marketbob-bodies.js';
import { MARKETBOB_OPERATIONS, marketbobAnswerProblems } from '../helpers/marketbob-contract.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

// A parsed OpenAPI document, read freely by the assertions below.
// biome-ignore lint/suspicious/noExplicitAny: the document is JSON of no declared type
type Json = Record<string, any>;

/** Two variants in MarketBob's shape beside the shipped two, which must stay as committed. */
const MB_VARIANTS = [
  { lang: 'en', base: '/mb', currency: 'USD', rate: '1' },
  { lang: 'pt', base: '/mbpt', currency: 'BRL', rate: '5.00' },
] as const;

const committed = (lang: string) => readFileSync(new URL(`../../openapi/${lang}.json`, import.meta.url), 'utf8');

/** Every example of every response: its path, method, status and value. */
function responseExamples(document: Json) {
  const found: { path: string; method: string; status: number; value: Json }[] = [];
  for (const [path, operations] of Object.entries<Json>(document.paths)) {
    for (const [method, operation] of Object.entries<Json>(operations)) {
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        const media = response.content['application/json'];
        const values = [media.example, ...Object.values<Json>(media.examples ?? {}).map((e) => e.value)];
        for (const value of values.filter(Boolean)) found.push({ path, method, status: Number(status), value });
      }
    }
  }
  return found;
}

/** The document's own schemas in a plain strict Ajv, as an integrator would use them. */
function documentValidators(document: Json) {
  const ajv = new Ajv({ strict: true, allErrors: true });
  const local = (schema: unknown): Json => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"'));
  for (const [name, schema] of Object.entries<Json>(document.components.schemas)) ajv.addSchema(local(schema), name);
  return (path: string, method: string, status: number) =>
    ajv.compile(local(document.paths[path][method].responses[status].content['application/json'].schema));
}

describe.each(TEST_STORES)("%s store: a marketbob variant's document", (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, {
      configFile: {
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'pt', baseUrl: '/pt', currency: 'BRL', rate: '5.00' },
          ...MB_VARIANTS.map(({ base, ...rest }) => ({ ...rest, baseUrl: base, shape: 'marketbob' as const })),
        ],
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('leaves the contract variants’ documents as committed', async () => {
    for (const [lang, base] of [
      ['en', ''],
      ['pt', '/pt'],
    ]) {
      const response = await t.app.inject({ url: `${base}/openapi.json` });
      // The served document adds the deployment's public keys to the committed introduction.
      const served = JSON.parse(response.body);
      const shipped = JSON.parse(committed(lang as string));
      expect(served.info.description.startsWith(`${shipped.info.description}\n\n`)).toBe(true);
      expect({ ...served, info: { ...served.info, description: '' } }).toEqual({
        ...shipped,
        info: { ...shipped.info, description: '' },
      });
    }
  });

  describe.each(MB_VARIANTS)('$lang at $base', (variant) => {
    const messages = marketbobMessages(variant.lang);
    let document: Json;
    beforeAll(async () => {
      const response = await t.app.inject({ url: `${variant.base}/openapi.json` });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      document = JSON.parse(response.body);
    });

    it('validates as OpenAPI 3.1 with an independent validator; its server and key are MarketBob’s way', async () => {
      const validator = new Validator();
      const result = await validator.validate(document);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(document.servers).toEqual([{ url: variant.base }]);
      expect(document.info.title).toBe(`marketplace-api (${variant.lang}, MarketBob)`);
      expect(document.info.description).toContain(JSON.stringify(messages.apiKeyRequired));
      expect(document.security).toEqual([{ apiKey: [] }]);
      expect(document.components.securitySchemes).toEqual({
        apiKey: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'api_key' }),
      });
      expect(Object.keys(document.components.schemas)).toEqual([
        'MarketbobAccount',
        'MarketbobItem',
        'MarketbobPurchase',
      ]);
      expect(document.webhooks).toBeUndefined();
    });

    it('has the four endpoints, each with MarketBob’s statuses and messages', () => {
      const statuses = Object.fromEntries(
        Object.entries<Json>(document.paths).map(([path, operations]) => {
          const [method, operation] = Object.entries<Json>(operations)[0] as [string, Json];
          return [`${method} ${path}`, Object.keys(operation.responses)];
        }),
      );
      expect(statuses).toEqual({
        'get /api/account/details': ['200', '400', '401', '404'],
        'get /api/items/all': ['200', '400', '404'],
        'get /api/items/item': ['200', '400', '404'],
        'post /api/purchases/validation': ['200', '400', '404'],
      });
      const errors = responseExamples(document)
        .filter((example) => example.status !== 200)
        .map(({ path, status, value }) => [path, status, value.status, value.msg]);
      expect(errors).toEqual([
        ['/api/account/details', 400, 'error', messages.apiKeyRequired],
        ['/api/account/details', 401, 'error', messages.invalidRequest],
        ['/api/account/details', 404, 'error', messages.notFound],
        ['/api/items/all', 400, 'error', messages.apiKeyRequired],
        ['/api/items/all', 404, 'error', messages.noItemsFound],
        ['/api/items/all', 404, 'error', messages.notFound],
        ['/api/items/item', 400, 'error', messages.apiKeyRequired],
        ['/api/items/item', 400, 'error', messages.itemIdRequired],
        ['/api/items/item', 400, 'error', messages.itemIdNotInteger],
        ['/api/items/item', 404, 'error', messages.itemNotFound],
        ['/api/items/item', 404, 'error', messages.notFound],
        ['/api/purchases/validation', 400, 'error', messages.apiKeyRequired],
        ['/api/purchases/validation', 400, 'error', messages.purchaseCodeRequired],
        ['/api/purchases/validation', 404, 'error', messages.invalidPurchaseCode],
        ['/api/purchases/validation', 404, 'error', messages.notFound],
      ]);
      const item = document.paths['/api/items/item'].get;
      expect(item.parameters).toEqual([expect.objectContaining({ name: 'item_id', in: 'query', required: true })]);
      const validation = document.paths['/api/purchases/validation'].post;
      expect(Object.keys(validation.requestBody.content)).toEqual([
        'application/json',
        'application/x-www-form-urlencoded',
      ]);
    });

    it('gives examples in MarketBob’s shape, each valid by the document and by the schemas', () => {
      const validatorFor = documentValidators(document);
      const examples = responseExamples(document);
      expect(examples.filter((e) => e.status === 200)).toHaveLength(4);
      for (const { path, method, status, value } of examples) {
        const validate = validatorFor(path, method, status);
        expect(validate(value), `${path} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
        const operation = MARKETBOB_OPERATIONS[path];
        if (!operation) throw new Error(`no operation for ${path}`);
        expect(marketbobAnswerProblems(operation, variant.lang, status, JSON.stringify(value))).toEqual([]);
      }
      const success = (path: string) => examples.find((e) => e.path === path && e.status === 200)?.value as Json;
      expect(success('/api/account/details').data.currency).toBe(variant.currency);
      expect(success('/api/items/all').items.map((item: Json) => item.media)).toEqual([
        {
          thumbnail: expect.any(String),
          preview_image: expect.any(String),
          screenshots: { '0': expect.any(String) },
        },
        { thumbnail: expect.any(String), preview_audio: expect.any(String) },
      ]);
      expect(Object.keys(success('/api/purchases/validation'))).toEqual(['status', 'item']);
      expect(success('/api/purchases/validation').item.date).toMatch(/\.\d{6}Z$/);
    });

    it('accepts MarketBob’s own bodies and refuses the contract’s with its own schemas', () => {
      const validatorFor = documentValidators(document);
      const accepts = (path: string, method: string, body: unknown) => {
        const validate = validatorFor(path, method, 200);
        return validate(body) || JSON.stringify(validate.errors);
      };
      expect(accepts('/api/account/details', 'get', JSON.parse(MARKETBOB_BODIES.accountDetails))).toBe(true);
      expect(accepts('/api/items/all', 'get', JSON.parse(MARKETBOB_BODIES.itemsAll))).toBe(true);
      expect(accepts('/api/items/item', 'get', JSON.parse(MARKETBOB_BODIES.itemsItem))).toBe(true);
      expect(accepts('/api/purchases/validation', 'post', JSON.parse(MARKETBOB_BODIES.purchaseValidation))).toBe(true);
      // The contract's validation body: the purchase under data.purchase, tags a list, dates with milliseconds.
      expect(
        accepts('/api/purchases/validation', 'post', { status: 'success', data: { purchase: MARKETBOB_PURCHASE } }),
      ).not.toBe(true);
      const item = JSON.parse(MARKETBOB_BODIES.itemsItem).item as Json;
      expect(accepts('/api/items/item', 'get', { status: 'success', item: { ...item, tags: ['a'] } })).not.toBe(true);
      expect(
        accepts('/api/items/item', 'get', {
          status: 'success',
          item: { ...item, published_at: '2023-01-15T09:30:00.000Z' },
        }),
      ).not.toBe(true);
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
      expect(texts.length).toBeGreaterThan(30);
      const english = ['The ', 'Every ', 'Only ', ' the ', ' is ', ' of ', ' and '];
      const portuguese = [' de ', ' da ', ' do ', ' não ', 'Um ', 'Uma ', ' o ', ' é '];
      const found = texts.filter((text) =>
        (variant.lang === 'pt' ? english : portuguese).some((word) => text.includes(word)),
      );
      expect(found).toEqual([]);
    });

    it('serves the docs page over this document', async () => {
      const page = await t.app.inject({ url: `${variant.base}/docs` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain(`<html lang="${variant.lang === 'pt' ? 'pt-BR' : 'en'}">`);
      const start = await t.app.inject({ url: `${variant.base}/docs/docs-start.js` });
      expect(start.statusCode).toBe(200);
      expect(start.body).toContain(`"url":"${variant.base}/openapi.json"`);
    });
  });
});
