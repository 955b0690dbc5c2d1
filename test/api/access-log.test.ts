import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { ALL_LINES, KEYS } from './fixtures.js';

/**
 * Issue 20, item 13: the debug access log names the route a request matched, never the path it
 * asked for (a path may hold a purchase code or a username, a query string a key); a request no
 * route matched names none. Read from the app's captured log lines.
 */

const TOKEN = 'access-log-admin-token-0123456789abcdef';
const ADMIN = { authorization: `Bearer ${TOKEN}` };

interface AccessLine {
  readonly reqId: string;
  readonly method: string;
  readonly route: string | null;
  readonly status: number;
}

describe('access log (debug)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ logLevel: 'debug', lines: ALL_LINES, env: { ADMIN_TOKEN: TOKEN } });
  });
  afterAll(async () => {
    await t.close();
  });

  /** Sends the request with a fresh request id; the access line written for it, and every line it led to. */
  let sent = 0;
  const accessLineOf = async (options: {
    method: 'GET' | 'POST';
    url: string;
    headers?: Record<string, string>;
    payload?: object;
  }) => {
    sent += 1;
    const reqId = `access-log-${sent}`;
    const response = await t.app.inject({ ...options, headers: { ...options.headers, 'x-request-id': reqId } });
    const lines = t.logs.filter((text) => text.includes(`"reqId":"${reqId}"`));
    const access = lines.map((text) => JSON.parse(text)).filter((entry) => entry.msg === 'request');
    expect(access).toHaveLength(1);
    const { method, route, status } = access[0] as AccessLine;
    return { response, line: { method, route, status }, text: lines.join('') };
  };

  it('names the admin route’s pattern, never the purchase code or username in its path', async () => {
    const downloaded = await accessLineOf({
      method: 'POST',
      url: '/admin/v1/purchases/ALICE-REG-0001/downloaded',
      headers: ADMIN,
    });
    expect(downloaded.response.statusCode).toBe(200);
    expect(downloaded.line).toEqual({ method: 'POST', route: '/admin/v1/purchases/:code/downloaded', status: 200 });
    expect(downloaded.text).not.toMatch(/ALICE-REG-0001/i);

    const unknown = await accessLineOf({
      method: 'POST',
      url: '/admin/v1/purchases/NO-SUCH-CODE-77/refund',
      headers: ADMIN,
    });
    expect(unknown.line).toEqual({ method: 'POST', route: '/admin/v1/purchases/:code/refund', status: 404 });
    expect(unknown.text).not.toContain('NO-SUCH-CODE-77');

    const suspend = await accessLineOf({ method: 'POST', url: '/admin/v1/accounts/dora/suspend', headers: ADMIN });
    expect(suspend.line).toEqual({ method: 'POST', route: '/admin/v1/accounts/:username/suspend', status: 200 });
    expect(suspend.text).not.toContain('dora');
  });

  it('names the API route under each variant base, without the query string or the key', async () => {
    const item = await accessLineOf({ method: 'GET', url: `/api/items/item?item_id=101&api_key=${KEYS.alice}` });
    expect(item.line).toEqual({ method: 'GET', route: '/api/items/item', status: 200 });
    expect(item.text).not.toContain(KEYS.alice);
    const details = await accessLineOf({
      method: 'GET',
      url: '/pt/api/account/details/',
      headers: { 'x-api-key': KEYS.cleo },
    });
    expect(details.line).toEqual({ method: 'GET', route: '/pt/api/account/details', status: 200 });
  });

  it('names no route, and no path, for a request no route matched', async () => {
    const unmatched = await accessLineOf({ method: 'GET', url: '/api/SECRET-IN-PATH-1/x?k=SECRET-IN-QUERY-1' });
    expect(unmatched.line).toEqual({ method: 'GET', route: null, status: 404 });
    expect(unmatched.text).not.toMatch(/SECRET-IN-(PATH|QUERY)-1/);
    const wrongMethod = await accessLineOf({ method: 'GET', url: '/pt/api/purchases/validation' });
    expect(wrongMethod.line).toEqual({ method: 'GET', route: null, status: 405 });
    const adminUnknown = await accessLineOf({ method: 'GET', url: '/admin/v1/SECRET-IN-PATH-2', headers: ADMIN });
    expect(adminUnknown.line.status).toBe(404);
    expect(adminUnknown.text).not.toContain('SECRET-IN-PATH-2');
  });
});
