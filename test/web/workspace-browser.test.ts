import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { cleanEnv, type Running, startNode } from '../helpers/processes.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { seriousViolations, watchCspRefusals } from './page-audit.js';

/**
 * The seller's workspace in a real Chromium, against the real app listening on a real port:
 * every control is found by its label, as a person (or the reviewers' script) finds it.
 */

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 390, height: 844 },
] as const;

const PASSWORD = 'correct horse battery';
const BCRYPT_PASSWORD = 'from-laravel-2019';

const LABELS = {
  en: {
    base: '',
    lang: 'en',
    username: 'Username or email',
    password: 'Password',
    logIn: 'Log in',
    apiKey: 'API Key',
    show: 'Show',
    copy: 'Copy',
    copied: 'Copied',
    generate: 'Generate new key',
    yes: 'Yes, generate a new key',
    logOut: 'Log out',
    wrong: 'The username, email or password is not right. Please try again.',
    suspended: 'This account is suspended and cannot log in. Please contact the marketplace.',
    csrf: 'This form has expired',
    settingsTitle: 'Settings',
    nav: 'Workspace',
    apiDocs: 'API docs',
    hide: 'Hide',
    created: 'Created',
    importedOn: 'Imported on',
    lastUsed: 'Last used',
    lastUsedNever: 'Not yet (uses are recorded once a minute)',
    exampleTitle: 'Validate a purchase code',
    docsLink: 'Read the API documentation',
    usernameMissing: 'Enter your username or email.',
    passwordMissing: 'Enter your password.',
  },
  pt: {
    base: '/pt',
    lang: 'pt-BR',
    username: 'Usuário ou e-mail',
    password: 'Senha',
    logIn: 'Entrar',
    apiKey: 'Chave de API',
    show: 'Mostrar',
    copy: 'Copiar',
    copied: 'Copiado',
    generate: 'Gerar nova chave',
    yes: 'Sim, gerar nova chave',
    logOut: 'Sair',
    wrong: 'Usuário, e-mail ou senha incorretos. Tente novamente.',
    suspended: 'Esta conta está suspensa e não pode entrar. Fale com o marketplace.',
    csrf: 'Este formulário expirou',
    settingsTitle: 'Configurações',
    nav: 'Painel',
    apiDocs: 'Documentação da API',
    hide: 'Ocultar',
    created: 'Criada em',
    importedOn: 'Importada em',
    lastUsed: 'Último uso',
    lastUsedNever: 'Ainda não (os usos são registrados uma vez por minuto)',
    exampleTitle: 'Validar um código de compra',
    docsLink: 'Ler a documentação da API',
    usernameMissing: 'Informe seu usuário ou e-mail.',
    passwordMissing: 'Informe sua senha.',
  },
} as const;
type Lang = keyof typeof LABELS;

const account = (username: string, fields: Record<string, unknown>) => ({
  type: 'account',
  username,
  email: `${username}@example.com`,
  registered_at: '2023-01-02T03:04:05Z',
  ...fields,
});

/** What Copy wrote (the test's tsconfig has no DOM types: the expression is evaluated in the page). */
const readClipboard = (page: Page) => page.evaluate('navigator.clipboard.readText()');

let browser: TestBrowser;
let context: BrowserContext;

beforeAll(async () => {
  browser = await launchTestBrowser();
  context = browser.context;
});

afterAll(async () => {
  await browser?.close();
});

