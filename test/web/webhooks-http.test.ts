import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { keep, logIn, tokenIn } from './workspace-forms.js';

const PASSWORD = 'a long enough password';
const account = (username: string, passwordHash: string) => ({
  type: 'account',
  username,
  email: `${username}@example.com`,
  registered_at: '2023-01-02T03:04:05Z',
  password_hash: passwordHash,
});

/** The Webhooks page over HTTP: CSRF on every form, one seller never reaching another's endpoints, a secret shown once. */
describe.each(TEST_STORES)('the Webhooks page over HTTP (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    const hash = await hashPassword(PASSWORD);
    t = await createTestApp(kind, { lines: [account('ann', hash), account('kim', hash)] });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a form without the session token, and a form for another seller’s endpoint changes nothing', async () => {
    const { jar } = await logIn(t.app, '', 'ann', PASSWORD);
    const page = await t.app.inject({ url: '/workspace/webhooks', cookies: jar });
    expect(page.statusCode).toBe(200);
    const url = 'https://hooks.example.com/ann';

    const forged = await t.app.inject({
      method: 'POST',
      url: '/workspace/webhooks',
      cookies: jar,
      payload: { url, events: 'purchase.created' },
    });
    expect(forged.statusCode).toBe(403);
    expect(await t.store.webhooks().endpoints('ann')).toEqual([]);

    const added = await t.app.inject({
      method: 'POST',
      url: '/workspace/webhooks',
      cookies: jar,
      payload: { _csrf: tokenIn(page.body), url, events: ['purchase.created', 'purchase.refunded'] },
    });
    expect([added.statusCode, added.headers.location]).toEqual([303, '/workspace/webhooks']);
    const [endpoint] = await t.store.webhooks().endpoints('ann');
    expect(endpoint).toMatchObject({ url, events: '["purchase.created","purchase.refunded"]', lang: 'en' });
    const shown = await t.app.inject({ url: '/workspace/webhooks', cookies: keep(jar, added) });
    const secret = /id="webhook-secret"[^>]*>(whsec_[^<]+)</.exec(shown.body)?.[1];
    expect(secret).toMatch(/^whsec_/);
    expect((await t.app.inject({ url: '/workspace/webhooks', cookies: jar })).body).not.toContain(secret as string);
    expect(t.logs.join('')).not.toContain(secret as string);

    // Kim, signed in elsewhere, posts to Ann's endpoint: it stays as it was.
    const kim = await logIn(t.app, '', 'kim', PASSWORD);
    const kimPage = await t.app.inject({ url: '/workspace/webhooks', cookies: kim.jar });
    for (const action of ['delete', 'disable', 'secret', 'test']) {
      const response = await t.app.inject({
        method: 'POST',
        url: `/workspace/webhooks/${endpoint?.id}/${action}`,
        cookies: kim.jar,
        payload: { _csrf: tokenIn(kimPage.body) },
      });
      expect([action, response.statusCode]).toEqual([action, 303]);
    }
    const after = await t.store.webhooks().endpoints('ann');
    expect(after).toEqual([{ ...endpoint }]);
    expect(await t.store.webhooks().deliveries(endpoint?.id as string, 10)).toEqual([]);
  });

  it('says what is wrong with a form in the page’s language, 422, nothing added', async () => {
    const { jar } = await logIn(t.app, '/pt', 'kim', PASSWORD);
    const page = await t.app.inject({ url: '/pt/workspace/webhooks', cookies: jar });
    const response = await t.app.inject({
      method: 'POST',
      url: '/pt/workspace/webhooks',
      cookies: jar,
      payload: { _csrf: tokenIn(page.body), url: 'http://10.0.0.1/', events: 'purchase.created' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.body).toContain('O endereço deve começar com https://.');
    expect(await t.store.webhooks().endpoints('kim')).toEqual([]);
  });
});
