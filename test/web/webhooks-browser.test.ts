import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { ACCOUNTS, ALL_LINES } from '../api/fixtures.js';
import { launchTestBrowser, SCREENSHOTS, type TestBrowser } from '../helpers/browser.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { configWith, FAST_WEBHOOKS, verified } from '../webhooks/fixtures.js';
import { payloadOf, Receiver } from '../webhooks/receiver.js';
import { seriousViolations, watchCspRefusals } from './page-audit.js';

/**
 * The workspace's Webhooks page in a real Chromium (issue 25): add an endpoint (the secret shown
 * once, copied), send a test event to a real receiver on loopback, see the last deliveries (a
 * refund delivered, a test event failed, retried), disable, enable, delete; both languages,
 * screenshots at desktop and phone widths, axe-core, and the strict CSP refusing nothing.
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
    nav: 'Webhooks',
    url: 'Endpoint URL',
    refund: 'A refund (purchase.refunded)',
    created: 'A new purchase (purchase.created)',
    add: 'Add endpoint',
    urlProblem: 'Enter a full https:// address, without a user name or password.',
    eventsProblem: 'Choose at least one event.',
    secret: 'Signing secret',
    copy: 'Copy',
    copied: 'The secret is copied to the clipboard.',
    sendTest: 'Send test event',
    testQueued: 'A test event is on its way to the endpoint.',
    delivered: 'Delivered',
    failed: 'Failed',
    retry: 'Retry',
    retryQueued: 'The delivery is on its way again.',
    disable: 'Disable',
    enable: 'Enable',
    disabled: 'Disabled',
    failures: 'Disabled after failures',
    http500: 'Answered HTTP 500. “b nope /b failing”',
    remove: 'Delete',
    removed: 'The endpoint is deleted.',
    none: 'You have no endpoint yet.',
    columns: ['Event', 'Happened', 'Status', 'Attempts', 'Response', 'Detail', 'Retry'],
  },
  pt: {
    base: '/pt',
    username: 'Usuário ou e-mail',
    password: 'Senha',
    logIn: 'Entrar',
    nav: 'Webhooks',
    url: 'URL do endpoint',
    refund: 'Um reembolso (purchase.refunded)',
    created: 'Uma nova compra (purchase.created)',
    add: 'Adicionar endpoint',
    urlProblem: 'Informe um endereço https:// completo, sem usuário nem senha.',
    eventsProblem: 'Escolha pelo menos um evento.',
    secret: 'Segredo de assinatura',
    copy: 'Copiar',
    copied: 'O segredo foi copiado para a área de transferência.',
    sendTest: 'Enviar evento de teste',
    testQueued: 'Um evento de teste está a caminho do endpoint.',
    delivered: 'Entregue',
    failed: 'Falhou',
    retry: 'Tentar de novo',
    retryQueued: 'A entrega está a caminho de novo.',
    disable: 'Desativar',
    enable: 'Ativar',
    disabled: 'Desativado',
    failures: 'Desativado por falhas',
    http500: 'Respondeu HTTP 500. “b nope /b failing”',
    remove: 'Excluir',
    removed: 'O endpoint foi excluído.',
    none: 'Você ainda não tem nenhum endpoint.',
    columns: ['Evento', 'Ocorreu', 'Situação', 'Tentativas', 'Resposta', 'Detalhe', 'Tentar de novo'],
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

describe.each(TEST_STORES)('the Webhooks page in Chromium (%s)', (kind) => {
  let t: TestApp;
  let origin: string;
  let receiver: Receiver;
  let hooks: string;

  beforeAll(async () => {
    const passwordHash = await hashPassword(PASSWORD);
    receiver = new Receiver();
    hooks = await receiver.start();
    t = await createTestApp(kind, {
      logLevel: 'info',
      configFile: configWith(FAST_WEBHOOKS),
      lines: ALL_LINES.map((line) => (line === ACCOUNTS.alice.line ? { ...line, password_hash: passwordHash } : line)),
    });
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
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

  /** The cells of each delivery row shown, trimmed. */
  const deliveryRows = async (page: Page) => {
    const rows: string[][] = [];
    for (const row of await page.locator('table.deliveries tbody tr').all()) {
      rows.push((await row.locator('th, td').allTextContents()).map((text) => text.trim()));
    }
    return rows;
  };

  /** Reloads the page until a delivery of `type` shows `state` (the worker writes it); that row's cells. */
  async function untilDelivery(page: Page, type: string, state: string): Promise<string[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const row = (await deliveryRows(page)).find((cells) => cells[0] === type && cells[2] === state);
      if (row) return row;
      if (Date.now() > deadline)
        throw new Error(`no ${type} delivery shows ${state}: ${JSON.stringify(await deliveryRows(page))}`);
      await page.reload();
    }
  }

  /** Reloads until no delivery shows `failed` any more (the retried one was delivered). */
  async function eventuallyNoFailed(page: Page, failed: string) {
    const deadline = Date.now() + 30_000;
    while ((await deliveryRows(page)).some((cells) => cells[2] === failed)) {
      if (Date.now() > deadline) throw new Error('the retried delivery still shows failed');
      await page.reload();
    }
  }

  const submit = async (page: Page, name: string) => {
    await page.getByRole('button', { name, exact: true }).first().click();
    await page.waitForLoadState();
  };

  it.each(['en', 'pt'] as const)(
    '%s: add, the secret once, test, deliveries, retry, disable, enable, delete',
    async (lang) => {
      const l = LABELS[lang];
      const path = `/browser-${kind}-${lang}`;
      const page = await freshPage();
      try {
        await logIn(page, lang);
        await page.getByRole('link', { name: l.nav, exact: true }).click();
        await page.waitForLoadState();
        expect(new URL(page.url()).pathname).toBe(`${l.base}/workspace/webhooks`);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Webhooks');
        expect(await page.getByRole('link', { name: l.nav, exact: true }).getAttribute('aria-current')).toBe('page');
        expect(await page.locator('#no-endpoints').textContent()).toBe(l.none);

        // A form with no URL, then one with no event: each says what is wrong, nothing is added.
        await submit(page, l.add);
        expect(await page.getByRole('alert').textContent()).toBe(l.urlProblem);
        await page.getByLabel(l.url).fill(`${hooks}${path}`);
        await submit(page, l.add);
        expect(await page.getByRole('alert').textContent()).toBe(l.eventsProblem);
        expect(await page.getByLabel(l.url).inputValue()).toBe(`${hooks}${path}`);

        await page.getByLabel(l.refund).check();
        await page.getByLabel(l.created).check();
        await submit(page, l.add);
        const secret = (await page.locator('#webhook-secret').textContent())?.trim() as string;
        expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
        expect(await page.getByRole('heading', { level: 2, name: l.secret }).count()).toBe(1);
        await page.getByRole('button', { name: l.copy }).click();
        // The status is written once the clipboard's promise settles (copied or failed): wait for it.
        await page.locator('#copy-status:not(:empty)').waitFor();
        expect(await page.locator('#copy-status').textContent()).toBe(l.copied);
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
        expect(await page.getByRole('heading', { level: 3, name: new RegExp(`${hooks}${path}$`) }).count()).toBe(1);
        await shoot(page, `${lang}-webhooks-secret`);
        // Once: the page again shows no secret.
        await page.reload();
        expect(await page.locator('#webhook-secret').count()).toBe(0);
        expect(await page.content()).not.toContain(secret);

        await submit(page, l.sendTest);
        expect(await page.locator('#webhook-notice').textContent()).toBe(l.testQueued);
        const test = await receiver.waitFor((r) => r.path === path);
        expect(verified(secret, test)).toMatchObject({ type: 'webhook.test', account: 'alice' });

        // A refund made elsewhere (the store, as the admin API and the bridge make it) arrives, in the page's language.
        const code = lang === 'en' ? 'ALICE-REG-0001' : 'Alice-Ext-0002';
        await t.store.setPurchaseStatus(code.toLowerCase(), 'refunded');
        const refund = await receiver.waitFor((r) => r.path === path && payloadOf(r).type === 'purchase.refunded');
        expect(verified(secret, refund)).toMatchObject({
          data: { status: 'refunded', purchase: { purchase_code: code, currency: lang === 'en' ? 'USD' : 'BRL' } },
        });
        const first = await untilDelivery(page, 'purchase.refunded', l.delivered);
        const table = page.locator('table.deliveries').first();
        expect((await table.locator('thead th').allTextContents()).map((text) => text.trim())).toEqual(l.columns);
        expect([first[0], first[2], first[3], first[4]]).toEqual(['purchase.refunded', l.delivered, '1', '200']);

        // A test event the receiver refuses: failed after every attempt, then retried and delivered.
        receiver.fallback = 500;
        await submit(page, l.sendTest);
        const failed = await untilDelivery(page, 'webhook.test', l.failed);
        expect([failed[0], failed[2], failed[3], failed[4], failed[5]]).toEqual([
          'webhook.test',
          l.failed,
          '3',
          '500',
          l.http500,
        ]);
        await shoot(page, `${lang}-webhooks-deliveries`);
        receiver.fallback = 200;
        await table.locator('tbody tr').filter({ hasText: l.failed }).getByRole('button', { name: l.retry }).click();
        await page.waitForLoadState();
        expect(await page.locator('#webhook-notice').textContent()).toBe(l.retryQueued);
        await eventuallyNoFailed(page, l.failed);

        await submit(page, l.disable);
        expect(await page.locator('.endpoint .badge').first().textContent()).toBe(l.disabled);
        await submit(page, l.enable);
        expect(await page.locator('.endpoint .badge').first().textContent()).not.toBe(l.disabled);

        // Disabled after a long run of failures: the seller is told, and can enable it again.
        const [endpoint] = await t.store.webhooks().endpoints('alice');
        await t.store.webhooks().updateEndpoint(endpoint?.id as string, {
          enabled: 0,
          disabled_reason: 'failures',
          failing_since: Date.now() - 3_600_000,
        });
        await page.reload();
        expect(await page.locator('.endpoint .badge').first().textContent()).toBe(l.failures);
        expect(await page.getByRole('alert').count()).toBe(1);
        await shoot(page, `${lang}-webhooks-disabled`);

        await submit(page, l.remove);
        expect(await page.locator('#webhook-notice').textContent()).toBe(l.removed);
        expect(await page.locator('#no-endpoints').textContent()).toBe(l.none);
      } catch (error) {
        await page.screenshot({ path: join(SCREENSHOTS, `${lang}-webhooks-failed.png`), fullPage: true });
        throw error;
      } finally {
        await page.close();
      }
    },
  );
});
