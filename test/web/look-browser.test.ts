import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PURCHASE_CODE, DEMO_SELLER } from '../../src/demo/demo-data.js';
import { loadDemoData } from '../../src/demo/load-demo.js';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { laravelEncrypt, newAppKey } from '../marketbob/laravel-payload.js';
import { seriousViolations, watchCspRefusals } from './page-audit.js';

/**
 * Every page a newcomer sees, in both languages, at a desktop's 1280x800 and a phone's 390x844, in
 * a real Chromium over the demo data: screenshots in test-output/screenshots/look-*.png (look at
 * them after changing a page), axe-core clean, nothing refused by the pages' policy; and what the
 * look promises: the front page's links, the language switch, the examples' Copy (with and
 * without the clipboard API), the phone navigation on one line, codes and dates whole in tables.
 */

const SIZES = [
  { name: '1280x800', width: 1280, height: 800 },
  { name: '390x844', width: 390, height: 844 },
] as const;
const PASSWORD = 'correct horse battery';

const LABELS = {
  en: {
    base: '',
    lang: 'en',
    other: 'Português',
    otherBase: '/pt',
    docs: 'API documentation',
    openapi: 'OpenAPI document',
    login: 'Seller workspace',
    username: 'Username or email',
    password: 'Password',
    logIn: 'Log in',
    code: 'Code',
    settings: 'Settings',
    purchaseCodes: 'Purchase codes',
    webhooks: 'Webhooks',
    copyCurl: 'Copy curl',
    copyPhp: 'Copy PHP',
    copied: 'Copied',
  },
  pt: {
    base: '/pt',
    lang: 'pt-BR',
    other: 'English',
    otherBase: '',
    docs: 'Documentação da API',
    openapi: 'Documento OpenAPI',
    login: 'Painel do vendedor',
    username: 'Usuário ou e-mail',
    password: 'Senha',
    logIn: 'Entrar',
    code: 'Código',
    settings: 'Configurações',
    purchaseCodes: 'Códigos de compra',
    webhooks: 'Webhooks',
    copyCurl: 'Copiar curl',
    copyPhp: 'Copiar PHP',
    copied: 'Copiado',
  },
} as const;
type Lang = keyof typeof LABELS;

let browser: TestBrowser;
let t: TestApp;
let origin: string;
let demoPassword: string;
let demoKey: string;

