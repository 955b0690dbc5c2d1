import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { ACCOUNTS, ALL_LINES, KEYS } from '../api/fixtures.js';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { seriousViolations, watchCspRefusals } from './page-audit.js';

/**
 * The workspace's Purchase codes page in a real Chromium (issue 24): the codes seen from the most
 * networks, the 7- and 30-day windows, a search by code with its per-day chart, the CSV download,
 * in both languages; screenshots at desktop and phone widths, axe-core, and a strict CSP that
 * refuses nothing the page needs. Validations go through the real API port, from networks named
 * by X-Forwarded-For behind the trusted loopback proxy (documentation ranges: no traffic leaves).
 */

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;
const PASSWORD = 'correct horse battery';

const LABELS = {
  en: {
    base: '',
    username: 'Username or email',
    password: 'Password',
    logIn: 'Log in',
    nav: 'Purchase codes',
    title: 'Purchase codes',
    top30: 'Seen from the most networks, last 30 days',
    top7: 'Seen from the most networks, last 7 days',
    last7: 'Last 7 days',
    columns: ['Purchase code', 'Item', 'Purchased', 'Validations', 'Networks', 'Last seen', 'Status'],
    refunded: 'Refunded',
    active: 'Active',
    csv: 'Download CSV',
    code: 'Purchase code',
    search: 'Search',
    codeTitle: 'Code ALICE-REG-0001',
    notYours: 'None of your purchase codes is “BOB-0001”.',
    chart: 'Validations per day, last 30 days',
    settings: 'Settings',
    lastUsed: 'Last used',
  },
  pt: {
    base: '/pt',
    username: 'Usuário ou e-mail',
    password: 'Senha',
    logIn: 'Entrar',
    nav: 'Códigos de compra',
    title: 'Códigos de compra',
    top30: 'Vistos a partir de mais redes, últimos 30 dias',
    top7: 'Vistos a partir de mais redes, últimos 7 dias',
    last7: 'Últimos 7 dias',
    columns: ['Código de compra', 'Item', 'Comprado em', 'Validações', 'Redes', 'Visto por último', 'Situação'],
    refunded: 'Reembolsado',
    active: 'Ativo',
    csv: 'Baixar CSV',
    code: 'Código de compra',
    search: 'Buscar',
    codeTitle: 'Código ALICE-REG-0001',
    notYours: 'Nenhum dos seus códigos de compra é “BOB-0001”.',
    chart: 'Validações por dia, últimos 30 dias',
    settings: 'Configurações',
    lastUsed: 'Último uso',
  },
} as const;
type Lang = keyof typeof LABELS;

let browser: TestBrowser;
let context: BrowserContext;

beforeAll(async () => {
  browser = await launchTestBrowser();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
});

