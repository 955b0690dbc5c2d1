import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateAccountKey } from '../../src/operations/account-keys.js';
import { createNamedKey } from '../../src/operations/named-keys.js';
import { en as enTexts } from '../../src/variants/en.js';
import { errorKinds, errorStatus } from '../../src/variants/error-kinds.js';
import { pt as ptTexts } from '../../src/variants/pt.js';
import { rawExchange } from '../helpers/raw-http.js';
import { createTestApp, TEST_STORES, type TestApp, type TestVariant, VARIANTS } from '../helpers/test-app.js';
import { ALL_LINES, KEYS, PURCHASES, UNKNOWN_KEY } from './fixtures.js';
import { expectError, expectMalformedBody, expectParamError, url } from './http-assertions.js';

/**
 * SPEC 2.2, 2.2.1 and 2.3: which error wins, 401 in every disguise, 429, 500, 503, and the error
 * catalogue. Every answer a store's pass gets is recorded, so its last test can check that each
 * kind of the catalogue was seen in both languages on that store.
 */

const texts = { en: enTexts, pt: ptTexts } as const;

interface Observed {
  readonly lang: string;
  readonly status: number;
  readonly msg: string;
  /** The X-Error-Code and X-Request-Id headers it came with. */
  readonly code: unknown;
  readonly requestId: unknown;
}

/** Sends a request and records the error it answers with, if any, in `observed`. */
async function sendRecorded(
  observed: Observed[],
  app: FastifyInstance,
  variant: TestVariant,
  options: InjectOptions,
): Promise<LightMyRequestResponse> {
  const response = await app.inject(options);
  if (response.statusCode >= 400 && response.body !== '') {
    const body = JSON.parse(response.body) as { msg?: unknown };
    if (typeof body.msg === 'string') {
      observed.push({
        lang: variant.lang,
        status: response.statusCode,
        msg: body.msg,
        code: response.headers['x-error-code'],
        requestId: response.headers['x-request-id'],
      });
    }
  }
  return response;
}

const PATHS = {
  details: '/api/account/details',
  all: '/api/items/all',
  item: '/api/items/item',
  validation: '/api/purchases/validation',
} as const;