beforeAll(async () => {
  const appKey = newAppKey();
  t = await createTestApp('sqlite', {
    logLevel: 'info',
    env: {
      MARKETBOB_DATABASE_URL: 'mysql://reader@127.0.0.1:9/marketbob',
      MARKETBOB_MEDIA_BASE_URL: 'https://market.example.com',
      MARKETBOB_APP_KEY: appKey,
    },
  });
  ({ password: demoPassword, key: demoKey } = await loadDemoData(t.store, t.keys));
  // A seller with two-factor login, for the code page (its facts as the bridge writes them).
  await t.importLines([
    {
      type: 'account',
      username: 'two-factor',
      email: 'two-factor@example.com',
      registered_at: '2023-01-02T03:04:05Z',
      password_hash: await hashPassword(PASSWORD),
    },
  ]);
  await t.store.runImport(async (session) => {
    await session.linkMarketbobUsers([{ username: 'two-factor', userId: 21, passwordDigest: '' }]);
    await session.setMarketbobLoginFacts([
      { userId: 21, isAuthor: true, twoFactor: laravelEncrypt(new Secret().base32, appKey) },
    ]);
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  browser = await launchTestBrowser();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Screenshots at both sizes, each audited; back at the desktop size after. */
async function shoot(page: Page, name: string, refusals: string[]) {
  for (const size of SIZES) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await page.screenshot({ path: join(SCREENSHOTS, `look-${name}-${size.name}.png`), fullPage: true });
    expect(await seriousViolations(page), `${name} at ${size.name}`).toEqual([]);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  expect(refusals, name).toEqual([]);
}

/** Elements (by selector) shown on more than one line: an inline element that wraps has several boxes. */
const wrapped = (page: Page, selector: string) =>
  page.evaluate(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].filter((e) => e.getClientRects().length > 1).map((e) => e.textContent)`,
  ) as Promise<string[]>;

const readClipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()') as Promise<string>;

describe.each(Object.keys(LABELS) as Lang[])('the pages in Chromium (%s)', (lang) => {
  const l = LABELS[lang];

  it('shows the front page at the base, its links, and the language switch', async () => {
    // Signed out everywhere: a session of the other language's workspace would send its login page on.
    await browser.context.clearCookies();
    const page = await browser.context.newPage();
    const refusals = watchCspRefusals(page);
    const response = await page.goto(`${origin}${l.base || '/'}`);
    expect(response?.status()).toBe(200);
    expect(await page.locator('html').getAttribute('lang')).toBe(l.lang);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('marketplace-api');
    expect(await page.locator('main').getByRole('link', { name: l.docs, exact: true }).getAttribute('href')).toBe(
      `${l.base}/docs`,
    );
    expect(await page.locator('main').getByRole('link', { name: l.openapi, exact: true }).getAttribute('href')).toBe(
      `${l.base}/openapi.json`,
    );
    await shoot(page, `${lang}-front`, refusals);
    await page.locator('main').getByRole('link', { name: l.login, exact: true }).click();
    await page.waitForURL(`${origin}${l.base}/login`);
    await page.getByRole('link', { name: l.other, exact: true }).click();
    await page.waitForURL(`${origin}${l.otherBase}/login`);
    await page.close();
  });

  it('shows the login page and the two-factor code page', async () => {
    const page = await browser.context.newPage();
    const refusals = watchCspRefusals(page);
    await page.goto(`${origin}${l.base}/login`);
    await shoot(page, `${lang}-login`, refusals);
    await page.getByLabel(l.username).fill('two-factor');
    await page.getByLabel(l.password).fill(PASSWORD);
    await page.getByRole('button', { name: l.logIn, exact: true }).click();
    await page.waitForURL(`${origin}${l.base}/login/code`);
    await page.getByLabel(l.code, { exact: true }).waitFor();
    await shoot(page, `${lang}-two-factor`, refusals);
    await page.close();
  });

  it('shows settings, purchase codes and webhooks: copy buttons, one-line phone navigation, whole codes and dates', async () => {
    const page = await browser.context.newPage();
    const refusals = watchCspRefusals(page);
    await page.goto(`${origin}${l.base}/login`);
    await page.getByLabel(l.username).fill(DEMO_SELLER);
    await page.getByLabel(l.password).fill(demoPassword);
    await page.getByRole('button', { name: l.logIn, exact: true }).click();
    await page.waitForURL(`${origin}${l.base}/workspace/settings`);
    await shoot(page, `${lang}-settings`, refusals);

    // The examples' Copy takes the key itself, though the page shows it masked.
    await page.getByRole('button', { name: l.copyCurl, exact: true }).click();
    await page.getByRole('button', { name: `${l.copied} curl`, exact: true }).waitFor();
    const curl = await readClipboard(page);
    expect(curl).toContain(`X-Api-Key: ${demoKey}`);
    expect(curl).toMatch(/^curl -X POST /);

    // Without the clipboard API: the browser's own copy command.
    const bare = await browser.context.newPage();
    await bare.addInitScript("Object.defineProperty(navigator, 'clipboard', { get: () => undefined })");
    await bare.goto(`${origin}${l.base}/workspace/settings`);
    await bare.getByRole('button', { name: l.copyPhp, exact: true }).click();
    await bare.getByRole('button', { name: `${l.copied} PHP`, exact: true }).waitFor();
    await bare.close();
    const php = await readClipboard(page);
    expect(php).toMatch(/^<\?php/);
    expect(php).toContain(`X-Api-Key: ${demoKey}`);

    for (const [name, path] of [
      ['purchase-codes', '/workspace/purchase-codes'],
      ['purchase-code', `/workspace/purchase-codes?code=${DEMO_PURCHASE_CODE}`],
      ['webhooks', '/workspace/webhooks'],
    ] as const) {
      await page.goto(`${origin}${l.base}${path}`);
      await shoot(page, `${lang}-${name}`, refusals);
      expect(await wrapped(page, 'td time, a.code, td code'), `${name} at 1280`).toEqual([]);
      await page.setViewportSize({ width: 390, height: 844 });
      const tops = await page
        .locator('nav.side a')
        .evaluateAll((links) => links.map((link) => Math.round(link.getBoundingClientRect().top)));
      expect(tops, `${name}: phone navigation`).toEqual([tops[0], tops[0], tops[0]]);
      expect(await wrapped(page, 'nav.side a'), `${name}: phone navigation`).toEqual([]);
      // Nothing of it hidden sideways either.
      expect(await page.locator('nav.side ul').evaluate((list) => list.scrollWidth <= list.clientWidth)).toBe(true);
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    // The demo's month of activity: bars across the chart.
    await page.goto(`${origin}${l.base}/workspace/purchase-codes?code=${DEMO_PURCHASE_CODE}`);
    expect(await page.locator('.chart rect.bar, .chart .bar').count()).toBeGreaterThan(15);
    await page.close();
  });
});

describe('a deployment with its own brand', () => {
  let branded: TestApp;
  let at: string;
  beforeAll(async () => {
    const logo = join(mkdtempSync(join(tmpdir(), 'look-brand-')), 'logo.svg');
    writeFileSync(
      logo,
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#14532d"/><path d="M9 17l5 5 9-11" stroke="#fff" stroke-width="3" fill="none"/></svg>',
    );
    branded = await createTestApp('sqlite', {
      logLevel: 'info',
      configFile: { workspace: { brand: { name: 'Loja Ébano', accent: '#fbbf24', logo } } },
    });
    await branded.app.listen({ host: '127.0.0.1', port: 0 });
    at = `http://127.0.0.1:${(branded.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await branded?.close();
  });

  it.each(['', '/pt'])('shows its name and logo on the front page and the login card (%s)', async (base) => {
    const page = await browser.context.newPage();
    const refusals = watchCspRefusals(page);
    await page.goto(`${at}${base || '/'}`);
    expect(await page.title()).toContain('Loja Ébano');
    expect(await page.locator('header img.brand-logo').count()).toBe(1);
    await shoot(page, `brand${base.replace('/', '-') || '-en'}-front`, refusals);
    await page.goto(`${at}${base}/login`);
    expect(await page.locator('.card-brand').innerText()).toContain('Loja Ébano');
    await shoot(page, `brand${base.replace('/', '-') || '-en'}-login`, refusals);
    await page.close();
  });
});
