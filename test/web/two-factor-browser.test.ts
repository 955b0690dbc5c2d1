import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { laravelEncrypt, newAppKey } from '../marketbob/laravel-payload.js';
import { seriousViolations, watchCspRefusals } from './page-audit.js';

/**
 * The two-factor code page in a real Chromium, in both languages: found by its labels, audited
 * (axe-core, no serious or critical violation, nothing refused by the CSP) at both widths. The
 * pages are the same on both stores; the HTTP tests (test/marketbob/marketbob-logins.test.ts) run
 * the flow on both, with MarketBob on MariaDB. Here the accounts' MarketBob facts are written
 * into the store as the bridge writes them.
 */

const PASSWORD = 'correct horse battery';
const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const LABELS = {
  en: {
    base: '',
    lang: 'en',
    username: 'Username or email',
    password: 'Password',
    logIn: 'Log in',
    title: 'Two-factor login',
    code: 'Code',
    verify: 'Verify',
    wrong: 'The code is not right, or it was used already. Please enter the current code.',
    missing: 'Enter the six-digit code.',
    apiKey: 'API Key',
  },
  pt: {
    base: '/pt',
    lang: 'pt-BR',
    username: 'Usuário ou e-mail',
    password: 'Senha',
    logIn: 'Entrar',
    title: 'Login em duas etapas',
    code: 'Código',
    verify: 'Verificar',
    wrong: 'O código está incorreto ou já foi usado. Informe o código atual.',
    missing: 'Informe o código de seis dígitos.',
    apiKey: 'Chave de API',
  },
} as const;

const SECRETS = { en: new Secret().base32, pt: new Secret().base32 };
const codeNow = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
const otherCode = (code: string) => String((Number(code) + 500_000) % 1_000_000).padStart(6, '0');

let browser: TestBrowser;
let t: TestApp;
let origin: string;

beforeAll(async () => {
  const appKey = newAppKey();
  const hash = await hashPassword(PASSWORD);
  t = await createTestApp('sqlite', {
    logLevel: 'info',
    env: {
      MARKETBOB_DATABASE_URL: 'mysql://reader@127.0.0.1:9/marketbob',
      MARKETBOB_MEDIA_BASE_URL: 'https://market.example.com',
      MARKETBOB_APP_KEY: appKey,
    },
    lines: (['en', 'pt'] as const).map((lang) => ({
      type: 'account',
      username: `seller-${lang}`,
      email: `seller-${lang}@example.com`,
      api_key: `seller-${lang}-key-0123456789abcdef`,
      registered_at: '2023-01-02T03:04:05Z',
      password_hash: hash,
    })),
  });
  await t.store.runImport(async (session) => {
    await session.linkMarketbobUsers([
      { username: 'seller-en', userId: 11, passwordDigest: '' },
      { username: 'seller-pt', userId: 12, passwordDigest: '' },
    ]);
    await session.setMarketbobLoginFacts([
      { userId: 11, isAuthor: true, twoFactor: laravelEncrypt(SECRETS.en, appKey) },
      { userId: 12, isAuthor: true, twoFactor: laravelEncrypt(SECRETS.pt, appKey) },
    ]);
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  browser = await launchTestBrowser();
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('the two-factor code page in Chromium', () => {
  async function shoot(page: Page, name: string, refusals: string[]) {
    for (const size of WIDTHS) {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.name}.png`), fullPage: true });
      expect(await seriousViolations(page), `${name} at ${size.name} width`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(refusals, name).toEqual([]);
  }

  it.each(['en', 'pt'] as const)(
    '%s: password, then the code page: blank, wrong, then the right code',
    async (lang) => {
      const l = LABELS[lang];
      await browser.context.clearCookies();
      const page = await browser.context.newPage();
      const refusals = watchCspRefusals(page);
      try {
        await page.goto(`${origin}${l.base}/login`);
        await page.getByLabel(l.username).fill(`seller-${lang}`);
        await page.getByLabel(l.password).fill(PASSWORD);
        await page.getByRole('button', { name: l.logIn, exact: true }).click();
        await page.waitForURL(`${origin}${l.base}/login/code`);
        expect(await page.locator('html').getAttribute('lang')).toBe(l.lang);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(l.title);
        const code = page.getByLabel(l.code);
        expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
        expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('login-code');
        await shoot(page, `${lang}-login-code`, refusals);

        await page.getByRole('button', { name: l.verify, exact: true }).click();
        await page.waitForLoadState();
        expect(await page.locator('#login-code-missing').textContent()).toBe(l.missing);
        expect(await page.getByLabel(l.code).getAttribute('aria-invalid')).toBe('true');

        const right = codeNow(SECRETS[lang]);
        await page.getByLabel(l.code).fill(otherCode(right));
        await page.getByRole('button', { name: l.verify, exact: true }).click();
        await page.waitForLoadState();
        expect(await page.getByRole('alert').textContent()).toBe(l.wrong);
        await shoot(page, `${lang}-login-code-wrong`, refusals);

        // As authenticator apps show it: with a space in the middle.
        await page.getByLabel(l.code).fill(`${right.slice(0, 3)} ${right.slice(3)}`);
        await page.getByRole('button', { name: l.verify, exact: true }).click();
        await page.waitForURL(`${origin}${l.base}/workspace/settings`);
        expect(await page.getByRole('heading', { name: l.apiKey }).count()).toBe(1);
      } finally {
        await page.close();
      }
    },
  );
});