describe.each(TEST_STORES)('the Purchase codes page in Chromium (%s)', (kind) => {
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    const passwordHash = await hashPassword(PASSWORD);
    t = await createTestApp(kind, {
      logLevel: 'info',
      configFile: { trustProxy: ['127.0.0.1'] },
      lines: ALL_LINES.map((line) => (line === ACCOUNTS.alice.line ? { ...line, password_hash: passwordHash } : line)),
    });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    await context.grantPermissions([], { origin });
    const validate = (code: string, client: string) =>
      fetch(`${origin}/api/purchases/validation`, {
        method: 'POST',
        headers: { 'x-api-key': KEYS.alice, 'content-type': 'application/json', 'x-forwarded-for': client },
        body: JSON.stringify({ purchase_code: code }),
      }).then((response) => response.status);
    for (let n = 0; n < 12; n++) expect(await validate('ALICE-REG-0001', `198.18.${n}.1`)).toBe(200);
    for (const client of ['198.51.100.7', '203.0.113.7', '2001:db8:5::1']) {
      expect(await validate('Alice-Ext-0002', client)).toBe(200);
    }
    expect(await validate('ALICE-REFUNDED-4', '203.0.113.8')).toBe(404);
    // Asking the API for a code's activity writes what this process gathered: the page reads the store.
    const asked = await fetch(`${origin}/api/purchases/activity?purchase_code=ALICE-REG-0001`, {
      headers: { 'x-api-key': KEYS.alice },
    });
    expect(asked.status).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
  });

  const cspRefusals = new WeakMap<Page, string[]>();

  async function freshPage(): Promise<Page> {
    await context.clearCookies();
    const page = await context.newPage();
    cspRefusals.set(page, watchCspRefusals(page));
    return page;
  }

  async function logIn(page: Page, lang: Lang) {
    const l = LABELS[lang];
    await page.goto(`${origin}${l.base}/login`);
    await page.getByLabel(l.username).fill('alice');
    await page.getByLabel(l.password).fill(PASSWORD);
    await page.getByRole('button', { name: l.logIn, exact: true }).click();
    await page.waitForLoadState();
  }

  /** Screenshots at both widths and an axe-core audit (SQLite run only: the pages are the same on both stores). */
  async function shoot(page: Page, name: string) {
    if (kind !== 'sqlite') return;
    for (const size of WIDTHS) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.name}.png`), fullPage: true });
      expect(await seriousViolations(page), `${name} at ${size.name} width`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(cspRefusals.get(page) ?? [], name).toEqual([]);
  }

  it.each(['en', 'pt'] as const)(
    '%s: the codes from the most networks first, both windows, the CSV, a search with its chart',
    async (lang) => {
      const l = LABELS[lang];
      const page = await freshPage();
      try {
        await logIn(page, lang);
        await page.getByRole('link', { name: l.nav, exact: true }).click();
        await page.waitForLoadState();
        expect(new URL(page.url()).pathname).toBe(`${l.base}/workspace/purchase-codes`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(l.title);
        expect(await page.getByRole('link', { name: l.nav, exact: true }).getAttribute('aria-current')).toBe('page');
        expect(await page.getByRole('heading', { level: 2, name: l.top30 }).count()).toBe(1);
        const table = page.locator('table.codes');
        expect(await table.locator('thead th').allTextContents()).toEqual(l.columns);
        const rows: string[][] = [];
        for (const row of await table.locator('tbody tr').all()) {
          rows.push((await row.locator('th, td').allTextContents()).map((text) => text.trim()));
        }
        expect(rows.map((row) => [row[0], row[1], row[3], row[4], row[6]])).toEqual([
          ['ALICE-REG-0001', 'Clean Admin', '12', '12', l.active],
          ['Alice-Ext-0002', 'Promo Video', '3', '3', l.active],
          ['ALICE-REFUNDED-4', 'Clean Admin', '1', '1', l.refunded],
        ]);
        await shoot(page, `${lang}-purchase-codes`);

        await page.getByRole('link', { name: l.last7 }).click();
        await page.waitForLoadState();
        expect(await page.getByRole('heading', { level: 2, name: l.top7 }).count()).toBe(1);
        expect(await page.getByRole('link', { name: l.last7 }).getAttribute('aria-current')).toBe('page');

        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: l.csv }).click(),
        ]);
        expect(download.suggestedFilename()).toBe('purchase-codes-last-7-days.csv');
        const csv = readFileSync((await download.path()) as string, 'utf8').split('\r\n');
        expect(csv[0]).toBe(
          'purchase_code,item_id,item_name,purchase_date,status,validations,networks,first_seen,last_seen',
        );
        expect(csv[1]).toMatch(
          /^ALICE-REG-0001,101,Clean Admin,2024-02-01T10:00:00\.000Z,active,12,12,\d{4}-\d\d-\d\dT[\d:.]+Z,\d{4}-\d\d-\d\dT[\d:.]+Z$/,
        );
        expect(csv.slice(2)).toEqual([
          expect.stringMatching(/^Alice-Ext-0002,/),
          expect.stringMatching(/^ALICE-REFUNDED-4,101,Clean Admin,[^,]+,refunded,1,1,/),
          '',
        ]);

        await page.getByLabel(l.code, { exact: true }).fill('  alice-reg-0001 ');
        await page.getByRole('button', { name: l.search }).click();
        await page.waitForLoadState();
        expect(await page.getByRole('heading', { level: 2, name: l.codeTitle }).count()).toBe(1);
        expect([
          await page.locator('#code-validations').textContent(),
          await page.locator('#code-networks').textContent(),
        ]).toEqual(['12', '12']);
        const chart = page.getByRole('img', { name: new RegExp(`^${l.chart}`) });
        expect(await chart.count()).toBe(1);
        expect(await chart.locator('rect.bar').count()).toBe(1);
        await shoot(page, `${lang}-purchase-code`);

        await page.getByLabel(l.code, { exact: true }).fill('BOB-0001');
        await page.getByRole('button', { name: l.search }).click();
        await page.waitForLoadState();
        expect(await page.getByRole('status').textContent()).toBe(l.notYours);
      } catch (error) {
        await page.screenshot({ path: join(SCREENSHOTS, `${lang}-purchase-codes-failed.png`), fullPage: true });
        throw error;
      } finally {
        await page.close();
      }
    },
  );

  it('Settings shows when the key was last used', async () => {
    const usedAt = Date.parse('2026-01-02T03:04:05.000Z');
    await t.store.recordKeyUses([{ username: 'alice', at: usedAt }]);
    const page = await freshPage();
    try {
      await logIn(page, 'en');
      const details = page.locator('dl.details');
      expect(await details.locator('dt').last().textContent()).toBe(LABELS.en.lastUsed);
      expect(await page.locator('#key-last-used').getAttribute('datetime')).toBe(new Date(usedAt).toISOString());
    } finally {
      await page.close();
    }
  });
});
