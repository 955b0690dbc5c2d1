import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PurchaseRefundedEvent, verifyWebhook, WebhookVerificationError } from '../../sdk/dist/index.js';
import { generateWebhookSecret, signWebhook } from '../../src/webhooks/webhook-signing.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { AUTH, addEndpoint, configWith, FAST_WEBHOOKS, LINES, TOKEN } from '../webhooks/fixtures.js';
import { Receiver } from '../webhooks/receiver.js';

const BODY =
  '{"id":"evt_0123456789abcdef0123456789abcdef","type":"webhook.test","timestamp":"2026-01-02T03:04:05.000Z","account":"jdoe","data":{"message":"hi"}}';

describe('verifyWebhook (the SDK, as built)', () => {
  const secret = generateWebhookSecret();
  const at = new Date('2026-01-02T03:04:05.000Z');
  const signed = signWebhook([secret], 'evt_0123456789abcdef0123456789abcdef', at, BODY);
  const now = at.getTime() + 1000;

  it('accepts what the service signs, as the Standard Webhooks library does, and returns the body', async () => {
    expect(await verifyWebhook(BODY, signed, secret, { now })).toEqual(JSON.parse(BODY));
    // The reference library agrees on the same request.
    expect(() => new Webhook(secret).verify(BODY, signed)).toThrow('Message timestamp too old');
    // Headers as fetch gives them, and the body as bytes.
    const headers = new Headers(signed);
    expect(await verifyWebhook(new TextEncoder().encode(BODY), headers, secret, { now })).toMatchObject({
      type: 'webhook.test',
    });
  });

  it('refuses a changed body, another secret, an old or future timestamp, missing headers', async () => {
    const refused = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(WebhookVerificationError);
      return (error as Error).message;
    };
    expect(await refused(verifyWebhook(BODY.replace('hi', 'ho'), signed, secret, { now }))).toBe(
      'no signature matches the secret',
    );
    expect(await refused(verifyWebhook(BODY, signed, generateWebhookSecret(), { now }))).toBe(
      'no signature matches the secret',
    );
    expect(await refused(verifyWebhook(BODY, signed, secret, { now: now + 301_000 }))).toBe(
      'webhook-timestamp is too far from now',
    );
    expect(await refused(verifyWebhook(BODY, signed, secret, { now: now - 302_000 }))).toBe(
      'webhook-timestamp is too far from now',
    );
    expect(await refused(verifyWebhook(BODY, { 'webhook-id': 'x' }, secret, { now }))).toBe(
      'missing webhook-id, webhook-timestamp or webhook-signature',
    );
  });

  it('accepts either signature while a rotated secret still signs, and several secrets on the receiving side', async () => {
    const next = generateWebhookSecret();
    const both = signWebhook([next, secret], 'evt_0123456789abcdef0123456789abcdef', at, BODY);
    expect(both['webhook-signature'].split(' ')).toHaveLength(2);
    expect(await verifyWebhook(BODY, both, secret, { now })).toMatchObject({ type: 'webhook.test' });
    expect(await verifyWebhook(BODY, both, next, { now })).toMatchObject({ type: 'webhook.test' });
    expect(await verifyWebhook(BODY, signed, [next, secret], { now })).toMatchObject({ type: 'webhook.test' });
  });
});

describe('verifyWebhook on a real delivery', () => {
  let t: TestApp;
  let receiver: Receiver;
  let url: string;
  beforeAll(async () => {
    receiver = new Receiver();
    url = await receiver.start();
    t = await createTestApp({ configFile: configWith(FAST_WEBHOOKS), env: { ADMIN_TOKEN: TOKEN }, lines: LINES });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('verifies a refund as a receiver gets it, typed', async () => {
    const { secret } = await addEndpoint(t, { url: `${url}/sdk`, events: ['purchase.refunded'] });
    await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/CODE-2/refund', headers: AUTH });
    const received = await receiver.waitFor((r) => r.path === '/sdk');
    const event = await verifyWebhook(received.body, received.headers as Record<string, string>, secret);
    expect(event.type).toBe('purchase.refunded');
    const refund = event as PurchaseRefundedEvent;
    expect([refund.data.status, refund.data.purchase.purchase_code, refund.data.purchase.item?.id]).toEqual([
      'refunded',
      'CODE-2',
      101,
    ]);
  });
});
