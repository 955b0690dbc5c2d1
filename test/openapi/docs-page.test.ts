import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ITEM_ID, DEMO_PURCHASE_CODE, DEMO_SELLER } from '../../src/demo/demo-data.js';
import { loadDemoData } from '../../src/demo/load-demo.js';
import { docsLanguages } from '../../src/openapi/docs-languages.js';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { createTestApp, type TestApp, VARIANTS } from '../helpers/test-app.js';

/** The operations in the document's order, by Swagger UI's deep-link id, and what a 200 of each shows. */
const OPERATIONS = [
  { id: 'accountDetails', shows: `"username": "${DEMO_SELLER}"` },
  { id: 'itemsAll', shows: `"id": ${DEMO_ITEM_ID}` },
  { id: 'itemsItem', shows: `"id": ${DEMO_ITEM_ID}` },
  { id: 'purchaseValidation', shows: `"purchase_code": "${DEMO_PURCHASE_CODE}"` },
  // The validation tried just before counts: the code is in the top list.
  { id: 'purchaseActivity', shows: `"purchase_code": "${DEMO_PURCHASE_CODE}"` },
  { id: 'purchaseActivityTop', shows: `"purchase_code": "${DEMO_PURCHASE_CODE}"` },
  // An install activated (201: made now), then released, in each language's pass.
  { id: 'purchaseActivation', shows: '"instance": "shop.example.com"', status: '201' },
  { id: 'purchaseDeactivation', shows: '"used": 0' },
  { id: 'purchaseLicense', shows: '"license": "ey' },
] as const;

/** What the page's labels read in each language. */
const LABELS = {
  en: { tryItOut: 'Try it out', execute: 'Execute', authorize: 'Authorize' },
  pt: { tryItOut: 'Experimentar', execute: 'Executar', authorize: 'Autorizar' },
} as const;

/**
 * Swagger UI's English labels (those a translation exists for) the page shows: as text, as an
 * attribute, or as a label its stylesheet writes (`::after`). Run in the page, as a string: the
 * tests are compiled without the DOM's types.
 */
function untranslatedLabels(page: Page, labels: Readonly<Record<string, string>>): Promise<string[]> {
  const english = Object.entries(labels)
    .filter(([from, to]) => from !== to)
    .map(([from]) => from);
  return page.evaluate(`(() => {
    const words = ${JSON.stringify(english)};
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const text = (walker.currentNode.nodeValue || '').trim();
      if (words.includes(text)) found.push(text);
    }
    for (const element of document.querySelectorAll('[placeholder], [title], [aria-label]')) {
      for (const name of ['placeholder', 'title', 'aria-label']) {
        const value = (element.getAttribute(name) || '').trim();
        if (words.includes(value)) found.push(name + '=' + value);
      }
    }
    for (const element of document.querySelectorAll('.parameter__name.required')) {
      const content = getComputedStyle(element, '::after').content.replace(/"/g, '');
      if (words.includes(content)) found.push('::after=' + content);
    }
    return found;
  })()`);
}

