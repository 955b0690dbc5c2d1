import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, TEST_STORES, type TestApp, VARIANTS } from '../helpers/test-app.js';
import { ALICE_APPROVED_NEWEST_FIRST, ALL_LINES, expectedItem, ITEMS, KEYS, UNKNOWN_KEY } from './fixtures.js';
import { expectError, expectJson, expectParamError, url } from './http-assertions.js';

const PATH = '/api/items/all';

describe.each(TEST_STORES)('%s store', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind, { lines: ALL_LINES });
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(VARIANTS)('GET /api/items/all ($lang)', (variant) => {
    const all = (key: string) =>
      t.app.inject({ method: 'GET', url: url(variant, PATH), headers: { 'x-api-key': key } });

    it('lists only approved items, newest id first, each a full Item in contract order', async () => {
      expectJson(await all(KEYS.alice), 200, {
        status: variant.ok,
        items: ALICE_APPROVED_NEWEST_FIRST.map((fixture) => expectedItem(fixture, variant)),
      });
    });

    it('never lists pending, rejected or removed items, nor another seller’s', async () => {
      const ids = (JSON.parse((await all(KEYS.alice)).body).items as { id: number }[]).map((i) => i.id);
      expect(ids).toEqual([108, 104, 103, 102, 101, 7]);
    });

    it('answers 200 with one item when the seller has exactly one approved item', async () => {
      expectJson(await all(KEYS.solo), 200, { status: variant.ok, items: [expectedItem(ITEMS.i301, variant)] });
    });

    it('answers 404 "no items" when none of the seller’s items is approved', async () => {
      expectError(await all(KEYS.dora), variant, 404, variant.messages.noItems);
    });

    it('answers 404 "no items" when the seller has no items at all', async () => {
      expectError(await all(KEYS.cleo), variant, 404, variant.messages.noItems);
    });

    it('shows media by preview type: image, video, audio, with and without screenshots', async () => {
      const items = JSON.parse((await all(KEYS.alice)).body).items as { id: number; media: unknown }[];
      const media = Object.fromEntries(items.map((i) => [i.id, i.media]));
      const cdn = (path: string) => `https://cdn.example.com/${path}`;
      expect(media).toEqual({
        7: { thumbnail: cdn('7/t.png'), preview_image: cdn('7/p.png') },
        101: {
          thumbnail: cdn('101/t.png'),
          preview_image: cdn('101/p.png'),
          screenshots: [cdn('101/s1.png'), cdn('101/s2.png')],
        },
        102: { thumbnail: cdn('102/t.png'), preview_image: cdn('102/p.png'), preview_video: cdn('102/v.mp4') },
        103: { thumbnail: cdn('103/t.png'), preview_audio: cdn('103/a.mp3'), screenshots: [cdn('103/s1.png')] },
        104: {
          thumbnail: cdn('104/t.png'),
          preview_image: cdn('104/p.png'),
          preview_video: cdn('104/v.mp4'),
          screenshots: [cdn('104/s1.png'), cdn('104/s2.png'), cdn('104/s3.png')],
        },
        108: { thumbnail: cdn('108/t.png'), preview_audio: cdn('108/a.mp3') },
      });
    });

    it('gives version as a major.minor.patch string and options and tags as arrays of strings', async () => {
      const body = (await all(KEYS.alice)).body;
      expect(body).toContain('"version":"10.0.1"');
      expect(body).toContain('"version":"3.10.0"');
      expect(body).toContain('"options":["Responsive","Dark mode"]');
      expect(body).toContain('"tags":["promo","intro","video"]');
      expect(body).toContain('"options":[],"version":"10.0.1","demo_link":"","tags":[]');
    });

    it('answers 401 for an unknown key or a suspended account, before looking at items', async () => {
      expectError(await all(UNKNOWN_KEY), variant, 401, variant.messages.invalidRequest);
      expectError(await all(KEYS.sam), variant, 401, variant.messages.invalidRequest);
    });

    it('answers 400 naming api_key when no key is sent', async () => {
      expectParamError(await t.app.inject({ method: 'GET', url: url(variant, PATH) }), variant, 'api_key');
    });
  });
});
