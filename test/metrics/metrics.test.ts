import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';

const TOKEN = 'admin-token-0123456789abcdef';
const KEY = 'metrics-key-0123456789abcdef';

/** The value of one sample of the Prometheus text, by its exact name and labels. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { ADMIN_TOKEN: TOKEN },
      configFile: {
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD', rate: '1' },
          { lang: 'pt', baseUrl: '/pt', currency: 'BRL', rate: '5.00' },
        ],
        limits: { keyClientFailures: { max: 3, windowSeconds: 60 } },
      },
      lines: [
        accountLine({ api_key: KEY }),
        itemLine(),
        purchaseLine({ code: 'OK-1' }),
        purchaseLine({ code: 'REF-1', status: 'refunded' }),
        purchaseLine({ code: 'CAN-1', status: 'cancelled' }),
      ],
    });
  });
  afterAll(() => t.close());

  const scrape = async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/admin/v1/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    return response.body;
  };

  it('counts a known burst exactly, by endpoint, variant, status and outcome', async () => {
    const validate = (code: string, base = '') =>
      t.app.inject({
        method: 'POST',
        url: `${base}/api/purchases/validation`,
        headers: { 'x-forwarded-for': '10.0.0.1' },
        payload: { api_key: KEY, purchase_code: code },
      });
    for (let n = 0; n < 5; n++) {
      expect(
        (await t.app.inject({ method: 'GET', url: '/api/account/details', headers: { 'x-api-key': KEY } })).statusCode,
      ).toBe(200);
    }
    for (let n = 0; n < 2; n++) {
      expect((await t.app.inject({ method: 'GET', url: '/pt/api/account/details' })).statusCode).toBe(400);
    }
    expect((await validate('OK-1')).statusCode).toBe(200);
    expect((await validate('OK-1', '/pt')).statusCode).toBe(200);
    expect((await validate('REF-1')).statusCode).toBe(404);
    expect((await validate('CAN-1')).statusCode).toBe(404);
    expect((await validate('NONE-1')).statusCode).toBe(404);
    // The key's failure budget (per client) is 3, now spent: the next request is refused.
    expect((await validate('NONE-2')).statusCode).toBe(429);
    expect((await t.app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: '/api/items/all' })).statusCode).toBe(405);

    const text = await scrape();
    const requests = (endpoint: string, variant: string, status: number) =>
      sample(text, `marketplace_http_requests_total{endpoint="${endpoint}",variant="${variant}",status="${status}"}`);
    expect(requests('/api/account/details', 'en', 200)).toBe(5);
    expect(requests('/api/account/details', 'pt', 400)).toBe(2);
    expect(requests('/api/purchases/validation', 'en', 200)).toBe(1);
    expect(requests('/api/purchases/validation', 'pt', 200)).toBe(1);
    expect(requests('/api/purchases/validation', 'en', 404)).toBe(3);
    expect(requests('/api/purchases/validation', 'en', 429)).toBe(1);
    expect(requests('unrouted', 'en', 404)).toBe(1);
    expect(requests('unrouted', 'en', 405)).toBe(1);
    expect(
      sample(text, 'marketplace_http_request_duration_seconds_count{endpoint="/api/account/details",variant="en"}'),
    ).toBe(5);
    expect(sample(text, 'marketplace_validations_total{outcome="valid"}')).toBe(2);
    expect(sample(text, 'marketplace_validations_total{outcome="refunded"}')).toBe(1);
    expect(sample(text, 'marketplace_validations_total{outcome="cancelled"}')).toBe(1);
    expect(sample(text, 'marketplace_validations_total{outcome="invalid"}')).toBe(1);
    expect(sample(text, 'marketplace_limiter_refusals_total{limiter="key"}')).toBe(1);
    expect(sample(text, 'marketplace_limiter_refusals_total{limiter="client"}')).toBe(0);
    expect(sample(text, 'marketplace_store_errors_total{kind="unavailable"}')).toBe(0);
    // Five account details and all six validations asked for the key's account (the key's budget is
    // checked once the account is known).
    const accountHits = sample(text, 'marketplace_cache_lookups_total{cache="accounts",result="hit"}') ?? 0;
    const accountMisses = sample(text, 'marketplace_cache_lookups_total{cache="accounts",result="miss"}') ?? 0;
    expect([accountHits + accountMisses, accountMisses >= 1]).toEqual([11, true]);
    // Never a key, a code or a username.
    for (const secret of [KEY, 'OK-1', 'REF-1', 'jdoe', TOKEN]) expect(text).not.toContain(secret);
  });

  it('counts import runs by outcome', async () => {
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-ndjson' };
    expect(
      (await t.app.inject({ method: 'POST', url: '/admin/v1/import', headers, payload: '{"type":"nope"}' })).statusCode,
    ).toBe(422);
    const good = JSON.stringify(purchaseLine({ code: 'NEW-1' }));
    expect((await t.app.inject({ method: 'POST', url: '/admin/v1/import', headers, payload: good })).statusCode).toBe(
      200,
    );
    const text = await scrape();
    expect(sample(text, 'marketplace_import_runs_total{outcome="ok"}')).toBe(1);
    expect(sample(text, 'marketplace_import_runs_total{outcome="rejected"}')).toBe(1);
  });
});
