import { Readable } from 'node:stream';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ACCOUNTS, ALL_LINES, expectedPurchase, KEYS, PURCHASES, UNKNOWN_KEY } from './fixtures.js';
import {
  expectError,
  expectJson,
  expectMalformedBody,
  expectParamError,
  form,
  multipart,
  url,
} from './http-assertions.js';

/** SPEC 2.1: where parameters may come from, and what the body may be. */

const DETAILS = '/api/account/details';
const VALIDATION = '/api/purchases/validation';
const KIB = 1024;
const CODE = PURCHASES.regular.line.code;

describe.each(TEST_STORES)('%s store', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Request options; `params` go in the query string, in order, repeats allowed. */
  type Request = Omit<InjectOptions, 'method' | 'url' | 'query'> & { params?: [string, string][] };

  /** A JSON text of exactly `bytes` bytes holding the given fields and a padding field. */
  function jsonOfSize(bytes: number, fields: Record<string, string>): string {
    const empty = JSON.stringify({ ...fields, padding: '' });
    return JSON.stringify({ ...fields, padding: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
  }

  /** A payload sent chunked: no Content-Length, so the size is only known by reading. */
  function chunked(text: string, chunkSize = 8 * KIB): Readable {
    const buffer = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < buffer.length; offset += chunkSize) {
      chunks.push(buffer.subarray(offset, offset + chunkSize));
    }
    return Readable.from(chunks);
  }

  describe.each(VARIANTS)('parameters and bodies ($lang)', (variant) => {
    const inject = (options: InjectOptions) => t.app.inject(options);
    const aliceDetails = { status: variant.ok, data: ACCOUNTS.alice.expected[variant.lang] };
    const validPurchase = { status: variant.ok, data: { purchase: expectedPurchase(PURCHASES.regular, variant) } };
    const details = ({ params = [], ...options }: Request = {}) =>
      inject({ ...options, method: 'GET', url: url(variant, DETAILS, params) });
    const validation = ({ params = [], ...options }: Request = {}) =>
      inject({ ...options, method: 'POST', url: url(variant, VALIDATION, params) });

    describe('api_key', () => {
      it('comes from the X-Api-Key header', async () => {
        expectJson(await details({ headers: { 'x-api-key': KEYS.alice } }), 200, aliceDetails);
      });

      it('comes from Authorization: Bearer', async () => {
        expectJson(await details({ headers: { authorization: `Bearer ${KEYS.alice}` } }), 200, aliceDetails);
      });

      it('comes from Authorization with the scheme in any letter case (RFC 9110 11.1)', async () => {
        expectJson(await details({ headers: { authorization: `bearer ${KEYS.alice}` } }), 200, aliceDetails);
      });

      it('comes from the query string', async () => {
        expectJson(await details({ params: [['api_key', KEYS.alice]] }), 200, aliceDetails);
      });

      it('comes from a JSON body', async () => {
        expectJson(await validation({ payload: { api_key: KEYS.alice, purchase_code: CODE } }), 200, validPurchase);
      });

      it('comes from a form body', async () => {
        const body = form([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
        ]);
        expectJson(await validation(body), 200, validPurchase);
      });

      it('comes from a multipart body', async () => {
        const body = multipart([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
        ]);
        expectJson(await validation(body), 200, validPurchase);
      });

      it('works from every place on every endpoint', async () => {
        const places: [string, Omit<InjectOptions, 'method' | 'url'>, [string, string][]][] = [
          ['header', { headers: { 'x-api-key': KEYS.solo } }, []],
          ['bearer', { headers: { authorization: `Bearer ${KEYS.solo}` } }, []],
          ['query', {}, [['api_key', KEYS.solo]]],
        ];
        for (const [place, options, query] of places) {
          for (const [path, extra] of [
            ['/api/account/details', []],
            ['/api/items/all', []],
            ['/api/items/item', [['item_id', '301']]],
          ] as const) {
            const response = await inject({ ...options, method: 'GET', url: url(variant, path, [...query, ...extra]) });
            expect({ place, path, status: response.statusCode }).toEqual({ place, path, status: 200 });
          }
        }
      });

      it('is not read from an Authorization header of another scheme', async () => {
        expectParamError(await details({ headers: { authorization: `Basic ${KEYS.alice}` } }), variant, 'api_key');
        expectParamError(await details({ headers: { authorization: KEYS.alice } }), variant, 'api_key');
      });

      it('answers 400 naming api_key when it arrives in several places with different values', async () => {
        const conflicts: [string, Request][] = [
          ['header and query', { headers: { 'x-api-key': KEYS.alice }, params: [['api_key', KEYS.bob]] }],
          ['header and bearer', { headers: { 'x-api-key': KEYS.alice, authorization: `Bearer ${KEYS.bob}` } }],
          [
            'bearer and query',
            { headers: { authorization: `Bearer ${KEYS.alice}` }, params: [['api_key', UNKNOWN_KEY]] },
          ],
          [
            'query twice',
            {
              params: [
                ['api_key', KEYS.alice],
                ['api_key', KEYS.bob],
              ],
            },
          ],
        ];
        for (const [name, options] of conflicts) {
          const response = await details(options);
          expect({ name, status: response.statusCode }).toEqual({ name, status: 400 });
          expectParamError(response, variant, 'api_key');
        }
        const bodyConflicts: [string, Request][] = [
          [
            'header and JSON body',
            { headers: { 'x-api-key': KEYS.alice }, payload: { api_key: KEYS.bob, purchase_code: CODE } },
          ],
          [
            'bearer and form body',
            form(
              [
                ['api_key', KEYS.bob],
                ['purchase_code', CODE],
              ],
              { authorization: `Bearer ${KEYS.alice}` },
            ),
          ],
          [
            'query and multipart body',
            {
              params: [['api_key', KEYS.alice]],
              ...multipart([
                ['api_key', KEYS.bob],
                ['purchase_code', CODE],
              ]),
            },
          ],
          [
            'multipart field twice',
            multipart([
              ['api_key', KEYS.alice],
              ['api_key', KEYS.bob],
              ['purchase_code', CODE],
            ]),
          ],
          [
            'form field twice',
            form([
              ['api_key', KEYS.alice],
              ['api_key', KEYS.bob],
              ['purchase_code', CODE],
            ]),
          ],
        ];
        for (const [name, options] of bodyConflicts) {
          const response = await validation(options);
          expect({ name, status: response.statusCode }).toEqual({ name, status: 400 });
          expectParamError(response, variant, 'api_key');
        }
      });

      it('is fine when the same value arrives in several places (after trimming)', async () => {
        expectJson(
          await details({
            headers: { 'x-api-key': KEYS.alice, authorization: `Bearer ${KEYS.alice}` },
            params: [
              ['api_key', ` ${KEYS.alice} `],
              ['api_key', KEYS.alice],
            ],
          }),
          200,
          aliceDetails,
        );
        expectJson(
          await validation({
            headers: { 'x-api-key': KEYS.alice, authorization: `Bearer ${KEYS.alice}` },
            params: [['api_key', KEYS.alice]],
            payload: { api_key: `\t${KEYS.alice}`, purchase_code: CODE },
          }),
          200,
          validPurchase,
        );
        expectJson(
          await validation(
            multipart([
              ['api_key', KEYS.alice],
              ['api_key', KEYS.alice],
              ['purchase_code', CODE],
            ]),
          ),
          200,
          validPurchase,
        );
      });

      it('treats an empty header as absent', async () => {
        expectJson(
          await details({ headers: { 'x-api-key': '' }, params: [['api_key', KEYS.alice]] }),
          200,
          aliceDetails,
        );
        expectJson(await details({ headers: { authorization: '', 'x-api-key': KEYS.alice } }), 200, aliceDetails);
        expectJson(
          await details({ headers: { authorization: 'Bearer ', 'x-api-key': KEYS.alice } }),
          200,
          aliceDetails,
        );
        expectParamError(await details({ headers: { 'x-api-key': '' } }), variant, 'api_key');
      });

      it('treats a white-space-only value as missing, wherever it comes from', async () => {
        expectParamError(await details({ params: [['api_key', '   ']] }), variant, 'api_key');
        expectParamError(await details({ headers: { 'x-api-key': '   ' } }), variant, 'api_key');
        expectJson(
          await details({ headers: { 'x-api-key': ' \t ' }, params: [['api_key', KEYS.alice]] }),
          200,
          aliceDetails,
        );
        expectJson(
          await validation({ headers: { 'x-api-key': KEYS.alice }, payload: { api_key: '  ', purchase_code: CODE } }),
          200,
          validPurchase,
        );
      });

      it('is trimmed', async () => {
        expectJson(await details({ params: [['api_key', `  ${KEYS.alice}\t`]] }), 200, aliceDetails);
        expectJson(await details({ headers: { 'x-api-key': ` ${KEYS.alice} ` } }), 200, aliceDetails);
      });

      it('answers 400 naming api_key when a JSON body gives it as something other than text', async () => {
        for (const value of [{ key: KEYS.alice }, true]) {
          const response = await validation({ payload: { api_key: value, purchase_code: CODE } });
          expectParamError(response, variant, 'api_key');
        }
      });

      it('is read from no body of a GET: a key only in a GET body is missing', async () => {
        expectParamError(
          await details({ headers: { 'content-type': 'application/json' }, payload: { api_key: KEYS.alice } }),
          variant,
          'api_key',
        );
        expectParamError(await details(form([['api_key', KEYS.alice]])), variant, 'api_key');
      });
    });

    describe('purchase_code', () => {
      const withKey = { 'x-api-key': KEYS.alice };

      it('comes from the query string of a POST', async () => {
        expectJson(await validation({ headers: withKey, params: [['purchase_code', CODE]] }), 200, validPurchase);
      });

      it('comes from a JSON body', async () => {
        expectJson(await validation({ headers: withKey, payload: { purchase_code: CODE } }), 200, validPurchase);
      });

      it('comes from a JSON body with a charset', async () => {
        expectJson(
          await validation({
            headers: { ...withKey, 'content-type': 'application/json; charset=utf-8' },
            payload: JSON.stringify({ purchase_code: CODE }),
          }),
          200,
          validPurchase,
        );
      });

      it('comes from a form body', async () => {
        expectJson(await validation(form([['purchase_code', CODE]], withKey)), 200, validPurchase);
      });

      it('comes from a multipart body', async () => {
        expectJson(await validation(multipart([['purchase_code', CODE]], [], withKey)), 200, validPurchase);
      });

      it('answers 400 naming purchase_code when query and body disagree', async () => {
        expectParamError(
          await validation({
            headers: withKey,
            params: [['purchase_code', CODE]],
            payload: { purchase_code: 'BOB-0001' },
          }),
          variant,
          'purchase_code',
        );
      });

      it('is fine when query and body agree', async () => {
        expectJson(
          await validation({ headers: withKey, params: [['purchase_code', CODE]], payload: { purchase_code: CODE } }),
          200,
          validPurchase,
        );
      });

      it('answers 400 naming purchase_code when a JSON body gives it as something other than text', async () => {
        expectParamError(
          await validation({ headers: withKey, payload: { purchase_code: { code: CODE } } }),
          variant,
          'purchase_code',
        );
        expectParamError(
          await validation({ headers: withKey, payload: { purchase_code: [CODE, 'OTHER-1'] } }),
          variant,
          'purchase_code',
        );
      });

      it('treats a white-space-only value as missing', async () => {
        expectParamError(
          await validation({ headers: withKey, payload: { purchase_code: ' \t ' } }),
          variant,
          'purchase_code',
        );
        expectParamError(
          await validation({ headers: withKey, params: [['purchase_code', '  ']] }),
          variant,
          'purchase_code',
        );
        expectParamError(await validation(form([['purchase_code', '   ']], withKey)), variant, 'purchase_code');
      });
    });

    describe('unknown parameters and fields', () => {
      it('are ignored in the query string', async () => {
        expectJson(
          await details({
            params: [
              ['foo', 'bar'],
              ['api_key', KEYS.alice],
              ['purchase_code', 'x'],
              ['item_id', 'abc'],
            ],
          }),
          200,
          aliceDetails,
        );
      });

      it('are ignored in a JSON body, whatever their type', async () => {
        expectJson(
          await validation({
            payload: {
              api_key: KEYS.alice,
              purchase_code: CODE,
              extra: { deep: [1, null, true] },
              api_keys: 'x',
              n: 1,
            },
          }),
          200,
          validPurchase,
        );
      });

      it('are ignored in form and multipart bodies, files included', async () => {
        const formBody = form([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
          ['unknown', 'value'],
        ]);
        expectJson(await validation(formBody), 200, validPurchase);
        const multipartBody = multipart(
          [
            ['api_key', KEYS.alice],
            ['purchase_code', CODE],
            ['unknown', 'value'],
            // Names an object would treat specially are just fields too.
            ['__proto__', 'value'],
            ['constructor', 'value'],
          ],
          [{ name: 'attachment', filename: 'license.txt', content: 'not read' }],
        );
        expectJson(await validation(multipartBody), 200, validPurchase);
      });

      it('a file part is not a field: a key sent only as a file does not count', async () => {
        const body = multipart(
          [['purchase_code', CODE]],
          [{ name: 'api_key', filename: 'key.txt', content: KEYS.alice }],
        );
        expectParamError(await validation(body), variant, 'api_key');
      });
    });

    describe('a body on a GET', () => {
      const withKey = { 'x-api-key': KEYS.alice };

      it('is ignored when malformed', async () => {
        expectJson(
          await details({ headers: { ...withKey, 'content-type': 'application/json' }, payload: '{"api_key":' }),
          200,
          aliceDetails,
        );
      });

      it('is ignored whatever its content type', async () => {
        expectJson(
          await details({ headers: { ...withKey, 'content-type': 'text/plain' }, payload: 'hello' }),
          200,
          aliceDetails,
        );
      });

      it('is ignored whatever its size', async () => {
        expectJson(
          await details({
            headers: { ...withKey, 'content-type': 'application/json' },
            payload: jsonOfSize(100 * KIB, { api_key: KEYS.bob }),
          }),
          200,
          aliceDetails,
        );
      });
    });

    describe('POST bodies', () => {
      it('answers 415 for a content type other than JSON, form and multipart', async () => {
        for (const contentType of [
          'text/plain',
          'application/xml',
          'text/html; charset=utf-8',
          'application/octet-stream',
        ]) {
          const response = await validation({
            headers: { 'content-type': contentType, 'x-api-key': KEYS.alice },
            payload: `purchase_code=${CODE}`,
          });
          expect({ contentType, status: response.statusCode }).toEqual({ contentType, status: 415 });
          expectError(response, variant, 415, variant.messages.unsupportedContentType);
        }
      });

      it('answers 415 for a body without a content type', async () => {
        const response = await validation({
          headers: { 'x-api-key': KEYS.alice },
          payload: Buffer.from(`purchase_code=${CODE}`),
        });
        expectError(response, variant, 415, variant.messages.unsupportedContentType);
      });

      it('accepts a POST with no body at all, parameters in the query', async () => {
        expectJson(
          await validation({
            params: [
              ['api_key', KEYS.alice],
              ['purchase_code', CODE],
            ],
          }),
          200,
          validPurchase,
        );
      });

      it.each(['{', '{"purchase_code":}', "{'purchase_code':'x'}", 'nul', '{"purchase_code":"x"} trailing'])(
        'answers 400 for malformed JSON %j',
        async (payload) => {
          const response = await validation({
            headers: { 'x-api-key': KEYS.alice, 'content-type': 'application/json' },
            payload,
          });
          expectMalformedBody(response, variant);
        },
      );

      it('answers 400 for a multipart body without a boundary', async () => {
        const response = await validation({
          headers: { 'x-api-key': KEYS.alice, 'content-type': 'multipart/form-data' },
          payload: 'purchase_code=x',
        });
        expect(response.statusCode).toBe(400);
        expectMalformedBody(response, variant);
      });

      it('answers 400 for JSON that is not an object', async () => {
        for (const payload of ['[]', '"text"', 'null', '42']) {
          const response = await validation({
            headers: { 'x-api-key': KEYS.alice, 'content-type': 'application/json' },
            payload,
          });
          expect({ payload, status: response.statusCode }).toEqual({ payload, status: 400 });
        }
      });

      it('accepts a body of exactly 64 KiB', async () => {
        const payload = jsonOfSize(64 * KIB, { api_key: KEYS.alice, purchase_code: CODE });
        expect(Buffer.byteLength(payload)).toBe(64 * KIB);
        expectJson(await validation({ headers: { 'content-type': 'application/json' }, payload }), 200, validPurchase);
      });

      it('answers 413 for a JSON body over 64 KiB, with a Content-Length', async () => {
        const payload = jsonOfSize(64 * KIB + 1, { api_key: KEYS.alice, purchase_code: CODE });
        const response = await validation({ headers: { 'content-type': 'application/json' }, payload });
        expectError(response, variant, 413, variant.messages.bodyTooLarge);
      });

      it('answers 413 for form and multipart bodies over 64 KiB, with a Content-Length', async () => {
        const formBody = form([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
          ['padding', 'x'.repeat(64 * KIB)],
        ]);
        expectError(await validation(formBody), variant, 413, variant.messages.bodyTooLarge);
        const multipartBody = multipart([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
          ['padding', 'x'.repeat(64 * KIB)],
        ]);
        expectError(await validation(multipartBody), variant, 413, variant.messages.bodyTooLarge);
      });

      it('answers 413 for bodies over 64 KiB sent chunked (no Content-Length)', async () => {
        const padding = 'x'.repeat(100 * KIB);
        const bodies: [string, string, string][] = [
          ['json', 'application/json', JSON.stringify({ api_key: KEYS.alice, purchase_code: CODE, padding })],
          [
            'form',
            form([]).headers['content-type'],
            form([
              ['api_key', KEYS.alice],
              ['purchase_code', CODE],
              ['padding', padding],
            ]).payload,
          ],
        ];
        const multipartBody = multipart([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
          ['padding', padding],
        ]);
        bodies.push(['multipart', multipartBody.headers['content-type'], multipartBody.payload]);
        // Many small fields, none of them large on its own.
        const manyFields = multipart([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
          ...Array.from({ length: 100 }, (_, index): [string, string] => [`field${index}`, 'y'.repeat(KIB)]),
        ]);
        bodies.push(['multipart, many fields', manyFields.headers['content-type'], manyFields.payload]);
        for (const [name, contentType, text] of bodies) {
          const response = await validation({ headers: { 'content-type': contentType }, payload: chunked(text) });
          expect({ name, status: response.statusCode }).toEqual({ name, status: 413 });
          expectError(response, variant, 413, variant.messages.bodyTooLarge);
        }
      });

      it('answers 413, not a hang, when a chunked multipart body goes over 64 KiB inside a file part', async () => {
        const body = multipart(
          [['purchase_code', CODE]],
          [{ name: 'upload', filename: 'big.bin', content: 'z'.repeat(100 * KIB) }],
          {
            'x-api-key': KEYS.alice,
          },
        );
        const response = await validation({ headers: body.headers, payload: chunked(body.payload, KIB) });
        expectError(response, variant, 413, variant.messages.bodyTooLarge);
      });

      it('accepts a small multipart body with many fields and files, ignoring them', async () => {
        const body = multipart(
          [
            ['purchase_code', CODE],
            ...Array.from({ length: 300 }, (_, index): [string, string] => [`extra${index}`, 'v']),
          ],
          Array.from({ length: 100 }, (_, index) => ({ name: `file${index}`, filename: 'f.txt', content: 'f' })),
          { 'x-api-key': KEYS.alice },
        );
        expect(Buffer.byteLength(body.payload)).toBeLessThan(64 * KIB);
        expectJson(await validation(body), 200, validPurchase);
      });

      it('accepts a form body with many fields, ignoring them', async () => {
        const body = form(
          [
            ['purchase_code', CODE],
            ...Array.from({ length: 2000 }, (_, index): [string, string] => [`extra${index}`, 'v']),
          ],
          { 'x-api-key': KEYS.alice },
        );
        expectJson(await validation(body), 200, validPurchase);
      });

      it('accepts chunked bodies up to 64 KiB', async () => {
        const json = jsonOfSize(64 * KIB, { api_key: KEYS.alice, purchase_code: CODE });
        expectJson(
          await validation({ headers: { 'content-type': 'application/json' }, payload: chunked(json) }),
          200,
          validPurchase,
        );
        const multipartBody = multipart([
          ['api_key', KEYS.alice],
          ['purchase_code', CODE],
          ['padding', 'x'.repeat(60 * KIB)],
        ]);
        expectJson(
          await validation({ headers: multipartBody.headers, payload: chunked(multipartBody.payload) }),
          200,
          validPurchase,
        );
      });
    });

    it('writes parameter errors in the variant’s language', async () => {
      const message = expectParamError(await details(), variant, 'api_key');
      const other = VARIANTS.find((v) => v.lang !== variant.lang);
      if (!other) throw new Error('two variants expected');
      const otherMessage = JSON.parse((await t.app.inject({ method: 'GET', url: url(other, DETAILS) })).body).msg;
      expect(message).not.toBe(otherMessage);
    });
  });
});
