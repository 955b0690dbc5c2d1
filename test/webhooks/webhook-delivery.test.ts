import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/openapi-document.js';
import { webhookEventSchemas } from '../../src/schemas/webhook-schemas.js';
import { createContractAjv, keyOrderProblems } from '../helpers/response-contract.js';
import { TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { accountLine, itemLine, purchaseLine } from '../importer/import-fixtures.js';
import {
  AUTH,
  addEndpoint,
  adminJson,
  eventually,
  FAST_WEBHOOKS,
  KEY,
  validatedPurchase,
  verified,
  webhooksApp,
} from './fixtures.js';
import { payloadOf, type Received, Receiver } from './receiver.js';

describe.each(TEST_STORES)('signed webhooks on %s', (kind) => {
  let t: TestApp;
  let receiver: Receiver;
  let url: string;

  let endpoints: string[] = [];
  beforeAll(async () => {
    t = await webhooksApp(kind, FAST_WEBHOOKS);
    receiver = new Receiver();
    url = await receiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });
  /** Every request any test received, for the last test's check against the schemas. */
  const everything: Received[] = [];
  afterEach(async () => {
    everything.push(...receiver.received);
    // Each test's endpoints go, so that the next test's receiver hears its own events only.
    for (const id of endpoints)
      await t.app.inject({ method: 'DELETE', url: `/admin/v1/accounts/jdoe/webhooks/${id}`, headers: AUTH });
    endpoints = [];
    receiver.received.length = 0;
    receiver.fallback = 200;
  });
  const add = async (body: Record<string, unknown>) => {
    const endpoint = await addEndpoint(t, body);
    endpoints.push(endpoint.id);
    return endpoint;
  };

  it('adds an endpoint (201, its secret once) and lists it with its health, never the secret', async () => {
    const endpoint = await add({ url: `${url}/hooks`, events: ['purchase.refunded', 'purchase.created'] });
    expect(endpoint.id).toMatch(/^we_[0-9a-f]{32}$/);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const listed = await adminJson(t, 'GET', '/admin/v1/accounts/jdoe/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.response.headers['cache-control']).toBe('no-store');
    expect(listed.body).toEqual({
      webhooks: [
        {
          id: endpoint.id,
          url: `${url}/hooks`,
          events: ['purchase.refunded', 'purchase.created'],
          lang: 'en',
          enabled: true,
          disabled_reason: null,
          failing_since: null,
          last_success_at: null,
          pending_deliveries: 0,
          secret_rotation_ends_at: null,
          created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        },
      ],
    });
    expect(listed.response.body).not.toContain(endpoint.secret);
    expect(t.logs.join('')).not.toContain(endpoint.secret);
  });

  it('tells of a refund through the admin API, signed, with the Purchase object as the validation endpoint writes it', async () => {
    const { secret } = await add({ url: `${url}/en`, events: ['purchase.refunded'] });
    const pt = await add({ url: `${url}/pt`, events: ['purchase.refunded'], lang: 'pt' });
    const asValidated = await validatedPurchase(t, '', 'CODE-2');
    const asValidatedPt = await validatedPurchase(t, '/pt', 'CODE-2');
    const refunded = await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/CODE-2/refund', headers: AUTH });
    expect(refunded.statusCode).toBe(200);

    const en = await receiver.waitFor((r) => r.path === '/en');
    const payload = verified(secret, en);
    expect(payload).toEqual({
      id: en.headers['webhook-id'],
      type: 'purchase.refunded',
      timestamp: expect.stringMatching(/Z$/),
      account: 'jdoe',
      data: { purchase: asValidated, status: 'refunded' },
    });
    expect(en.headers['webhook-id']).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(en.headers['content-type']).toBe('application/json');
    // Keys in the contract's order, as the validation endpoint writes them.
    expect(Object.keys((payload.data as { purchase: object }).purchase)).toEqual(Object.keys(asValidated as object));

    const ptReceived = await receiver.waitFor((r) => r.path === '/pt');
    expect(verified(pt.secret, ptReceived)).toMatchObject({ data: { purchase: asValidatedPt, status: 'refunded' } });
    expect((asValidatedPt as { currency: string }).currency).toBe('BRL');
    // A signature made with another endpoint's secret does not verify.
    expect(() => verified(pt.secret, en)).toThrow('No matching signature found');
  });

  it('tells of a cancellation, a download and a key rotation (never the key)', async () => {
    const { secret } = await add({
      url: `${url}/all`,
      events: ['purchase.cancelled', 'purchase.downloaded', 'api_key.rotated'],
    });
    await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/CODE-3/cancel', headers: AUTH });
    await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/ABC-123_x/downloaded', headers: AUTH });
    const rotated = await adminJson(t, 'POST', '/admin/v1/accounts/jdoe/api-key');
    const newKey = rotated.body.api_key as string;

    const cancelled = payloadOf(await receiver.waitFor((r) => payloadOf(r).type === 'purchase.cancelled'));
    expect(cancelled.data).toMatchObject({ status: 'cancelled', purchase: { purchase_code: 'CODE-3' } });
    const downloaded = await receiver.waitFor((r) => payloadOf(r).type === 'purchase.downloaded');
    expect(verified(secret, downloaded)).toMatchObject({
      data: { status: 'active', purchase: { purchase_code: 'ABC-123_x', downloaded: true } },
    });
    const key = await receiver.waitFor((r) => payloadOf(r).type === 'api_key.rotated');
    expect(verified(secret, key)).toEqual({
      id: key.headers['webhook-id'],
      type: 'api_key.rotated',
      timestamp: expect.stringMatching(/Z$/),
      account: 'jdoe',
      data: { old_key_works_until: null },
    });
    expect(key.body).not.toContain(newKey);
    expect(key.body).not.toContain(KEY);
    // Put back for the other tests.
    await t.importLines(
      [
        {
          type: 'account',
          username: 'jdoe',
          email: 'j@example.com',
          api_key: KEY,
          registered_at: '2023-01-02T03:04:05Z',
        },
      ],
      { replaceKeys: true },
    );
  });

  it('tells of purchases an import creates, in bulk, and of nothing when the same lines come again', async () => {
    const { secret } = await add({ url: `${url}/created`, events: ['purchase.created', 'purchase.refunded'] });
    const lines = [1, 2, 3].map((n) => purchaseLine({ code: `NEW-${n}` }));
    await t.importLines(lines);
    await t.importLines(lines);
    // A later change marks the end: every event made before it has been delivered by then or is on its way.
    await t.importLines([purchaseLine({ code: 'NEW-1', status: 'refunded' })]);
    const refund = await receiver.waitFor((r) => payloadOf(r).type === 'purchase.refunded');
    expect(verified(secret, refund)).toMatchObject({
      data: { status: 'refunded', purchase: { purchase_code: 'NEW-1' } },
    });
    const created = await eventually(
      async () =>
        receiver
          .ofType('purchase.created')
          .map((r) => (payloadOf(r).data.purchase as { purchase_code: string }).purchase_code),
      (codes) => codes.length >= 3,
      'three purchase.created',
    );
    expect(created.sort()).toEqual(['NEW-1', 'NEW-2', 'NEW-3']);
    const deliveries = await adminJson(t, 'GET', `/admin/v1/accounts/jdoe/webhooks/${endpoints[0]}/deliveries`);
    expect((deliveries.body.deliveries as unknown[]).length).toBe(4);
  });

  it('retries after 500s and a timeout, with the same id and a fresh signature, until answered', async () => {
    const { id, secret } = await add({ url: `${url}/flaky`, events: ['purchase.refunded'] });
    receiver.answerNext(500, 'hang', 200);
    await t.importLines([purchaseLine({ code: 'FLAKY-1' })]);
    await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/FLAKY-1/refund', headers: AUTH });
    const delivered = await receiver.waitFor((r) => r.path === '/flaky' && r.answered === 200);
    const attempts = receiver.received.filter((r) => r.path === '/flaky');
    expect(attempts.map((r) => r.answered)).toEqual([500, 0, 200]);
    expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const attempt of attempts) expect(verified(secret, attempt)).toMatchObject({ type: 'purchase.refunded' });
    expect(payloadOf(delivered).data).toMatchObject({ purchase: { purchase_code: 'FLAKY-1' } });
    const deliveries = await eventually(
      () => adminJson(t, 'GET', `/admin/v1/accounts/jdoe/webhooks/${id}/deliveries`),
      (answer) => (answer.body.deliveries as { state: string }[])[0]?.state === 'succeeded',
      'the delivery recorded as succeeded',
    );
    expect(deliveries.body.deliveries).toEqual([
      {
        event_id: delivered.headers['webhook-id'],
        type: 'purchase.refunded',
        occurred_at: expect.any(String),
        state: 'succeeded',
        attempts: 3,
        last_attempt_at: expect.any(String),
        next_attempt_at: null,
        response_status: 200,
        error: null,
      },
    ]);
  });

  it('gives up after maxAttempts, keeps only a sanitised excerpt of the answer, and sends again on a retry or a replay', async () => {
    const { id } = await add({ url: `${url}/down`, events: ['purchase.cancelled'] });
    receiver.fallback = 503;
    await t.importLines([purchaseLine({ code: 'DOWN-1' })]);
    const since = new Date().toISOString();
    await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/DOWN-1/cancel', headers: AUTH });
    const failed = await eventually(
      () => adminJson(t, 'GET', `/admin/v1/accounts/jdoe/webhooks/${id}/deliveries`),
      (answer) => (answer.body.deliveries as { state: string }[])[0]?.state === 'failed',
      'the delivery failed for good',
    );
    const [delivery] = failed.body.deliveries as {
      event_id: string;
      attempts: number;
      response_status: number;
      error: string;
    }[];
    expect(delivery).toMatchObject({ attempts: 3, response_status: 503, error: 'HTTP 503: b nope /b failing' });
    expect(receiver.received.filter((r) => r.path === '/down')).toHaveLength(3);
    const listed = await adminJson(t, 'GET', '/admin/v1/accounts/jdoe/webhooks');
    expect((listed.body.webhooks as { failing_since: string | null }[])[0]?.failing_since).toMatch(/Z$/);

    receiver.fallback = 200;
    const retried = await adminJson(
      t,
      'POST',
      `/admin/v1/accounts/jdoe/webhooks/${id}/deliveries/${delivery?.event_id}/retry`,
    );
    expect(retried).toMatchObject({ status: 200, body: { event_id: delivery?.event_id, state: 'pending' } });
    await receiver.waitFor((r) => r.path === '/down' && r.answered === 200);

    const replayed = await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/replay`, {
      from: since,
      to: new Date().toISOString(),
    });
    expect(replayed).toMatchObject({ status: 200, body: { replayed: 1 } });
    await eventually(
      async () => receiver.received.filter((r) => r.path === '/down' && r.answered === 200).length,
      (n) => n === 2,
      'the replayed event delivered',
    );
    const ids = new Set(receiver.received.filter((r) => r.path === '/down').map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
  });

  it('sends a retry or a replay with only what the seller owns: null for an item moved to another seller', async () => {
    const { id, secret } = await add({ url: `${url}/moved`, events: ['purchase.refunded'] });
    await t.importLines([itemLine({ id: 202, name: 'Moving Theme' }), purchaseLine({ code: 'MOVE-1', item_id: 202 })]);
    const since = new Date().toISOString();
    const owned = await validatedPurchase(t, '', 'MOVE-1');
    await t.app.inject({ method: 'POST', url: '/admin/v1/purchases/MOVE-1/refund', headers: AUTH });
    const first = verified(secret, await receiver.waitFor((r) => r.path === '/moved'));
    expect(first.data).toEqual({ purchase: owned, status: 'refunded' });

    // The item goes to another seller: jdoe's events no longer carry it, whether retried or replayed.
    await t.importLines([
      accountLine({ username: 'other', email: 'other@example.com', api_key: 'other-key-0123456789abcdef' }),
      itemLine({ id: 202, account: 'other', name: "Another seller's now" }),
    ]);
    const { item: _item, supported_until: _until, ...withoutItem } = owned as Record<string, unknown>;
    const expected = { purchase: { ...withoutItem, item: null }, status: 'refunded' };
    const eventId = first.id as string;
    receiver.received.length = 0;
    const retried = await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/deliveries/${eventId}/retry`);
    expect(retried.status).toBe(200);
    const again = verified(secret, await receiver.waitFor((r) => r.path === '/moved'));
    expect(again).toMatchObject({ id: eventId, account: 'jdoe', data: expected });
    expect(Object.keys((again.data as { purchase: object }).purchase)).toEqual(
      Object.keys(owned as object).filter((key) => key !== 'supported_until'),
    );

    receiver.received.length = 0;
    const replayed = await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/replay`, { from: since });
    expect(replayed).toMatchObject({ status: 200, body: { replayed: 1 } });
    const replay = verified(secret, await receiver.waitFor((r) => r.path === '/moved'));
    expect(replay).toMatchObject({ id: eventId, data: expected });
    expect(JSON.stringify(replay)).not.toContain("Another seller's now");
  });

  it('sends a test event, and signs with both secrets while a rotation overlaps', async () => {
    const { id, secret } = await add({ url: `${url}/rotate`, events: ['purchase.created'] });
    const rotated = await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/secret`);
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(rotated.body.previous_secret_works_until).toMatch(/Z$/);
    const test = await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/test`);
    expect(test.status).toBe(202);
    const received = await receiver.waitFor((r) => r.path === '/rotate');
    expect(received.headers['webhook-id']).toBe(test.body.event_id);
    expect((received.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verified(secret, received)).toMatchObject({ type: 'webhook.test', data: { message: expect.any(String) } });
    expect(verified(newSecret, received)).toMatchObject({ type: 'webhook.test' });
  });

  it('refuses bad requests clearly, and says which account or endpoint is missing', async () => {
    const post = (username: string, payload: object) =>
      adminJson(t, 'POST', `/admin/v1/accounts/${username}/webhooks`, payload);
    expect((await post('jdoe', { url: `${url}/x`, events: ['purchase.exploded'] })).body).toEqual({
      code: 'invalid_webhook',
      message:
        'events: "purchase.exploded" is not one of purchase.created, purchase.refunded, purchase.cancelled, purchase.downloaded, api_key.rotated, activation.created, activation.released',
    });
    expect((await post('jdoe', { url: 'ftp://example.com/', events: ['purchase.created'] })).body).toEqual({
      code: 'invalid_webhook',
      message: 'url must be an http or https URL',
    });
    expect((await post('jdoe', { url: `${url}/x`, events: [] })).status).toBe(422);
    expect((await post('jdoe', { url: `${url}/x`, events: ['purchase.created'], lang: 'fr' })).body).toEqual({
      code: 'invalid_webhook',
      message: 'lang must be one of en, pt',
    });
    expect((await post('nobody', { url: `${url}/x`, events: ['purchase.created'] })).body).toEqual({
      code: 'account_not_found',
      message: 'No account has this username',
    });
    expect((await adminJson(t, 'DELETE', '/admin/v1/accounts/jdoe/webhooks/we_missing')).body).toEqual({
      code: 'webhook_not_found',
      message: 'The account has no webhook endpoint with this id',
    });
    expect((await adminJson(t, 'GET', '/admin/v1/accounts/nobody/webhooks')).status).toBe(404);
    const noToken = await t.app.inject({ method: 'GET', url: '/admin/v1/accounts/jdoe/webhooks' });
    expect(noToken.statusCode).toBe(401);
    const wrongMethod = await t.app.inject({ method: 'PUT', url: '/admin/v1/accounts/jdoe/webhooks', headers: AUTH });
    expect(wrongMethod.statusCode).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET, HEAD, POST');
    const { id } = await add({ url: `${url}/x`, events: ['purchase.created'] });
    expect(
      (await adminJson(t, 'POST', `/admin/v1/accounts/jdoe/webhooks/${id}/replay`, { from: 'yesterday' })).body,
    ).toEqual({
      code: 'invalid_webhook',
      message: 'from must be an ISO 8601 time, such as 2026-01-31T00:00:00Z',
    });
    expect((await adminJson(t, 'DELETE', `/admin/v1/accounts/jdoe/webhooks/${id}`)).body).toEqual({
      id,
      deleted: true,
    });
    endpoints = [];
  });

  it('writes no event for an account without endpoints, nor for a change rolled back', async () => {
    await add({ url: `${url}/none`, events: ['purchase.created'] });
    // An import with a bad line writes nothing: no purchase, no event.
    await expect(
      t.importLines([purchaseLine({ code: 'ROLLED-1' }), { type: 'purchase', code: 'bad' }]),
    ).rejects.toThrow();
    await t.importLines([purchaseLine({ code: 'MARK-1' })]);
    await receiver.waitFor((r) => r.path === '/none');
    const codes = receiver
      .ofType('purchase.created')
      .map((r) => (payloadOf(r).data.purchase as { purchase_code: string }).purchase_code);
    expect(codes).toEqual(['MARK-1']);
  });

  it("sends bodies that match the schemas of the OpenAPI documents' webhooks section, keys in order", () => {
    const ajv = createContractAjv();
    const types = new Set<string>();
    expect(everything.length).toBeGreaterThan(10);
    for (const received of everything) {
      const body = payloadOf(received);
      const schema = webhookEventSchemas[body.type];
      expect(schema, body.type).toBeDefined();
      const validate = ajv.compile(schema as object);
      expect([body.type, validate(body), validate.errors ?? null]).toEqual([body.type, true, null]);
      expect(keyOrderProblems(body, schema as never)).toEqual([]);
      types.add(body.type);
    }
    expect([...types].sort()).toEqual([
      'api_key.rotated',
      'purchase.cancelled',
      'purchase.created',
      'purchase.downloaded',
      'purchase.refunded',
      'webhook.test',
    ]);
    for (const variant of t.config.variants) {
      const document = buildOpenApiDocument(variant, t.config.support) as { webhooks: Record<string, unknown> };
      expect(Object.keys(document.webhooks)).toEqual(Object.keys(webhookEventSchemas));
    }
  });
});
