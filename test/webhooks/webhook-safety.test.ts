import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConnectLookup,
  OutboundClient,
  refusingLookup,
  sanitizeExcerpt,
} from '../../src/webhooks/outbound-request.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { AUTH, addEndpoint, adminJson, configWith, eventually, FAST_WEBHOOKS, LINES, TOKEN } from './fixtures.js';
import { Receiver } from './receiver.js';

/** A server that answers every request with a redirect to `location`, and counts them. */
async function redirector(location: string): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_request, response) => {
    hits++;
    response.writeHead(302, { location }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: () => hits,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('outbound requests refuse private destinations (SSRF)', () => {
  let receiver: Receiver;
  let url: string;
  beforeAll(async () => {
    receiver = new Receiver();
    url = await receiver.start();
  });
  const strict = new OutboundClient({ allowHttp: true, allowHosts: [] });
  afterAll(async () => {
    strict.close();
    await receiver.close();
  });

  it('refuses loopback, private, link-local and metadata addresses, and names that resolve to them', async () => {
    const port = new URL(url).port;
    for (const target of [
      url,
      `http://localhost:${port}/`,
      'http://10.1.2.3/',
      'http://192.168.0.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://0.0.0.0/',
      `http://[::127.0.0.1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[64:ff9b::7f00:1]:${port}/`,
      `http://[2002:7f00:1::1]:${port}/`,
      'http://100.64.0.1/',
      'http://198.18.0.1/',
    ]) {
      const result = await strict.post(target, {}, '{}', 2000);
      expect({ target, result }).toEqual({
        target,
        result: { status: 0, ok: false, error: 'refused: the address is private, loopback, link-local or reserved' },
      });
    }
    expect(receiver.received).toEqual([]);
  });

  it('refuses, at connect time, a name whose addresses include one in a refused range', async () => {
    /** A resolver that answers every name with these addresses, as node:dns does. */
    const answering =
      (...addresses: string[]): ConnectLookup =>
      (_hostname, options, callback) => {
        const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0]?.address ?? '', entries[0]?.family);
      };
    const outcome = (lookup: ConnectLookup, all: boolean) =>
      new Promise<string>((resolve) => {
        lookup('hooks.example.com', { all }, (error, address) =>
          resolve(error ? `${(error as NodeJS.ErrnoException).code}: ${error.message}` : JSON.stringify(address)),
        );
      });
    for (const address of ['::7f00:1', '::ffff:7f00:1', '64:ff9b::a00:1', '2002:a00:1::1', 'fc00::1', '100.64.0.1']) {
      for (const all of [true, false]) {
        expect(await outcome(refusingLookup([], answering(address)), all)).toBe(
          `EREFUSEDADDRESS: connecting to ${address} is not allowed`,
        );
      }
    }
    // One refused address among public ones refuses the name.
    expect(await outcome(refusingLookup([], answering('93.184.215.14', '::7f00:1')), true)).toBe(
      'EREFUSEDADDRESS: connecting to ::7f00:1 is not allowed',
    );
    expect(await outcome(refusingLookup([], answering('93.184.215.14')), false)).toBe('"93.184.215.14"');
    expect(await outcome(refusingLookup(['100.64.0.0/10'], answering('100.64.0.1')), true)).toBe(
      JSON.stringify([{ address: '100.64.0.1', family: 4 }]),
    );
  });

  it('refuses http:// unless allowed, and a URL with credentials', async () => {
    const httpsOnly = new OutboundClient({ allowHttp: false, allowHosts: ['127.0.0.1'] });
    expect(await httpsOnly.post(url, {}, '{}', 2000)).toEqual({
      status: 0,
      ok: false,
      error: 'refused: the URL must be an https URL',
    });
    httpsOnly.close();
    expect(await strict.post('https://user:pw@example.com/', {}, '{}', 2000)).toMatchObject({
      error: 'refused: the URL must not hold a user name or password',
    });
  });

  it('lets exactly the allowed addresses through', async () => {
    const allowed = new OutboundClient({ allowHttp: true, allowHosts: ['127.0.0.1'] });
    expect(await allowed.post(`${url}/allowed`, {}, '{}', 2000)).toEqual({ status: 200, ok: true, error: '' });
    expect(await allowed.post('http://10.1.2.3/', {}, '{}', 2000)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^refused/),
    });
    allowed.close();
  });

  it('follows no redirect, to a private address or anywhere', async () => {
    const bounce = await redirector('http://169.254.169.254/latest/meta-data/');
    const allowed = new OutboundClient({ allowHttp: true, allowHosts: ['127.0.0.1'] });
    expect(await allowed.post(bounce.url, {}, '{}', 2000)).toEqual({
      status: 302,
      ok: false,
      error: 'a redirect, not followed',
    });
    expect(bounce.hits()).toBe(1);
    allowed.close();
    await bounce.close();
  });

  it('keeps only printable text of an answer, one line, cut short', () => {
    expect(sanitizeExcerpt(Buffer.from('<html>\n\t<b>Bad\u0000 gateway</b>\u001b[31m</html>'))).toBe(
      'html b Bad gateway /b [31m /html',
    );
    expect(sanitizeExcerpt(Buffer.from('x'.repeat(5000)))).toHaveLength(120);
  });
});

