import { Webhook } from 'standardwebhooks';
import type { ConfigFile } from '../../src/config.js';
import { createTestApp, type StoreKind, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';
import type { Received } from './receiver.js';

export const TOKEN = 'admin-token-0123456789abcdef';
export const AUTH = { authorization: `Bearer ${TOKEN}` };
export const KEY = 'jdoe-key-0123456789abcdef';

/** Short waits everywhere, so that retries happen within a test; http to the loopback receiver allowed. */
export const FAST_WEBHOOKS: NonNullable<ConfigFile['webhooks']> = {
  allowHttp: true,
  allowHosts: ['127.0.0.1'],
  pollSeconds: 0.02,
  retryBaseSeconds: 0.05,
  timeoutSeconds: 2,
  maxAttempts: 3,
};

export const configWith = (webhooks: ConfigFile['webhooks']): ConfigFile => ({ webhooks });

export const LINES = [
  accountLine({ api_key: KEY }),
  itemLine(),
  purchaseLine({ code: 'ABC-123_x', downloaded: false }),
  purchaseLine({ code: 'CODE-2', downloaded: false }),
  purchaseLine({ code: 'CODE-3', downloaded: false }),
];

/** The app over a fresh store of `kind` holding LINES, with these webhook settings and the admin API's token. */
export function webhooksApp(kind: StoreKind, webhooks: ConfigFile['webhooks']): Promise<TestApp> {
  return createTestApp(kind, { configFile: configWith(webhooks), env: { ADMIN_TOKEN: TOKEN }, lines: LINES });
}

/** Adds an endpoint through the admin API: its id and secret. */
export async function addEndpoint(
  t: TestApp,
  body: Record<string, unknown>,
  username = 'jdoe',
): Promise<{ id: string; secret: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: `/admin/v1/accounts/${username}/webhooks`,
    headers: AUTH,
    payload: body,
  });
  if (response.statusCode !== 201) throw new Error(`adding an endpoint: ${response.statusCode} ${response.body}`);
  return JSON.parse(response.body) as { id: string; secret: string };
}

/** Verifies a received request with the Standard Webhooks library, as a receiver would; its payload. */
export function verified(secret: string, received: Received): Record<string, unknown> {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as Record<
    string,
    unknown
  >;
}

/** The purchase as the validation endpoint answers it, in a variant (`''` or `/pt`). */
export async function validatedPurchase(t: TestApp, base: string, code: string): Promise<unknown> {
  const response = await t.app.inject({
    method: 'POST',
    url: `${base}/api/purchases/validation`,
    headers: { 'x-api-key': KEY },
    payload: { purchase_code: code },
  });
  if (response.statusCode !== 200) throw new Error(`validation: ${response.statusCode} ${response.body}`);
  return (JSON.parse(response.body) as { data: { purchase: unknown } }).data.purchase;
}

/** Asks until `check` passes, for what a test cannot be told of directly (a row the worker writes). */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`still not so after 30 s: ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function adminJson(t: TestApp, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, headers: AUTH, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown>, response };
}