describe.each(TEST_STORES)('the seller workspace in Chromium (%s)', (kind) => {
  let t: TestApp;
  let origin: string;
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    const scrypt = await hashPassword(PASSWORD);
    // As Laravel writes it: PHP's $2y$ is bcryptjs's $2b$.
    const laravel = bcrypt.hashSync(BCRYPT_PASSWORD, 10).replace(/^\$2b\$/, '$2y$');
    keys.ann = 'ann-key-0123456789abcdef';
    keys.ana = 'ana-key-0123456789abcdef';
    keys.lee = 'lee-key-0123456789abcdef';
    keys.leo = 'leo-key-0123456789abcdef';
    t = await createTestApp(kind, {
      logLevel: 'info',
      lines: [
        account('ann', { api_key: keys.ann, password_hash: scrypt }),
        account('ana', { api_key: keys.ana, password_hash: scrypt }),
        account('lee', { api_key: keys.lee, password_hash: scrypt }),
        account('leo', { api_key: keys.leo, password_hash: scrypt }),
        account('sue', { status: 'suspended', password_hash: scrypt }),
        account('lara', { password_hash: laravel }),
        account('nopass', {}),
      ],
    });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  });

  afterAll(async () => {
    await t?.close();
  });

  /** What each page's CSP refused (an inline style or script, another origin): checked with its screenshots. */
  const cspRefusals = new WeakMap<Page, string[]>();

  /** A fresh page with no cookies: each flow starts logged out. */
  async function freshPage(): Promise<Page> {
    await context.clearCookies();
    const page = await context.newPage();
    cspRefusals.set(page, watchCspRefusals(page));
    return page;
  }

  async function logIn(page: Page, lang: Lang, username: string, password: string) {
    const l = LABELS[lang];
    await page.goto(`${origin}${l.base}/login`);
    await page.getByLabel(l.username).fill(username);
    await page.getByLabel(l.password).fill(password);
    await page.getByRole('button', { name: l.logIn, exact: true }).click();
    await page.waitForLoadState();
  }

  /**
   * At both widths: a screenshot (test-output/screenshots/, look at them after a change) and an
   * axe-core audit with no serious or critical violation; and nothing the page's CSP refused.
   * SQLite run only: the pages are the same on both stores.
   */
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

  const detailsStatus = async (key: string) =>
    (await fetch(`${origin}/api/account/details`, { headers: { 'x-api-key': key } })).status;

  it.each([
    ['en', 'ann'],
    ['pt', 'ana'],
  ] as const)(
    '%s: log in, Show, Copy, Generate new key (confirmed): old key 401, new key 200; Log out',
    async (lang, username) => {
      const l = LABELS[lang];
      const oldKey = keys[username] as string;
      const page = await freshPage();
      try {
        await page.goto(`${origin}${l.base}/login`);
        expect(await page.locator('html').getAttribute('lang')).toBe(l.lang);
        await shoot(page, `${lang}-login`);
        await logIn(page, lang, username, PASSWORD);

        expect(new URL(page.url()).pathname).toBe(`${l.base}/workspace/settings`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(l.settingsTitle);
        await page.getByRole('heading', { level: 2, name: l.apiKey, exact: true }).waitFor();
        // Masked: the key is not shown.
        expect(await page.locator('#api-key').textContent()).not.toContain(oldKey);
        expect(await page.locator('main').innerText()).not.toContain(oldKey);
        // Not in the page's HTML either: Copy fetches it, as Show asks for it.
        expect(await page.content()).not.toContain(oldKey);
        await shoot(page, `${lang}-settings-masked`);

        // Copy while masked: the key is asked of the server, then copied.
        await page.getByRole('button', { name: l.copy, exact: true }).click();
        await page.getByText(l.copied, { exact: true }).waitFor({ state: 'visible' });
        expect(await readClipboard(page)).toBe(oldKey);
        await page.evaluate("navigator.clipboard.writeText('')");

        await page.getByRole('button', { name: l.show, exact: true }).click();
        await page.waitForLoadState();
        expect(await page.locator('#api-key').textContent()).toBe(oldKey);
        await page.getByRole('button', { name: l.copy, exact: true }).click();
        await page.getByText(l.copied, { exact: true }).waitFor({ state: 'visible' });
        expect(await readClipboard(page)).toBe(oldKey);
        await shoot(page, `${lang}-settings-shown`);

        await page.getByRole('button', { name: l.generate, exact: true }).click();
        await page.waitForLoadState();
        // Nothing changed yet: only the confirmation is asked.
        expect(await detailsStatus(oldKey)).toBe(200);
        await shoot(page, `${lang}-confirm`);
        await page.getByRole('button', { name: l.yes, exact: true }).click();
        await page.waitForLoadState();
        const newKey = (await page.locator('#api-key').textContent()) ?? '';
        expect(newKey).toMatch(/^[0-9a-f]{64}$/);
        await shoot(page, `${lang}-new-key`);

        await page.getByRole('button', { name: l.copy, exact: true }).click();
        await page.getByText(l.copied, { exact: true }).waitFor({ state: 'visible' });
        expect(await readClipboard(page)).toBe(newKey);
        // Post/Redirect/Get: the new key is shown on a GET page; a reload shows the page (masked), not another key.
        expect(new URL(page.url()).pathname).toBe(`${l.base}/workspace/settings`);
        await page.reload();
        expect(await page.locator('#api-key').getAttribute('data-revealed')).toBeNull();
        expect(await page.locator('main').innerText()).not.toContain(newKey);
        expect(await page.content()).not.toContain(newKey);

        expect(await detailsStatus(oldKey)).toBe(401);
        expect(await detailsStatus(newKey)).toBe(200);
        keys[username] = newKey;

        await page.getByRole('button', { name: l.logOut, exact: true }).click();
        await page.waitForLoadState();
        expect(new URL(page.url()).pathname).toBe(`${l.base}/login`);
        await page.goto(`${origin}${l.base}/workspace/settings`);
        expect(new URL(page.url()).pathname).toBe(`${l.base}/login`);
        await page.getByLabel(l.username).waitFor();
      } finally {
        await page.close();
      }
    },
  );

  /** Where an element is drawn, rounded to whole pixels. */
  const boxOf = async (page: Page, selector: string) => {
    const box = await page.locator(selector).boundingBox();
    expect(box, selector).not.toBeNull();
    const { x, y, width, height } = box as { x: number; y: number; width: number; height: number };
    return { x: Math.round(x), y: Math.round(y), width: Math.round(width), height: Math.round(height) };
  };

  it.each([
    ['en', 'lee'],
    ['pt', 'leo'],
  ] as const)(
    "%s: the login card fits its fields; blank fields get the page's own messages; header, navigation, docs, key details, examples, a danger button, buttons that keep their place",
    async (lang, username) => {
      const l = LABELS[lang];
      const key = keys[username] as string;
      const page = await freshPage();
      try {
        await page.goto(`${origin}${l.base}/login`);
        expect(await page.locator('html').getAttribute('lang')).toBe(l.lang);
        // The card is as wide as its fields want on a desktop, the whole width (less margins) on a phone.
        expect((await boxOf(page, 'main .card')).width).toBeGreaterThanOrEqual(360);
        expect((await boxOf(page, 'main .card')).width).toBeLessThanOrEqual(420);
        await page.setViewportSize({ width: 390, height: 844 });
        expect((await boxOf(page, 'main .card')).width).toBeGreaterThanOrEqual(350);
        await page.setViewportSize({ width: 1280, height: 800 });
        // A visible focus ring on what the keyboard reaches: the skip link, the brand (home), the docs
        // link, the two languages, a field, the button.
        const focusRing =
          '(() => { const s = getComputedStyle(document.activeElement); return [document.activeElement.tagName, s.outlineStyle, s.outlineWidth].join(" "); })()';
        const rings: string[] = [];
        for (let step = 0; step < 8; step++) {
          await page.keyboard.press('Tab');
          rings.push((await page.evaluate(focusRing)) as string);
        }
        expect(rings).toEqual([
          ...Array.from({ length: 5 }, () => 'A solid 3px'),
          'INPUT solid 3px',
          'INPUT solid 3px',
          'BUTTON solid 3px',
        ]);

        // Blank fields: the form is sent (no browser bubble, in the browser's language) and the
        // page answers in its own, beside each field.
        expect(await page.locator('form[action$="/login"]').getAttribute('novalidate')).toBe('');
        const blank = page.waitForResponse((r) => r.request().method() === 'POST');
        await page.getByRole('button', { name: l.logIn, exact: true }).click();
        expect((await blank).status()).toBe(400);
        await page.waitForLoadState();
        expect(await page.locator('#login-username-missing').textContent()).toBe(l.usernameMissing);
        expect(await page.locator('#login-password-missing').textContent()).toBe(l.passwordMissing);
        expect(await page.getByLabel(l.username).getAttribute('aria-invalid')).toBe('true');
        await shoot(page, `${lang}-login-blank`);

        await logIn(page, lang, username, PASSWORD);
        expect(new URL(page.url()).pathname).toBe(`${l.base}/workspace/settings`);
        // The header: who is signed in, Log out, the docs; the navigation marks the page.
        const header = page.getByRole('banner');
        expect(await header.innerText()).toContain(username);
        await header.getByRole('button', { name: l.logOut, exact: true }).waitFor();
        expect(await header.getByRole('link', { name: l.apiDocs, exact: true }).getAttribute('href')).toBe(
          `${l.base}/docs`,
        );
        const nav = page.getByRole('navigation', { name: l.nav });
        expect(await nav.getByRole('link', { name: l.settingsTitle, exact: true }).getAttribute('aria-current')).toBe(
          'page',
        );

        // The key's details: an imported key says when it arrived; it has not been used yet.
        const details = page.locator('dl.details');
        expect(await details.locator('dt').allTextContents()).toEqual([l.importedOn, l.lastUsed]);
        const arrived = (await t.store.keyDate(username))?.at as number;
        expect(await details.locator('#key-created').getAttribute('datetime')).toBe(new Date(arrived).toISOString());
        expect((await details.locator('dd').allTextContents())[1]).toBe(l.lastUsedNever);

        // The examples: the address of this variant, the key masked until Show.
        const examples = page.getByRole('region', { name: l.exampleTitle });
        const codes = examples.locator('pre');
        expect(await codes.count()).toBe(2);
        for (const text of await codes.allTextContents()) {
          expect(text).toContain(`${origin}${l.base}/api/purchases/validation`);
          expect(text).toContain(`X-Api-Key: ${'•'.repeat(20)}${key.slice(-4)}`);
          expect(text).not.toContain(key);
        }
        expect(await examples.getByRole('link', { name: l.docsLink, exact: true }).getAttribute('href')).toBe(
          `${l.base}/docs`,
        );

        // Generate new key: red, and in a section of its own, away from Show and Copy.
        const generate = page.getByRole('button', { name: l.generate, exact: true });
        await generate.waitFor();
        expect(
          await page.evaluate("getComputedStyle(document.querySelector('.danger-zone button')).backgroundColor"),
        ).toBe('rgb(180, 35, 24)');
        expect(await page.locator('.danger-zone').getByRole('button', { name: l.show }).count()).toBe(0);

        // Copy keeps its width and place once it says "Copied"; Show and Hide take the same room.
        const show = await boxOf(page, '.actions .swap >> nth=0');
        const copy = await boxOf(page, 'button[data-copy]');
        await page.getByRole('button', { name: l.copy, exact: true }).click();
        await page.getByText(l.copied, { exact: true }).waitFor({ state: 'visible' });
        expect(await boxOf(page, 'button[data-copy]')).toEqual(copy);
        await page.getByRole('button', { name: l.show, exact: true }).click();
        await page.waitForLoadState();
        await page.getByRole('link', { name: l.hide, exact: true }).waitFor();
        expect(await boxOf(page, '.actions .swap >> nth=0')).toEqual(show);
        expect(await boxOf(page, 'button[data-copy]')).toEqual(copy);
        // Shown: the examples are ready to copy, with the key.
        for (const text of await codes.allTextContents()) expect(text).toContain(`X-Api-Key: ${key}`);

        // A key made here has its date.
        const before = Date.now();
        await generate.click();
        await page.waitForLoadState();
        await page.getByRole('button', { name: l.yes, exact: true }).click();
        await page.waitForLoadState();
        const created = Date.parse((await page.locator('#key-created').getAttribute('datetime')) ?? '');
        expect(created).toBeGreaterThanOrEqual(before - 1000);
        expect(created).toBeLessThanOrEqual(Date.now() + 1000);
        expect(await details.locator('dd').last().textContent()).toBe(l.lastUsedNever);
        keys[username] = (await page.locator('#api-key').textContent()) ?? '';
      } finally {
        await page.close();
      }
    },
  );

  it('the accessibility audit sees a violation where there is one (an image without alt text, a field without label)', async () => {
    const page = await freshPage();
    const url = `${origin}/__test-only__/broken.html`;
    try {
      await page.route(url, (route) =>
        route.fulfill({
          contentType: 'text/html; charset=utf-8',
          body: '<!doctype html><html lang="en"><title>x</title><main><img src="/x.png"><input></main></html>',
        }),
      );
      await page.goto(url);
      expect((await seriousViolations(page)).map((violation) => violation.id).sort()).toEqual(['image-alt', 'label']);
    } finally {
      await page.close();
    }
  });

  it.each(['en', 'pt'] as const)('%s: a wrong password and an unknown user get the same answer', async (lang) => {
    const l = LABELS[lang];
    const page = await freshPage();
    try {
      const answers: string[] = [];
      for (const [username, password] of [
        ['ann', 'not the password'],
        ['nobody-here', PASSWORD],
        ['nopass', PASSWORD],
      ]) {
        const response = page.waitForResponse((r) => r.request().method() === 'POST');
        await logIn(page, lang, username as string, password as string);
        expect((await response).status()).toBe(401);
        answers.push((await page.getByRole('alert').textContent()) ?? '');
        expect(new URL(page.url()).pathname).toBe(`${l.base}/login`);
      }
      expect(answers).toEqual([l.wrong, l.wrong, l.wrong]);
      await shoot(page, `${lang}-login-failed`);
    } finally {
      await page.close();
    }
  });

  it.each(['en', 'pt'] as const)('%s: a suspended seller cannot log in', async (lang) => {
    const l = LABELS[lang];
    const page = await freshPage();
    try {
      await logIn(page, lang, 'sue', PASSWORD);
      expect(await page.getByRole('alert').textContent()).toBe(l.suspended);
      await page.goto(`${origin}${l.base}/workspace/settings`);
      expect(new URL(page.url()).pathname).toBe(`${l.base}/login`);
    } finally {
      await page.close();
    }
  });

  it('a seller imported with a Laravel $2y$ bcrypt hash logs in by email, and the hash becomes scrypt', async () => {
    expect(await t.store.passwordHash('lara')).toMatch(/^\$2y\$10\$/);
    const page = await freshPage();
    try {
      await logIn(page, 'en', 'LARA@example.com', BCRYPT_PASSWORD);
      expect(new URL(page.url()).pathname).toBe('/workspace/settings');
      expect(await t.store.passwordHash('lara')).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/);
      await page.getByRole('button', { name: 'Log out', exact: true }).click();
      await page.waitForLoadState();
      // The new hash holds the same password.
      await logIn(page, 'en', 'lara', BCRYPT_PASSWORD);
      expect(new URL(page.url()).pathname).toBe('/workspace/settings');
    } finally {
      await page.close();
    }
  });

  it.each(['en', 'pt'] as const)(
    '%s: a POST without a CSRF token is refused with a page, and nothing changes',
    async (lang) => {
      const l = LABELS[lang];
      const username = lang === 'en' ? 'ann' : 'ana';
      const page = await freshPage();
      try {
        await logIn(page, lang, username, PASSWORD);
        expect(new URL(page.url()).pathname).toBe(`${l.base}/workspace/settings`);
        const key = keys[username] as string;
        // The session cookie goes with it (same origin), the token does not.
        const forged = await page.request.post(`${origin}${l.base}/workspace/settings/generate/confirm`, {
          form: { nothing: '1' },
          maxRedirects: 0,
        });
        expect(forged.status()).toBe(403);
        expect(forged.headers()['content-type']).toBe('text/html; charset=utf-8');
        expect(await forged.text()).toContain(l.csrf);
        const badToken = await page.request.post(`${origin}${l.base}/workspace/settings/generate/confirm`, {
          form: { _csrf: 'forged-token' },
          maxRedirects: 0,
        });
        expect(badToken.status()).toBe(403);
        expect(await detailsStatus(key)).toBe(200);

        // As a page: a form posted from elsewhere without the token.
        await page.setContent(
          `<form method="post" action="${origin}${l.base}/workspace/logout"><button>go</button></form>`,
        );
        await page.getByRole('button', { name: 'go' }).click();
        await page.waitForLoadState();
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(l.csrf);
        await shoot(page, `${lang}-csrf-refused`);
        // Still signed in: the logout did not happen.
        await page.goto(`${origin}${l.base}/workspace/settings`);
        expect(new URL(page.url()).pathname).toBe(`${l.base}/workspace/settings`);
      } finally {
        await page.close();
      }
    },
  );
});