/** The docs page, in headless Chromium with every request off the app's own origin cut off. */
describe('the docs page', () => {
  let t: TestApp;
  let origin: string;
  let demoKey: string;
  let browser: TestBrowser;
  let context: BrowserContext;
  const offOrigin: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    demoKey = (await loadDemoData(t.store, t.keys)).key;
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

  it.each(VARIANTS)(
    "$lang: the product's page in its language; Try it out answers on every endpoint with the demo key (200; 201 for an activation)",
    async (variant) => {
      const labels = LABELS[variant.lang];
      const page = await context.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') refused.push(message.text());
      });
      try {
        const response = await page.goto(`${origin}${variant.base}/docs`);
        expect(response?.status()).toBe(200);
        expect(response?.headers()).toMatchObject({
          'content-type': 'text/html; charset=utf-8',
          'cache-control': 'no-store',
          'content-security-policy': expect.stringContaining("default-src 'none'; script-src 'self'"),
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
          'x-content-type-options': 'nosniff',
        });
        await page.locator('.opblock').first().waitFor();
        expect(await page.title()).toBe(docsLanguages[variant.lang].pageTitle);
        expect(await page.locator('html').getAttribute('lang')).toBe(docsLanguages[variant.lang].htmlLang);
        // Nine operations (HEAD is a sentence of the introduction) and eight webhooks, no framework's top bar or logo.
        await expect.poll(() => page.locator('.opblock').count()).toBe(17);
        expect(await page.locator('.topbar, img[alt*="Swagger" i], .topbar-wrapper').count()).toBe(0);
        // One section of webhooks, under Swagger UI's own heading: no tag section of that name beside it.
        expect(await page.locator('.opblock-tag-section').count()).toBe(1);
        expect(await page.locator('.webhooks h2').allInnerTexts()).toEqual(['Webhooks']);
        // The tab's icon: the marketplace's brand icon, from the page's own origin.
        const icon = await page.locator('link[rel="icon"]').getAttribute('href');
        expect(icon).toBe(`${variant.base}/brand/icon.svg`);
        const iconResponse = await page.request.get(`${origin}${icon}`);
        expect([iconResponse.status(), iconResponse.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
        expect(await page.locator('.info .title').innerText()).toContain(`marketplace-api (${variant.lang})`);
        expect(await page.locator('.info a[href$="/openapi.json"]').getAttribute('href')).toBe(
          `${variant.base}/openapi.json`,
        );
        expect(await page.locator('.servers select option').allInnerTexts()).toEqual([variant.base || '/']);

        // Authorize with the demo key in the X-Api-Key header (the first scheme).
        await page.locator('.auth-wrapper .btn.authorize').click();
        const headerScheme = page.locator('.modal-ux .auth-container').first();
        await headerScheme.locator('input').fill(demoKey);
        await headerScheme.locator('button.authorize').click();
        await page.locator('.modal-ux').screenshot({ path: join(SCREENSHOTS, `docs-${variant.lang}-authorize.png`) });
        const untranslatedInDialog = await untranslatedLabels(page, docsLanguages.pt.uiLabels);
        if (variant.lang === 'pt') expect(untranslatedInDialog).toEqual([]);
        await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();

        for (const operation of OPERATIONS) {
          const block = page.locator(`#operations-API-${operation.id}`);
          await block.locator('.opblock-summary').first().click();
          await block.getByRole('button', { name: labels.tryItOut }).click();
          await block.getByRole('button', { name: labels.execute }).click();
          const live = block.locator('.live-responses-table');
          const status = 'status' in operation ? operation.status : '200';
          await expect.poll(() => live.locator('tbody .response-col_status').first().innerText()).toBe(status);
          expect(await live.locator('.response-col_description pre').first().innerText()).toContain(operation.shows);
          expect(await live.locator('.response-col_description pre').first().innerText()).toContain(
            `"status": "${variant.ok}"`,
          );
        }
        // To look at after a change: the top of the page, and an operation tried out.
        await page.evaluate('window.scrollTo(0, 0)');
        await page.screenshot({ path: join(SCREENSHOTS, `docs-${variant.lang}.png`) });
        const tried = await page.locator('#operations-API-purchaseValidation').boundingBox();
        if (tried) {
          // In two parts: the request and its answer, then the documented responses.
          for (const part of [0, 1]) {
            const y = tried.y + part * 1300;
            const clip = { x: tried.x, y, width: tried.width, height: Math.min(tried.y + tried.height - y, 1300) };
            const path = join(SCREENSHOTS, `docs-${variant.lang}-validation-${part + 1}.png`);
            await page.screenshot({ path, fullPage: true, clip });
          }
        }
        const untranslated = await untranslatedLabels(page, docsLanguages.pt.uiLabels);
        if (variant.lang === 'pt') expect(untranslated).toEqual([]);
        // The check sees English where there is English.
        else expect(untranslated).toEqual(expect.arrayContaining(['Cancel', 'Responses', '::after=required']));
        expect(refused).toEqual([]);
        expect(offOrigin).toEqual([]);
      } catch (error) {
        await page.screenshot({ path: join(SCREENSHOTS, `docs-${variant.lang}-failed.png`), fullPage: true });
        throw error;
      } finally {
        await page.close();
      }
    },
    // Chromium renders Swagger UI slowly on a busy machine; eight operations are tried out.
    180_000,
  );

  it('leaves the API and unknown paths as they were', async () => {
    const api = await fetch(`${origin}/pt/api/account/details`);
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({ status: 'Erro', msg: 'O parâmetro api_key é obrigatório' });
    for (const path of ['/docs/nothing-here', '/pt/docs/static/none.js', '/openapi.yaml', '/docs/json']) {
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
