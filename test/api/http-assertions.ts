import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestVariant } from '../helpers/test-app.js';

/** The headers every answer carries, success or error (SPEC 2.2 rule 5). */
export function expectContractHeaders(response: LightMyRequestResponse): void {
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(Object.keys(response.headers).filter((name) => name.toLowerCase().startsWith('access-control-'))).toEqual([]);
}

/** Status, headers, and the body byte for byte: key order included. */
export function expectJson(response: LightMyRequestResponse, status: number, body: unknown): void {
  expect({ status: response.statusCode, body: response.body }).toEqual({ status, body: JSON.stringify(body) });
  expectContractHeaders(response);
}

/** An error answer: exactly `{"status": <error word>, "msg": <msg>}` (SPEC 2.3). */
export function expectError(
  response: LightMyRequestResponse,
  variant: Pick<TestVariant, 'error'>,
  status: number,
  msg: string,
): void {
  expectJson(response, status, { status: variant.error, msg });
}

/** A 400 for a parameter: the envelope, and a sentence naming the parameter (SPEC 2.3); returns the sentence. */
export function expectParamError(
  response: LightMyRequestResponse,
  variant: Pick<TestVariant, 'error'>,
  name: string,
): string {
  expect(response.statusCode, response.body).toBe(400);
  expectContractHeaders(response);
  const body = JSON.parse(response.body) as { status: unknown; msg: unknown };
  expect(Object.keys(body)).toEqual(['status', 'msg']);
  expect(body.status).toBe(variant.error);
  expect(typeof body.msg).toBe('string');
  expect(body.msg).toContain(name);
  return body.msg as string;
}

/** A 400 for the body itself: the envelope, naming no parameter (it is not about one). */
export function expectMalformedBody(response: LightMyRequestResponse, variant: Pick<TestVariant, 'error'>): string {
  expect(response.statusCode, response.body).toBe(400);
  expectContractHeaders(response);
  const body = JSON.parse(response.body) as { status: unknown; msg: unknown };
  expect(Object.keys(body)).toEqual(['status', 'msg']);
  expect(body.status).toBe(variant.error);
  expect(body.msg).toEqual(expect.any(String));
  expect(body.msg).not.toMatch(/api_key|purchase_code|item_id/);
  return body.msg as string;
}

/** A URL under the variant's base, with query parameters encoded as given (repeats allowed). */
export function url(
  variant: Pick<TestVariant, 'base'>,
  path: string,
  query: readonly (readonly [string, string])[] = [],
): string {
  const search = new URLSearchParams(query.map(([name, value]): [string, string] => [name, value])).toString();
  return `${variant.base}${path}${search ? `?${search}` : ''}`;
}

/** A multipart/form-data body (what PHP's curl sends for an array), fields and optionally a file. */
export function multipart(
  fields: readonly (readonly [string, string])[],
  files: readonly { name: string; filename: string; content: string }[] = [],
  headers: Readonly<Record<string, string>> = {},
): { payload: string; headers: { 'content-type': string } } {
  const boundary = '------------------------marketplaceTestBoundary42';
  const parts = fields.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  for (const file of files) {
    parts.push(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\n` +
        `Content-Type: application/octet-stream\r\n\r\n${file.content}\r\n`,
    );
  }
  return {
    payload: `${parts.join('')}--${boundary}--\r\n`,
    headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

/** A form-urlencoded body. */
export function form(
  fields: readonly (readonly [string, string])[],
  headers: Readonly<Record<string, string>> = {},
): {
  payload: string;
  headers: { 'content-type': string };
} {
  return {
    payload: new URLSearchParams(fields.map(([name, value]): [string, string] => [name, value])).toString(),
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/**
 * How far behind Date.now() the server's reading of a request's time may be: it derives the wall
 * time from performance.now() and an offset read with Date.now()'s whole milliseconds once a
 * second (src/server/wall-clock.ts), floored again, so up to two milliseconds before a reading
 * taken just ahead of the request, and more as the two clocks drift within that second: the
 * offset moved by 0.3–0.6 ms from one second to the next on these machines, and a reset one
 * second too long was seen with a slack of 2 ms. A few milliseconds still tell every second apart.
 */
const SERVER_CLOCK_SLACK_MS = 5;

/** The seconds RateLimit-Reset may show for a request sent between `before` and `after` (Date.now() readings). */
export function resetsBetween(before: number, after: number, windowSeconds: number): string[] {
  const at = (time: number) => {
    const windowMs = windowSeconds * 1000;
    return String(Math.max(1, Math.ceil(((Math.floor(time / windowMs) + 1) * windowMs - time) / 1000)));
  };
  // Every second the request spent in the server can be the one it read the clock in: on a busy
  // machine a request took four, and the values between the ends were missed.
  const times = [after];
  for (let time = before - SERVER_CLOCK_SLACK_MS; time < after; time += 1000) times.push(time);
  return [...new Set(times.map(at))];
}
