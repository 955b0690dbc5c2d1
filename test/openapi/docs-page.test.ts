import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { createTestApp, type TestApp, VARIANTS } from '../helpers/test-app.js';

/** The docs page, in headless Chromium with every request off the app's own origin cut off. */
describe('the docs page', () => {
  let t: TestApp;
  let origin: string;
  let browser: TestBrowser;
  let context: BrowserContext;
  const offOrigin: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchTestBrowser();
    context = browser.context;
    // No network but the app: a page that needs a CDN would fail to render here.
    await context.route('**/*', (route) => {
      const requested = route.request().url();
      if (new URL(requested).origin === origin) return route.continue();
      offOrigin.push(requested);
      return route.abort();
    });
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it.each(VARIANTS)("renders $lang's document, every operation listed, from the app alone", async (variant) => {
    const page = await context.newPage();
    try {
      const response = await page.goto(`${origin}${variant.base}/docs`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-type']).toBe('text/html; charset=utf-8');
      await page.locator('.opblock').first().waitFor();
      await expect.poll(() => page.locator('.opblock').count()).toBe(7);
      const summaries = await page.locator('.opblock-summary-path').allInnerTexts();
      expect([...new Set(summaries.map((text) => text.replace(/\u200b/g, '').trim()))].sort()).toEqual([
        '/api/account/details',
        '/api/items/all',
        '/api/items/item',
        '/api/purchases/validation',
      ]);
      await expect.poll(() => page.locator('.info .title').innerText()).toContain(`marketplace-api (${variant.lang})`);
      expect(await page.locator('.servers select option').allInnerTexts()).toEqual([variant.base || '/']);
      await page.screenshot({ path: join(SCREENSHOTS, `docs-${variant.lang}.png`), fullPage: true });
      expect(offOrigin).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('leaves the API and unknown paths as they were', async () => {
    const api = await fetch(`${origin}/pt/api/account/details`);
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({ status: 'Erro', msg: 'O parâmetro api_key é obrigatório' });
    for (const path of ['/docs/nothing-here', '/pt/docs/static/none.js', '/openapi.yaml']) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual({
        status: path.startsWith('/pt/') ? 'Erro' : 'error',
        msg: path.startsWith('/pt/') ? 'Não encontrado' : 'Not found',
      });
    }
  });
});
