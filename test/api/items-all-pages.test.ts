import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';

/** A seller with more items than one page of the store's list query (500), to cross page edges. */
const KEY = 'paging-seller-key-0123456789ab';
const COUNT = 1203;

describe.each(TEST_STORES)('items of a seller with %s thousands of items', (kind) => {
  let t: TestApp;
  // Ids out of order in the file, some not approved, so order and filtering are the store's doing.
  const ids = Array.from({ length: COUNT }, (_, n) => 10_000 + ((n * 7919) % COUNT) * 3);
  const hidden = new Set(ids.filter((id) => id % 11 === 0));

  beforeAll(async () => {
    t = await createTestApp(kind, {
      lines: [
        {
          type: 'account',
          username: 'big',
          email: 'big@example.com',
          api_key: KEY,
          registered_at: '2024-01-01T00:00:00Z',
        },
        ...ids.map((id) => ({
          type: 'item',
          id,
          account: 'big',
          name: `Item ${id}`,
          version: '1.0.0',
          preview_type: 'audio',
          thumbnail: `https://cdn.example.com/${id}.png`,
          preview_audio: `https://cdn.example.com/${id}.mp3`,
          price: { regular: '1.00', extended: '2.00' },
          status: hidden.has(id) ? 'pending' : 'approved',
          published_at: '2024-01-02T00:00:00Z',
        })),
      ],
    });
  });
  afterAll(() => t.close());

  it('lists every approved item once, newest id first, across pages', async () => {
    const response = await t.app.inject({ url: '/api/items/all', headers: { 'x-api-key': KEY } });
    expect(response.statusCode).toBe(200);
    const listed = (JSON.parse(response.body) as { items: { id: number }[] }).items.map((item) => item.id);
    const expected = ids.filter((id) => !hidden.has(id)).sort((a, b) => b - a);
    expect(expected.length).toBeGreaterThan(1000);
    expect(listed).toEqual(expected);
    // Read page by page, then sent whole: its signature covers the body's digest, which goes first.
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['transfer-encoding']).toBeUndefined();
    expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.body)));
    expect(response.headers['content-digest']).toBe(
      `sha-256=:${createHash('sha256').update(response.rawPayload).digest('base64')}:`,
    );
    expect(response.body.startsWith('{"status":"success","items":[{"id":')).toBe(true);
  });

  it('answers HEAD with the same status and no body, and pt in its own words and currency', async () => {
    const head = await t.app.inject({ method: 'HEAD', url: '/api/items/all', headers: { 'x-api-key': KEY } });
    expect([head.statusCode, head.body]).toEqual([200, '']);
    const pt = await t.app.inject({ url: '/pt/api/items/all', headers: { 'x-api-key': KEY } });
    const body = JSON.parse(pt.body) as { status: string; items: { price: unknown; currency: string }[] };
    expect(body.status).toBe('Sucesso');
    expect(body.items[700]).toMatchObject({ price: { regular: 5, extended: 10 }, currency: 'BRL' });
  });
});
