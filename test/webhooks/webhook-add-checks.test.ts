import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/passwords/password-hash.js';
import { newEndpointRow } from '../../src/store/webhooks/webhook-rows.js';
import { addressRefused, endpointAddressRefused } from '../../src/webhooks/outbound-request.js';
import { PRIVATE_URL_MESSAGE } from '../../src/webhooks/webhook-endpoints.js';
import { generateWebhookSecret, sealWebhookSecret } from '../../src/webhooks/webhook-signing.js';
import { createTestApp, TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { keep, logIn, tokenIn } from '../web/workspace-forms.js';
import { AUTH, addEndpoint, adminJson, eventually, FAST_WEBHOOKS, TOKEN, verified, webhooksApp } from './fixtures.js';
import { Receiver } from './receiver.js';

const PASSWORD = 'a long enough password';

/**
 * Webhook URLs checked when added, by the rule deliveries follow (the host resolved then too), on
 * every surface; and a delivery refused for good disabling its endpoint at once, in the page's words.
 */
describe.each(TEST_STORES)('webhook URLs checked when added (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    const hash = await hashPassword(PASSWORD);
    t = await createTestApp(kind, {
      // The defaults: https only, no private address let through.
      configFile: { webhooks: { pollSeconds: 0.02 } },
      env: { ADMIN_TOKEN: TOKEN },
      lines: [
        {
          type: 'account',
          username: 'ann',
          email: 'ann@example.com',
          registered_at: '2023-01-02T03:04:05Z',
          password_hash: hash,
        },
      ],
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the admin API refuses private addresses and names that resolve to one, 422 with its reason', async () => {
    for (const url of [
      'https://127.0.0.1:9/hook',
      'https://10.1.2.3/in',
      'https://[::1]/in',
      'https://localhost/in',
      'https://[::127.0.0.1]/in',
      'https://[::ffff:10.0.0.1]/in',
      'https://[64:ff9b::a00:1]/in',
      'https://100.64.0.1/in',
    ]) {
      const answer = await adminJson(t, 'POST', '/admin/v1/accounts/ann/webhooks', {
        url,
        events: ['purchase.created'],
      });
      expect([url, answer.status, answer.body]).toEqual([
        url,
        422,
        { code: 'invalid_webhook', message: PRIVATE_URL_MESSAGE },
      ]);
    }
    expect(await t.store.webhooks().endpoints('ann')).toEqual([]);
    // A public address is taken; so is a name that does not resolve now (DNS may be down a moment).
    for (const url of ['https://93.184.215.14/in', 'https://hooks.example.invalid/in']) {
      const answer = await adminJson(t, 'POST', '/admin/v1/accounts/ann/webhooks', {
        url,
        events: ['purchase.created'],
      });
      expect([url, answer.status]).toEqual([url, 201]);
      await adminJson(t, 'DELETE', `/admin/v1/accounts/ann/webhooks/${answer.body.id}`);
    }
  });

  it.each([
    ['', 'https://127.0.0.1:9/hook', 'This address leads to a private, local or reserved network'],
    ['/pt', 'https://127.0.0.1:9/hook', 'Este endereço leva a uma rede privada, local ou reservada'],
    ['', 'http://hooks.example.com/in', 'The address must start with https://.'],
    ['/pt', 'http://hooks.example.com/in', 'O endereço deve começar com https://.'],
    ['/pt', 'https://user:pw@hooks.example.com/in', 'O endereço não deve conter usuário nem senha.'],
  ])('the workspace (%s) refuses %s at once: a 422 page saying why', async (base, url, reason) => {
    const { jar } = await logIn(t.app, base, 'ann', PASSWORD);
    const page = await t.app.inject({ url: `${base}/workspace/webhooks`, cookies: jar });
    const response = await t.app.inject({
      method: 'POST',
      url: `${base}/workspace/webhooks`,
      cookies: keep(jar, page),
      payload: { _csrf: tokenIn(page.body), url, events: 'purchase.created' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain(reason);
    expect(await t.store.webhooks().endpoints('ann')).toEqual([]);
  });

  it('a delivery refused for good disables its endpoint at once, said in the page’s language; the test event too', async () => {
    // Added before the rules changed (an older server, or allowHosts since removed): put in directly.
    const row = newEndpointRow(
      {
        id: 'we_refused',
        account: 'ann',
        url: 'https://127.0.0.1:9/hook',
        events: JSON.stringify(['purchase.created']),
        lang: 'pt',
        secret_cipher: sealWebhookSecret(t.keys, generateWebhookSecret()),
      },
      Date.now(),
    );
    expect(await t.store.webhooks().createEndpoint(row, 10)).toBe('created');
    const test = await t.app.inject({
      method: 'POST',
      url: '/admin/v1/accounts/ann/webhooks/we_refused/test',
      headers: AUTH,
    });
    expect(test.statusCode).toBe(202);
    const listed = await eventually(
      () => adminJson(t, 'GET', '/admin/v1/accounts/ann/webhooks'),
      (answer) => (answer.body.webhooks as { enabled: boolean }[])[0]?.enabled === false,
      'the endpoint disabled',
    );
    expect(listed.body.webhooks).toMatchObject([{ id: 'we_refused', enabled: false, disabled_reason: 'refused' }]);
    const deliveries = await adminJson(t, 'GET', '/admin/v1/accounts/ann/webhooks/we_refused/deliveries');
    // One attempt, kept pending (enabling the endpoint again tries once more), never retried meanwhile.
    expect(deliveries.body.deliveries).toMatchObject([
      {
        type: 'webhook.test',
        state: 'pending',
        attempts: 1,
        error: 'refused: the address is private, loopback, link-local or reserved',
      },
    ]);

    for (const [base, status, detail] of [
      ['', 'Disabled: address refused', 'Refused: the address is private, local or reserved.'],
      ['/pt', 'Desativado: endereço recusado', 'Recusada: o endereço é privado, local ou reservado.'],
    ] as const) {
      const { jar } = await logIn(t.app, base, 'ann', PASSWORD);
      const page = await t.app.inject({ url: `${base}/workspace/webhooks`, cookies: jar });
      expect(page.body).toContain(status);
      expect(page.body).toContain(detail);
      expect(page.body).not.toContain('refused: the address is private');
    }
    await adminJson(t, 'DELETE', '/admin/v1/accounts/ann/webhooks/we_refused');
  });

  it('keeps the cap of 10 endpoints when 40 adds arrive at once, from the admin API and the workspace', async () => {
    const { jar } = await logIn(t.app, '', 'ann', PASSWORD);
    const page = await t.app.inject({ url: '/workspace/webhooks', cookies: jar });
    const cookies = keep(jar, page);
    const csrf = tokenIn(page.body);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        n % 2 === 0
          ? adminJson(t, 'POST', '/admin/v1/accounts/ann/webhooks', {
              url: `https://93.184.215.14/admin-${n}`,
              events: ['purchase.created'],
            }).then((answer) => answer.status)
          : t.app
              .inject({
                method: 'POST',
                url: '/workspace/webhooks',
                cookies,
                payload: { _csrf: csrf, url: `https://93.184.215.14/page-${n}`, events: 'purchase.created' },
              })
              .then((answer) => answer.statusCode),
      ),
    );
    const added = answers.filter((status) => status === 201 || status === 303);
    const refused = answers.filter((status) => status === 422);
    expect([added.length, refused.length]).toEqual([10, 30]);
    const endpoints = await t.store.webhooks().endpoints('ann');
    expect(endpoints).toHaveLength(10);
    const over = await adminJson(t, 'POST', '/admin/v1/accounts/ann/webhooks', {
      url: 'https://93.184.215.14/one-more',
      events: ['purchase.created'],
    });
    expect([over.status, over.body]).toEqual([
      422,
      { code: 'invalid_webhook', message: 'an account may have at most 10 webhook endpoints' },
    ]);
    for (const endpoint of endpoints) await adminJson(t, 'DELETE', `/admin/v1/accounts/ann/webhooks/${endpoint.id}`);
  });
});

describe.each(TEST_STORES)('the test event in the endpoint’s language (%s)', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  let url: string;
  beforeAll(async () => {
    t = await webhooksApp(kind, FAST_WEBHOOKS);
    receiver = new Receiver();
    url = await receiver.start();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('says its message in Portuguese to a pt endpoint, in English to an en one', async () => {
    for (const [lang, message] of [
      ['pt', 'Um evento de teste do marketplace'],
      ['en', 'A test event from the marketplace'],
    ] as const) {
      const { id, secret } = await addEndpoint(t, { url: `${url}/${lang}`, events: ['purchase.created'], lang });
      await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/test`);
      const received = await receiver.waitFor((r) => r.path === `/${lang}`);
      expect(verified(secret, received)).toMatchObject({ type: 'webhook.test', data: { message } });
    }
  });
});

describe('the add-time address check', () => {
  const strict = { allowHttp: false, allowHosts: [] };
  const resolvingTo =
    (...addresses: string[]) =>
    async () =>
      addresses.map((address) => ({ address }));

  it('judges every address a name resolves to, as the delivery agent does', async () => {
    expect(await endpointAddressRefused('https://a.test/', strict, resolvingTo('93.184.215.14'))).toBe(false);
    expect(await endpointAddressRefused('https://a.test/', strict, resolvingTo('93.184.215.14', '10.0.0.1'))).toBe(
      true,
    );
    expect(await endpointAddressRefused('https://a.test/', strict, resolvingTo('169.254.169.254'))).toBe(true);
    expect(await endpointAddressRefused('https://a.test/', strict, resolvingTo('::ffff:127.0.0.1'))).toBe(true);
    expect(await endpointAddressRefused('https://a.test/', strict, resolvingTo('fd00::1'))).toBe(true);
    const allowing = { allowHttp: false, allowHosts: ['10.1.0.0/16', '127.0.0.1'] };
    expect(await endpointAddressRefused('https://a.test/', allowing, resolvingTo('10.1.2.3', '127.0.0.1'))).toBe(false);
    expect(await endpointAddressRefused('https://a.test/', allowing, resolvingTo('10.2.0.1'))).toBe(true);
    // A name that does not resolve now is let through; its deliveries are checked as any.
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND a.test'), { code: 'ENOTFOUND' });
    };
    expect(await endpointAddressRefused('https://a.test/', strict, failing)).toBe(false);
    // An address literal is judged without a lookup.
    expect(await endpointAddressRefused('https://[fe80::1]/', strict, failing)).toBe(true);
    expect(addressRefused('8.8.8.8', [])).toBe(false);
    expect(addressRefused('0.0.0.0', [])).toBe(true);
  });

  // One address in each range a careful filter refuses, and what it is.
  it.each([
    ['0.1.2.3', '0.0.0.0/8, "this network"'],
    ['10.0.0.1', '10.0.0.0/8, private'],
    ['100.64.0.1', '100.64.0.0/10, carrier-grade NAT'],
    ['100.127.255.254', '100.64.0.0/10, carrier-grade NAT (its end)'],
    ['127.0.0.1', '127.0.0.0/8, loopback'],
    ['169.254.169.254', '169.254.0.0/16, link-local (cloud metadata)'],
    ['172.16.0.1', '172.16.0.0/12, private'],
    ['192.0.0.8', '192.0.0.0/24, IETF protocol assignments'],
    ['192.0.2.1', '192.0.2.0/24, documentation'],
    ['192.88.99.1', '192.88.99.0/24, 6to4 relay anycast'],
    ['192.168.1.1', '192.168.0.0/16, private'],
    ['198.18.0.1', '198.18.0.0/15, benchmarking'],
    ['198.19.255.1', '198.18.0.0/15, benchmarking (its end)'],
    ['198.51.100.1', '198.51.100.0/24, documentation'],
    ['203.0.113.1', '203.0.113.0/24, documentation'],
    ['224.0.0.1', '224.0.0.0/4, multicast'],
    ['240.0.0.1', '240.0.0.0/4, reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::7f00:1', '::/96, IPv4-compatible (::127.0.0.1)'],
    ['::a00:1', '::/96, IPv4-compatible (::10.0.0.1)'],
    ['::808:808', '::/96, IPv4-compatible, even of a public address'],
    ['::ffff:127.0.0.1', '::ffff:0:0/96, IPv4-mapped'],
    ['::ffff:8.8.8.8', '::ffff:0:0/96, IPv4-mapped, even of a public address'],
    ['::ffff:0:a00:1', '::ffff:0:0:0/96, IPv4-translated'],
    ['64:ff9b::7f00:1', '64:ff9b::/96, NAT64'],
    ['64:ff9b:1::a00:1', '64:ff9b:1::/48, local NAT64'],
    ['100::1', '100::/64, discard'],
    ['2001::1', '2001::/32, Teredo'],
    ['2001:2::1', '2001:2::/48, benchmarking'],
    ['2001:db8::1', '2001:db8::/32, documentation'],
    ['2002:7f00:1::1', '2002::/16, 6to4 (of 127.0.0.1)'],
    ['2002:a00:1::1', '2002::/16, 6to4 (of 10.0.0.1)'],
    ['3fff::1', '3fff::/20, documentation'],
    ['fc00::1', 'fc00::/7, unique local'],
    ['fd12:3456::1', 'fc00::/7, unique local'],
    ['fe80::1', 'fe80::/10, link-local'],
    ['fec0::1', 'fec0::/10, site-local'],
    ['ff02::1', 'ff00::/8, multicast'],
    ['4000::1', 'outside 2000::/3, not assigned'],
    ['5f00::1', '5f00::/16, segment routing'],
  ])('refuses %s (%s)', (address) => {
    expect(addressRefused(address, [])).toBe(true);
  });

  it.each([['93.184.215.14'], ['8.8.8.8'], ['1.1.1.1'], ['2606:4700:4700::1111'], ['2a00:1450:4001::200e']])(
    'lets the public address %s through',
    (address) => {
      expect(addressRefused(address, [])).toBe(false);
    },
  );
});
