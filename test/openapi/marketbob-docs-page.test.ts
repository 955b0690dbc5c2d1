import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ITEM_ID } from '../../src/demo/demo-data.js';
import { loadDemoData } from '../../src/demo/load-demo.js';
import { docsLanguages } from '../../src/openapi/docs-languages.js';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const LABELS = {
  en: { tryItOut: 'Try it out', execute: 'Execute' },
  pt: { tryItOut: 'Experimentar', execute: 'Executar' },
} as const;

/** The docs page of a variant in MarketBob's shape, in headless Chromium, nothing but the app reachable. */
describe("the docs page of a variant in MarketBob's shape", () => {
  let t: TestApp;
  let origin: string;
  let demoKey: string;
  let browser: TestBrowser;
  let context: BrowserContext;
  const offOrigin: string[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      configFile: {
        variants: [
          { lang: 'en', baseUrl: '/', currency: 'USD' },
          { lang: 'en', baseUrl: '/mb', currency: 'USD', shape: 'marketbob' },
          { lang: 'pt', baseUrl: '/mbpt', currency: 'BRL', rate: '5.00', shape: 'marketbob' },
        ],
      },
    });
    demoKey = (await loadDemoData(t.store, t.keys)).key;
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchTestBrowser();
    context = browser.context;
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

  it.each([
    { lang: 'en', base: '/mb' },
    { lang: 'pt', base: '/mbpt' },
  ] as const)(
    '$lang: renders the four endpoints; Try it out sends the key as api_key and the item id in the query',
    async ({ lang, base }) => {
      const labels = LABELS[lang];
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refused.push(message.text());
      });
      try {
        const response = await page.goto(`${origin}${base}/docs`);
        expect(response?.status()).toBe(200);
        await page.locator('.opblock').first().waitFor();
        expect(await page.locator('html').getAttribute('lang')).toBe(docsLanguages[lang].htmlLang);
        await expect.poll(() => page.locator('.opblock').count()).toBe(4);
        expect(await page.locator('.info .title').innerText()).toContain(`marketplace-api (${lang}, MarketBob)`);
        expect(await page.locator('.servers select option').allInnerTexts()).toEqual([base]);

        await page.locator('.auth-wrapper .btn.authorize').click();
        const scheme = page.locator('.modal-ux .auth-container').first();
        expect(await scheme.innerText()).toContain('api_key');
        await scheme.locator('input').fill(demoKey);
        await scheme.locator('button.authorize').click();
        await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();

        const block = page.locator('#operations-API-itemsItem');
        await block.locator('.opblock-summary').first().click();
        // The documented 200 shows MarketBob's body: the item under `item`, its tags one string.
        expect(await block.locator('.response .example, .response .microlight').first().innerText()).toContain(
          '"tags": "admin,dashboard,bootstrap"',
        );
        await block.getByRole('button', { name: labels.tryItOut }).click();
        await block.getByRole('button', { name: labels.execute }).click();
        const requestUrl = block.locator('.request-url pre');
        await requestUrl.waitFor();
        const sent = new URL(await requestUrl.innerText());
        expect(sent.pathname).toBe(`${base}/api/items/item`);
        expect(Object.fromEntries(sent.searchParams)).toEqual({ item_id: String(DEMO_ITEM_ID), api_key: demoKey });
        await expect
          .poll(() => block.locator('.live-responses-table tbody .response-col_status').first().innerText())
          .toBe('200');
        await page.screenshot({ path: join(SCREENSHOTS, `docs-marketbob-${lang}.png`), fullPage: true });
        expect(refused).toEqual([]);
        expect(offOrigin).toEqual([]);
      } catch (error) {
        await page.screenshot({ path: join(SCREENSHOTS, `docs-marketbob-${lang}-failed.png`), fullPage: true });
        throw error;
      } finally {
        await page.close();
      }
    },
    120_000,
  );
});
