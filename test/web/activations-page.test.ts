import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { accountLine, itemLine, purchaseLine } from '../api/store-lines.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { keep, logIn, tokenIn } from './workspace-forms.js';

/**
 * The Purchase codes page's activations (inject): a code's installs listed with when they were
 * activated and last validated, one released by its form (CSRF as every workspace form), the
 * item's limit set; in both languages, and only for the seller's own codes.
 */

const PASSWORD = 'a long enough password';
const KEY = 'page-activation-key-0123456789ab';
const OTHER_KEY = 'page-activation-other-0123456789';

describe.each(TEST_STORES)('the activations of a code in the workspace (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    const hash = await hashPassword(PASSWORD);
    t = await createTestApp(kind, {
      lines: [
        accountLine('ana', KEY, { password_hash: hash }),
        accountLine('bo', OTHER_KEY, { password_hash: hash }),
        itemLine(701, 'ana', { activation_limit: 3 }),
        itemLine(702, 'bo'),
        purchaseLine('PAGE-CODE-1', 701),
        purchaseLine('PAGE-CODE-2', 701),
        purchaseLine('BO-PAGE-1', 702),
      ],
    });
    for (const instance of ['alpha.example.com', 'beta.example.com']) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/api/purchases/activations',
        headers: { 'x-api-key': KEY },
        payload: { purchase_code: 'PAGE-CODE-1', instance },
      });
      expect(response.statusCode).toBe(201);
    }
    await t.app.inject({
      method: 'POST',
      url: '/api/purchases/validation',
      headers: { 'x-api-key': KEY },
      payload: { purchase_code: 'PAGE-CODE-1', instance: 'beta.example.com' },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    [
      '',
      [
        'Activations',
        '2 of 3 in use',
        'Not since activated',
        'Release alpha.example.com',
        'Activation limit of the item',
      ],
    ],
    [
      '/pt',
      [
        'Ativações',
        '2 de 3 em uso',
        'Nenhuma desde a ativação',
        'Liberar alpha.example.com',
        'Limite de ativações do item',
      ],
    ],
  ])('lists the installs, when activated and last validated (%s)', async (base, texts) => {
    const { jar } = await logIn(t.app, base, 'ana', PASSWORD);
    const page = await t.app.inject({ url: `${base}/workspace/purchase-codes?code=page-code-1`, cookies: jar });
    expect(page.statusCode).toBe(200);
    for (const text of texts) expect(page.body).toContain(text);
    expect(page.body).toContain('alpha.example.com');
    expect(page.body).toContain('beta.example.com');
    // beta was validated after it was activated: it shows a time, alpha does not.
    const rows = page.body.split('<tr>').filter((row) => row.includes('example.com'));
    expect(rows.map((row) => (row.match(/<time /g) ?? []).length)).toEqual([1, 2]);
  });

  it('releases one install by its form, only with the page’s CSRF token', async () => {
    const { jar } = await logIn(t.app, '', 'ana', PASSWORD);
    const page = await t.app.inject({ url: '/workspace/purchase-codes?code=PAGE-CODE-1', cookies: jar });
    const fields = { code: 'PAGE-CODE-1', instance: 'alpha.example.com' };
    const forged = await t.app.inject({
      method: 'POST',
      url: '/workspace/purchase-codes/release',
      cookies: jar,
      payload: { ...fields, _csrf: 'not-the-token' },
    });
    expect(forged.statusCode).toBe(403);
    expect((await t.store.activations().ofCode('page-code-1')).map((row) => row.instance)).toEqual([
      'alpha.example.com',
      'beta.example.com',
    ]);
    const released = await t.app.inject({
      method: 'POST',
      url: '/workspace/purchase-codes/release',
      cookies: keep(jar, page),
      payload: { ...fields, _csrf: tokenIn(page.body) },
    });
    expect(released.statusCode).toBe(303);
    expect(released.headers.location).toBe('/workspace/purchase-codes?code=PAGE-CODE-1');
    expect((await t.store.activations().ofCode('page-code-1')).map((row) => row.instance)).toEqual([
      'beta.example.com',
    ]);
    const after = await t.app.inject({ url: '/workspace/purchase-codes?code=PAGE-CODE-1', cookies: jar });
    expect(after.body).toContain('1 of 3 in use');
  });

  it('sets the item’s limit, refuses a bad one, and changes nothing of another seller’s', async () => {
    const { jar } = await logIn(t.app, '/pt', 'ana', PASSWORD);
    const page = await t.app.inject({ url: '/pt/workspace/purchase-codes?code=PAGE-CODE-2', cookies: jar });
    const post = (fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/pt/workspace/purchase-codes/activation-limit',
        cookies: jar,
        payload: { ...fields, _csrf: tokenIn(page.body) },
      });
    expect((await post({ code: 'PAGE-CODE-2', limit: '5' })).statusCode).toBe(303);
    expect(await t.store.activations().activationLimit(701)).toBe(5);
    const bad = await post({ code: 'PAGE-CODE-2', limit: 'lots' });
    expect(bad.headers.location).toBe('/pt/workspace/purchase-codes?code=PAGE-CODE-2&limit=bad');
    const shown = await t.app.inject({ url: bad.headers.location as string, cookies: jar });
    expect(shown.body).toContain('O limite deve ser um número inteiro de 1 a 1.000.000');
    expect(await t.store.activations().activationLimit(701)).toBe(5);
    expect((await post({ code: 'PAGE-CODE-2', limit: '' })).statusCode).toBe(303);
    expect(await t.store.activations().activationLimit(701)).toBeNull();
    await post({ code: 'BO-PAGE-1', limit: '1' });
    expect(await t.store.activations().activationLimit(702)).toBeNull();
  });
});