describe('the demo seller of a first start (npm start on a fresh clone)', () => {
  let server: Running | undefined;
  const cwd = mkdtempSync(join(tmpdir(), 'workspace-demo-'));
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited();
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  it('logs in with the credentials the banner prints, in both languages, and sees the printed key', async () => {
    server = startNode('src/main.ts', [], { cwd, env: cleanEnv({ PORT: '0', LOG_LEVEL: 'warn' }) });
    await server.waitFor(/purchase_code=DEMO-VALID-0001'\n={78}\n/);
    const out = server.stdout();
    const [, key] = out.match(/API key of "demo-seller": (\w+)/) ?? [];
    const [, username, password] = out.match(/username "([^"]+)", password "([^"]+)"/) ?? [];
    const loginUrls = [...out.matchAll(/ {2}log in: (\S+)/g)].map((match) => match[1] as string);
    expect(username).toBe('demo-seller');
    expect(loginUrls).toHaveLength(2);
    expect(new URL(loginUrls[1] as string).pathname).toBe('/pt/login');

    for (const [index, url] of loginUrls.entries()) {
      const l = index === 0 ? LABELS.en : LABELS.pt;
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin });
      await context.clearCookies();
      const page = await context.newPage();
      try {
        await page.goto(url);
        await page.getByLabel(l.username).fill(username as string);
        await page.getByLabel(l.password).fill(password as string);
        await page.getByRole('button', { name: l.logIn, exact: true }).click();
        await page.waitForLoadState();
        await page.getByRole('button', { name: l.show, exact: true }).click();
        await page.waitForLoadState();
        expect(await page.locator('#api-key').textContent()).toBe(key);
        await page.getByRole('button', { name: l.copy, exact: true }).click();
        await page.getByText(l.copied, { exact: true }).waitFor({ state: 'visible' });
        expect(await readClipboard(page)).toBe(key);
      } finally {
        await page.close();
      }
    }
  });
});