/** Runs SQL on a test app's store behind its back, as an operator or a faulty tool would. */
async function runSql(t: TestApp, sql: string): Promise<void> {
  if (t.config.store.kind === 'sqlite') {
    const database = new Database(t.config.store.path);
    try {
      database.exec(sql);
    } finally {
      database.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: t.config.store.url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe.each(TEST_STORES)('%s store', (kind) => {
  // This store's pass only: the catalogue check below must be able to fail on either store.
  const observed: Observed[] = [];
  const send = (app: FastifyInstance, variant: TestVariant, options: InjectOptions) =>
    sendRecorded(observed, app, variant, options);
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('order of checks ($lang)', (variant) => {
    const request = (options: InjectOptions) => send(t.app, variant, options);
    const bigJson = JSON.stringify({ purchase_code: 'x', padding: 'x'.repeat(70 * 1024) });

    it('key before scope, scope before the resource: a validate key gets 400, then 403 key_scope, never 404', async () => {
      const named = await createNamedKey(t.store, t.keys, 'alice', `scope ${variant.lang}`, 'validate');
      if (!named) throw new Error('alice has no account');
      const headers = { 'x-api-key': named.key };
      expectParamError(await request({ url: url(variant, PATHS.item), headers }), variant, 'item_id');
      for (const path of [PATHS.details, PATHS.all, `${PATHS.item}?item_id=999999`]) {
        const response = await request({ url: url(variant, path), headers });
        expectError(response, variant, 403, texts[variant.lang].messages.keyScope);
        expect(response.headers['x-error-code']).toBe('key_scope');
      }
    });

    it('route first: an unknown path with a malformed body is 404', async () => {
      const response = await request({
        method: 'POST',
        url: url(variant, '/api/unknown'),
        headers: { 'content-type': 'application/json', 'x-api-key': UNKNOWN_KEY },
        payload: '{oops',
      });
      expectError(response, variant, 404, variant.messages.notFound);
    });

    it('route first: a wrong method on a known path with a malformed or oversized body is 405', async () => {
      for (const payload of ['{oops', bigJson]) {
        const response = await request({
          method: 'PUT',
          url: url(variant, PATHS.validation),
          headers: { 'content-type': 'application/json' },
          payload,
        });
        expectError(response, variant, 405, variant.messages.methodNotAllowed);
        expect(response.headers.allow).toBe('POST');
      }
    });

    it('route first: a wrong method without any key is 405, not 400', async () => {
      expectError(
        await request({ method: 'POST', url: url(variant, PATHS.details) }),
        variant,
        405,
        variant.messages.methodNotAllowed,
      );
    });

    it('body before parameters and key: 413 with no parameters and an unknown key', async () => {
      const withLength = await request({
        method: 'POST',
        url: url(variant, PATHS.validation),
        headers: { 'content-type': 'application/json', 'x-api-key': UNKNOWN_KEY },
        payload: bigJson,
      });
      expectError(withLength, variant, 413, variant.messages.bodyTooLarge);
      const chunked = await request({
        method: 'POST',
        url: url(variant, PATHS.validation),
        headers: { 'content-type': 'application/json' },
        payload: Readable.from([Buffer.from(bigJson)]),
      });
      expectError(chunked, variant, 413, variant.messages.bodyTooLarge);
    });

    it('body before parameters: 413 comes before 415 when the length is declared', async () => {
      const response = await request({
        method: 'POST',
        url: url(variant, PATHS.validation),
        headers: { 'content-type': 'text/plain' },
        payload: 'x'.repeat(65 * 1024),
      });
      expectError(response, variant, 413, variant.messages.bodyTooLarge);
    });

    it('body before parameters: 415 with no parameters at all', async () => {
      const response = await request({
        method: 'POST',
        url: url(variant, PATHS.validation),
        headers: { 'content-type': 'text/plain' },
        payload: 'purchase_code=x',
      });
      expectError(response, variant, 415, variant.messages.unsupportedContentType);
    });

    it('body before parameters: a malformed body with no key is the body’s 400, not the parameter’s', async () => {
      const response = await request({
        method: 'POST',
        url: url(variant, PATHS.validation),
        headers: { 'content-type': 'application/json' },
        payload: '{"purchase_code": ',
      });
      expectMalformedBody(response, variant);
    });

    it('parameters before key: 400 for a missing or malformed parameter even with an unknown key', async () => {
      const headers = { 'x-api-key': UNKNOWN_KEY };
      expectParamError(
        await request({ method: 'POST', url: url(variant, PATHS.validation), headers, payload: {} }),
        variant,
        'purchase_code',
      );
      expectParamError(
        await request({ method: 'GET', url: url(variant, PATHS.item, [['item_id', '-1']]), headers }),
        variant,
        'item_id',
      );
      expectParamError(await request({ method: 'GET', url: url(variant, PATHS.item), headers }), variant, 'item_id');
    });

    it('parameters before key: conflicting keys are 400 even when one is valid', async () => {
      expectParamError(
        await request({
          method: 'GET',
          url: url(variant, PATHS.details, [['api_key', UNKNOWN_KEY]]),
          headers: { 'x-api-key': KEYS.alice },
        }),
        variant,
        'api_key',
      );
    });

    it('key before resource: 401 rather than 404 for an unknown key', async () => {
      const headers = { 'x-api-key': UNKNOWN_KEY };
      for (const options of [
        { method: 'GET', url: url(variant, PATHS.all) },
        { method: 'GET', url: url(variant, PATHS.item, [['item_id', '999']]) },
        { method: 'POST', url: url(variant, PATHS.validation), payload: { purchase_code: 'NO-SUCH-CODE' } },
        { method: 'POST', url: url(variant, PATHS.validation), payload: { purchase_code: 'x'.repeat(101) } },
      ] as const) {
        expectError(await request({ ...options, headers }), variant, 401, variant.messages.invalidRequest);
      }
    });

    it('resource last: 404s with a good key', async () => {
      expectError(
        await request({ method: 'GET', url: url(variant, PATHS.all), headers: { 'x-api-key': KEYS.cleo } }),
        variant,
        404,
        variant.messages.noItems,
      );
      expectError(
        await request({
          method: 'GET',
          url: url(variant, PATHS.item, [['item_id', '999']]),
          headers: { 'x-api-key': KEYS.alice },
        }),
        variant,
        404,
        variant.messages.itemNotFound,
      );
      expectError(
        await request({
          method: 'POST',
          url: url(variant, PATHS.validation),
          headers: { 'x-api-key': KEYS.alice },
          payload: { purchase_code: 'NO-SUCH-CODE' },
        }),
        variant,
        404,
        variant.messages.invalidPurchaseCode,
      );
    });
  });

  describe('401 "invalid request", never saying why (SPEC 2.2 rule 1, 2.2.1)', () => {
    let rotatedKey: string;
    beforeAll(async () => {
      const key = (await rotateAccountKey(t.store, t.keys, 'rory'))?.key;
      if (key === undefined) throw new Error('rory should exist');
      rotatedKey = key;
    });

    describe.each(VARIANTS)('$lang', (variant) => {
      const onEveryEndpoint = async (key: string) => {
        const headers = { 'x-api-key': key };
        return Promise.all([
          send(t.app, variant, { method: 'GET', url: url(variant, PATHS.details), headers }),
          send(t.app, variant, { method: 'GET', url: url(variant, PATHS.all), headers }),
          send(t.app, variant, { method: 'GET', url: url(variant, PATHS.item, [['item_id', '601']]), headers }),
          send(t.app, variant, {
            method: 'POST',
            url: url(variant, PATHS.validation),
            headers,
            payload: { purchase_code: 'RORY-0001' },
          }),
        ]);
      };
      const expectAll401 = async (key: string) => {
        for (const response of await onEveryEndpoint(key)) {
          expectError(response, variant, 401, variant.messages.invalidRequest);
        }
      };

      it.each([
        ['well-formed but unknown', UNKNOWN_KEY],
        ['too short to be a key', 'x'],
        ['very long', 'k'.repeat(2000)],
        ['of odd characters', 'ключ-🔑-<script>'],
        ['a real key in other letter case', KEYS.alice.toUpperCase()],
        ['a real key with a character more', `${KEYS.alice}0`],
        ['a real key with a character less', KEYS.alice.slice(0, -1)],
      ])('a key %s', async (_name, key) => {
        await expectAll401(key);
      });

      it('a key of a suspended account', async () => {
        await expectAll401(KEYS.sam);
      });

      it('a key that was replaced (rotateAccountKey): the old one fails, the new one works, at once', async () => {
        await expectAll401(KEYS.rory);
        for (const response of await onEveryEndpoint(rotatedKey)) expect(response.statusCode).toBe(200);
      });
    });
  });

  describe('429 after too many failed attempts (config limits)', () => {
    let limited: TestApp;
    beforeAll(async () => {
      limited = await createTestApp(kind, {
        configFile: {
          limits: {
            clientFailures: { max: 3, windowSeconds: 86_400 },
            keyClientFailures: { max: 2, windowSeconds: 86_400 },
          },
        },
        lines: ALL_LINES,
      });
    });
    afterAll(async () => {
      await limited.close();
    });

    describe.each(VARIANTS.map((variant, index) => ({ ...variant, client: `10.0.0.${index + 1}` })))(
      '$lang',
      (variant) => {
        const from = (client: string, options: InjectOptions) =>
          send(limited.app, variant, { ...options, remoteAddress: client });
        const badKey = () => ({
          method: 'GET' as const,
          url: url(variant, PATHS.details),
          headers: { 'x-api-key': UNKNOWN_KEY },
        });
        const badCode = () => ({
          method: 'POST' as const,
          url: url(variant, PATHS.validation),
          headers: { 'x-api-key': KEYS.alice },
          payload: { purchase_code: 'GUESS-0001' },
        });
        const good = () => ({
          method: 'GET' as const,
          url: url(variant, PATHS.details),
          headers: { 'x-api-key': KEYS.alice },
        });

        it('answers the 4th unknown key from a client with 429, Retry-After and the variant’s message', async () => {
          const client = variant.client;
          // Successes do not use up the budget.
          for (let i = 0; i < 5; i += 1) expect((await from(client, good())).statusCode).toBe(200);
          expect((await from(client, badKey())).statusCode).toBe(401);
          expect((await from(client, badKey())).statusCode).toBe(401);
          expect((await from(client, good())).statusCode).toBe(200);
          expect((await from(client, badKey())).statusCode).toBe(401);

          const limitedResponse = await from(client, badKey());
          expectError(limitedResponse, variant, 429, variant.messages.tooManyRequests);
          const retryAfter = limitedResponse.headers['retry-after'];
          expect(retryAfter).toMatch(/^\d+$/);
          expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
          expect(Number(retryAfter)).toBeLessThanOrEqual(86_400);

          // Refused before anything else, a valid key included.
          const againGood = await from(client, good());
          expectError(againGood, variant, 429, variant.messages.tooManyRequests);
          expect(againGood.headers['retry-after']).toMatch(/^\d+$/);
        });

        it('answers the 3rd invalid code with one key from a client with 429', async () => {
          const client = `${variant.client}0`;
          expect((await from(client, badCode())).statusCode).toBe(404);
          expect((await from(client, good())).statusCode).toBe(200);
          expect((await from(client, badCode())).statusCode).toBe(404);
          const limitedResponse = await from(client, badCode());
          expectError(limitedResponse, variant, 429, variant.messages.tooManyRequests);
          expect(limitedResponse.headers['retry-after']).toMatch(/^\d+$/);
        });

        it('limits each client on its own', async () => {
          const other = `192.0.2.${variant.lang === 'en' ? 10 : 20}`;
          expect((await from(other, good())).statusCode).toBe(200);
          expect((await from(other, badKey())).statusCode).toBe(401);
        });
      },
    );
  });

  describe('503 when the store is unavailable', () => {
    let broken: TestApp;
    beforeAll(async () => {
      broken = await createTestApp(kind, { lines: ALL_LINES });
      await broken.store.close();
    });
    afterAll(async () => {
      // Closing a closed store again does nothing: this closes the app and drops the database.
      await broken.close();
    });

    describe.each(VARIANTS)('$lang', (variant) => {
      it.each([
        ['GET', PATHS.details, undefined],
        ['GET', PATHS.all, undefined],
        ['GET', `${PATHS.item}?item_id=101`, undefined],
        ['POST', PATHS.validation, { purchase_code: 'ALICE-REG-0001' }],
      ] as const)('%s %s answers 503 "Service unavailable" and nothing internal', async (method, path, payload) => {
        const response = await send(broken.app, variant, {
          method,
          url: `${variant.base}${path}`,
          headers: { 'x-api-key': KEYS.alice },
          ...(payload ? { payload } : {}),
        });
        expectError(response, variant, 503, variant.messages.serviceUnavailable);
      });
    });
  });

  describe('408 when a request does not arrive in time (config server.requestTimeoutSeconds)', () => {
    let slow: TestApp;
    let port: number;
    beforeAll(async () => {
      slow = await createTestApp(kind, {
        configFile: { server: { requestTimeoutSeconds: 0.5, headersTimeoutSeconds: 0.5 } },
        lines: ALL_LINES,
      });
      await slow.app.listen({ host: '127.0.0.1', port: 0 });
      port = (slow.app.server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await slow.close();
    });

    it.each(VARIANTS)('answers a body that stops halfway in $lang', async (variant) => {
      const answer = await rawExchange(port, [
        `POST ${variant.base}${PATHS.validation} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
          `Content-Length: 100\r\n\r\n{`,
      ]);
      const body = JSON.parse(answer.body) as { status: string; msg: string };
      observed.push({
        lang: variant.lang,
        status: answer.status,
        msg: body.msg,
        code: answer.headers['x-error-code'],
        requestId: answer.headers['x-request-id'],
      });
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 408,
        body: JSON.stringify({ status: variant.error, msg: texts[variant.lang].messages.requestTimeout }),
      });
    });
  });

  describe('500 for anything unexpected', () => {
    let faulty: TestApp;
    beforeAll(async () => {
      // A real fault: alice's stored social links are no longer the JSON the importer wrote, so
      // serialising her account throws where no rule foresees it.
      faulty = await createTestApp(kind, { lines: ALL_LINES });
      await runSql(faulty, "UPDATE accounts SET social_links = 'SELECT * FROM accounts' WHERE username = 'alice'");
    });
    afterAll(async () => {
      await faulty.close();
    });

    describe.each(VARIANTS)('$lang', (variant) => {
      it('answers 500 "Internal error" with no stack, SQL or path', async () => {
        const response = await send(faulty.app, variant, {
          method: 'GET',
          url: url(variant, PATHS.details),
          headers: { 'x-api-key': KEYS.alice },
        });
        expectError(response, variant, 500, variant.messages.internal);
        expect(response.body).not.toMatch(/SELECT|SQLITE|postgres|\/tmp|\.ts|\bat\s|Error/);
      });

      it('logs the unexpected error for the operator, without the key', async () => {
        const errors = faulty.logs.filter((line) => line.includes('"msg":"unexpected error"'));
        expect(errors.length).toBeGreaterThan(0);
        expect(errors.every((line) => line.includes('"level":50') && line.includes('SyntaxError'))).toBe(true);
        expect(faulty.logs.filter((line) => line.includes(KEYS.alice))).toEqual([]);
      });
    });
  });

  describe.each(VARIANTS)('activations ($lang)', (variant) => {
    it('answers 409 at the limit and 404 for an instance the code does not hold, in the variant’s words', async () => {
      await t.store.activations().setActivationLimit(PURCHASES.regular.line.item_id, 1);
      const activation = (path: string, instance: string) =>
        send(t.app, variant, {
          method: 'POST',
          url: url(variant, path),
          headers: { 'x-api-key': KEYS.alice },
          payload: { purchase_code: PURCHASES.regular.line.code, instance },
        });
      expect((await activation('/api/purchases/activations', `errors-${variant.lang}`)).statusCode).toBe(201);
      const full = await activation('/api/purchases/activations', `errors-${variant.lang}-2`);
      expectError(full, variant, 409, texts[variant.lang].messages.activationLimit);
      expect((await activation('/api/purchases/deactivation', `errors-${variant.lang}`)).statusCode).toBe(200);
      const unknown = await activation('/api/purchases/deactivation', `errors-${variant.lang}`);
      expectError(unknown, variant, 404, texts[variant.lang].messages.activationNotFound);
    });
  });

  describe('the error catalogue (src/variants/error-kinds.ts)', () => {
    const kinds = Object.keys(errorStatus) as (keyof typeof errorStatus)[];

    it.each(VARIANTS)('gives every kind a message in $lang, the SPEC 2.3 text where the SPEC fixes one', (variant) => {
      const messages = texts[variant.lang].messages;
      for (const kind of kinds) expect(messages[kind], kind).toMatch(/\S/);
      for (const [kind, msg] of Object.entries(variant.messages)) {
        expect(messages[kind as keyof typeof messages], kind).toBe(msg);
      }
      expect([texts[variant.lang].statusOk, texts[variant.lang].statusError]).toEqual([variant.ok, variant.error]);
    });

    it.each(VARIANTS)('has had every kind answered in $lang by the tests above, with its status', (variant) => {
      const language = texts[variant.lang];
      const parameterSentences = ['api_key', 'purchase_code', 'item_id'].flatMap((name) => [
        language.parameter.missing(name),
        language.parameter.conflicting(name),
        language.parameter.malformed(name, language.expectations.positiveInteger),
        language.parameter.malformed(name, language.expectations.text),
      ]);
      const seen = (kind: (typeof kinds)[number]) =>
        observed.some(
          (o) =>
            o.lang === variant.lang &&
            o.status === errorStatus[kind] &&
            (o.msg === language.messages[kind] || (kind === 'badParameter' && parameterSentences.includes(o.msg))),
        );
      expect(kinds.filter((kind) => !seen(kind))).toEqual([]);
      // And nothing was answered that the catalogue does not hold.
      const known = new Set([...kinds.map((kind) => `${errorStatus[kind]} ${language.messages[kind]}`)]);
      const unknown = observed.filter(
        (o) => o.lang === variant.lang && !known.has(`${o.status} ${o.msg}`) && !parameterSentences.includes(o.msg),
      );
      expect(unknown).toEqual([]);
    });

    it.each(VARIANTS)('sent, with every error in $lang, X-Error-Code for its kind and an X-Request-Id', (variant) => {
      const language = texts[variant.lang];
      const answered = observed.filter((o) => o.lang === variant.lang);
      expect(answered.length).toBeGreaterThan(20);
      const wrong = answered.filter((o) => {
        const kind = kinds.find((k) => errorStatus[k] === o.status && language.messages[k] === o.msg);
        const expected = kind === undefined ? 'bad_parameter' : errorKinds[kind].code;
        return o.code !== expected || typeof o.requestId !== 'string' || o.requestId === '';
      });
      expect(wrong).toEqual([]);
    });
  });
});