describe('an endpoint failing for too long is disabled, and can be enabled again', () => {
  let t: TestApp;
  let receiver: Receiver;
  let url: string;
  beforeAll(async () => {
    receiver = new Receiver();
    url = await receiver.start();
    t = await createTestApp({
      configFile: configWith({ ...FAST_WEBHOOKS, maxAttempts: 30, disableAfterHours: 0.0001 }),
      env: { ADMIN_TOKEN: TOKEN },
      lines: LINES,
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('disables it after failing for disableAfterHours, counts it, and keeps its deliveries for when it is enabled', async () => {
    receiver.fallback = 500;
    const { id } = await addEndpoint(t, { url: `${url}/dead`, events: ['purchase.refunded'] });
    await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/CODE-2/refund', headers: AUTH });
    const listed = await eventually(
      () => adminJson(t, 'GET', '/admin/v1/accounts/jdoe/webhooks'),
      (answer) => (answer.body.webhooks as { enabled: boolean }[])[0]?.enabled === false,
      'the endpoint disabled',
    );
    expect(listed.body.webhooks).toMatchObject([
      {
        id,
        enabled: false,
        disabled_reason: 'failures',
        failing_since: expect.stringMatching(/Z$/),
        pending_deliveries: 1,
      },
    ]);
    // The store shows the endpoint disabled when the writer commits; the counter moves when the
    // delivery worker hears back from it, a moment later.
    const metrics = await eventually(
      () => t.app.inject({ method: 'GET', url: '/admin/v1/metrics', headers: AUTH }),
      (answer) => answer.body.includes('marketplace_webhook_endpoints_disabled_total 1'),
      'the disabled endpoint counted',
    );
    expect(metrics.body).toContain('marketplace_webhook_endpoints_disabled_total 1');
    expect(metrics.body).toMatch(/marketplace_webhook_attempts_total\{outcome="retrying"\} [1-9]/);

    receiver.fallback = 200;
    expect((await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/enable`)).body).toEqual({
      id,
      enabled: true,
    });
    await receiver.waitFor((r) => r.answered === 200);
    const healthy = await eventually(
      () => adminJson(t, 'GET', '/admin/v1/accounts/jdoe/webhooks'),
      (answer) => (answer.body.webhooks as { pending_deliveries: number }[])[0]?.pending_deliveries === 0,
      'the delivery made',
    );
    expect(healthy.body.webhooks).toMatchObject([
      { enabled: true, disabled_reason: null, failing_since: null, last_success_at: expect.stringMatching(/Z$/) },
    ]);
    const after = await eventually(
      () => t.app.inject({ method: 'GET', url: '/admin/v1/metrics', headers: AUTH }),
      (answer) => answer.body.includes('marketplace_webhook_attempts_total{outcome="succeeded"} 1'),
      'the delivery counted',
    );
    expect(after.body).toContain('marketplace_webhook_attempts_total{outcome="succeeded"} 1');
  });
});
