import { connect } from 'node:net';
import { Readable } from 'node:stream';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ALL_LINES, KEYS, PURCHASES, UNKNOWN_KEY } from './fixtures.js';
import { form, multipart, url } from './http-assertions.js';

/**
 * SPEC 2.2 rule 5 and 6: keys never appear in a log line or an answer; no CORS; nothing internal
 * in an answer. The app logs at trace, the most it can say, while requests carry keys and purchase
 * codes every way a client may send them, succeeding and failing.
 */

/** A key that matches no account: it must not be logged either. */
const STRANGER_KEY = 'stranger_key_9f8e7d6c5b4a3210';
const SECRETS = [...Object.values(KEYS), UNKNOWN_KEY, STRANGER_KEY];
const CODES = [PURCHASES.regular.line.code, PURCHASES.bobs.line.code, 'GUESSED-CODE-12345'];

/** The secret as text, and as the list of byte values a logged Buffer turns into. */
function traces(secret: string): string[] {
  return [secret, Array.from(Buffer.from(secret)).join(','), Buffer.from(secret).toString('base64')];
}

function leaksIn(text: string, secrets: readonly string[]): string[] {
  return secrets.filter((secret) => traces(secret).some((trace) => text.includes(trace)));
}

describe.each(TEST_STORES)('%s store', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { logLevel: 'trace', lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('keys and codes stay out of logs and answers ($lang)', (variant) => {
    const responses: LightMyRequestResponse[] = [];
    const send = async (options: InjectOptions) => {
      const response = await t.app.inject(options);
      responses.push(response);
      return response;
    };
    const code = PURCHASES.regular.line.code;
    const validation = url(variant, '/api/purchases/validation');

    beforeAll(async () => {
      for (const key of [KEYS.alice, STRANGER_KEY, KEYS.sam]) {
        for (const path of ['/api/account/details', '/api/items/all', '/api/items/item?item_id=101']) {
          const target = `${variant.base}${path}`;
          const withQuery = `${target}${target.includes('?') ? '&' : '?'}api_key=${key}`;
          await send({ method: 'GET', url: target, headers: { 'x-api-key': key } });
          await send({ method: 'GET', url: target, headers: { authorization: `Bearer ${key}` } });
          await send({ method: 'GET', url: withQuery });
          await send({ method: 'HEAD', url: withQuery });
          await send({ method: 'DELETE', url: withQuery, headers: { 'x-api-key': key } });
          await send({
            method: 'GET',
            url: target,
            headers: { 'content-type': 'application/json' },
            payload: { api_key: key },
          });
        }
        for (const purchaseCode of CODES) {
          await send({ method: 'POST', url: validation, payload: { api_key: key, purchase_code: purchaseCode } });
          await send({ method: 'POST', url: `${validation}?api_key=${key}&purchase_code=${purchaseCode}` });
          await send({
            method: 'POST',
            url: validation,
            ...form([
              ['api_key', key],
              ['purchase_code', purchaseCode],
            ]),
          });
          await send({
            method: 'POST',
            url: validation,
            ...multipart(
              [
                ['api_key', key],
                ['purchase_code', purchaseCode],
              ],
              [],
              { authorization: `Bearer ${key}` },
            ),
          });
          await send({
            method: 'POST',
            url: validation,
            ...multipart([['purchase_code', purchaseCode]], [{ name: 'f', filename: 'f.txt', content: key }], {
              'x-api-key': key,
            }),
          });
        }
        // Failing on the way in: conflict, malformed, too large, wrong type, unknown path.
        await send({
          method: 'GET',
          url: `${variant.base}/api/account/details?api_key=${key}`,
          headers: { 'x-api-key': STRANGER_KEY },
        });
        await send({
          method: 'POST',
          url: validation,
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          payload: `{"api_key":"${key}","purchase_code":"${code}"`,
        });
        await send({
          method: 'POST',
          url: validation,
          headers: { 'content-type': 'application/json' },
          payload: JSON.stringify({ api_key: key, purchase_code: code, padding: 'x'.repeat(70 * 1024) }),
        });
        await send({
          method: 'POST',
          url: validation,
          headers: { 'content-type': 'application/json' },
          payload: Readable.from([Buffer.from(JSON.stringify({ api_key: key, padding: 'x'.repeat(70 * 1024) }))]),
        });
        await send({
          method: 'POST',
          url: validation,
          ...multipart([
            ['api_key', key],
            ['padding', 'x'.repeat(70 * 1024)],
          ]),
          payload: Readable.from([
            Buffer.from(
              multipart([
                ['api_key', key],
                ['padding', 'x'.repeat(70 * 1024)],
              ]).payload,
            ),
          ]),
        });
        await send({
          method: 'POST',
          url: validation,
          headers: { 'content-type': 'multipart/form-data', 'x-api-key': key },
          payload: `api_key=${key}`,
        });
        await send({
          method: 'POST',
          url: validation,
          headers: { 'content-type': 'text/plain' },
          payload: `api_key=${key}`,
        });
        await send({ method: 'GET', url: `${variant.base}/api/nothing?api_key=${key}&purchase_code=${code}` });
      }
    });

    it('sent a varied series of requests, and the app logged them', () => {
      const statuses = new Set(responses.map((r) => r.statusCode));
      expect([...statuses].sort()).toEqual([200, 400, 401, 404, 405, 413, 415]);
      expect(t.logs.length).toBeGreaterThanOrEqual(responses.length);
    });

    it('logged no key and no purchase code, in any form', () => {
      const logged = t.logs.join('\n');
      expect(leaksIn(logged, SECRETS)).toEqual([]);
      expect(
        leaksIn(
          logged.toLowerCase(),
          CODES.map((c) => c.toLowerCase()),
        ),
      ).toEqual([]);
    });

    it('echoed no key in any answer, headers included', () => {
      for (const response of responses) {
        const answer = `${JSON.stringify(response.headers)}\n${response.body}`;
        expect(leaksIn(answer, SECRETS)).toEqual([]);
      }
    });

    it('sent no CORS header in any answer', () => {
      for (const response of responses) {
        expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
      }
    });

    it('said nothing internal in any error answer', () => {
      for (const response of responses.filter((r) => r.statusCode >= 400 && r.body !== '')) {
        expect(Object.keys(JSON.parse(response.body))).toEqual(['status', 'msg']);
        expect(response.body).not.toMatch(/stack|Error:|FST_|\/src\/|node_modules|SELECT|sqlite/i);
      }
    });
  });

  describe('a request Node cannot even parse, on a real socket', () => {
    it('does not log the key it carried, not even as raw bytes', async () => {
      const address = await t.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = new URL(address);
      const answer = await new Promise<string>((resolve, reject) => {
        let received = '';
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `GET /api/items/all?api_key=${STRANGER_KEY} HTTP/1.1\r\nHost: localhost\r\n` +
              `X-Api-Key: ${KEYS.alice}\r\nAuthorization: Bearer ${KEYS.bob}\r\nThis is not a header\r\n\r\n`,
          );
        });
        socket.on('data', (chunk) => {
          received += String(chunk);
        });
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toContain('\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n');
      expect(answer.endsWith('\r\n\r\n{"status":"error","msg":"The request is malformed"}')).toBe(true);
      expect(leaksIn(t.logs.join('\n'), SECRETS)).toEqual([]);
    });
  });
});
