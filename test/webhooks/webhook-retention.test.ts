import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { addEndpoint, webhooksApp } from './fixtures.js';

/** Retention (`webhooks.retentionDays`): finished deliveries and their events go; pending ones stay. */
describe.each(TEST_STORES)('webhook retention (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await webhooksApp(kind, { allowHttp: true });
  });
  afterAll(() => t.close());

  it('drops finished deliveries older than the cut, then events left without any; keeps pending ones', async () => {
    const { id } = await addEndpoint(t, { url: 'https://hooks.example.com/kept', events: ['purchase.created'] });
    const webhooks = t.store.webhooks();
    // Disabled, so that the app's worker claims none of the rows this test moves by hand.
    await webhooks.updateEndpoint(id, { enabled: 0, disabled_reason: 'seller' });
    const endpoint = await webhooks.endpoint(id);
    const now = Date.now();
    const delivered = await webhooks.addEventFor(endpoint as never, 'webhook.test', '{"message":"a"}', now - 10_000);
    const failed = await webhooks.addEventFor(endpoint as never, 'webhook.test', '{"message":"b"}', now - 10_000);
    const pending = await webhooks.addEventFor(endpoint as never, 'webhook.test', '{"message":"c"}', now - 10_000);
    const recent = await webhooks.addEventFor(endpoint as never, 'webhook.test', '{"message":"d"}', now);
    for (const [eventId, state] of [
      [delivered, 'succeeded'],
      [failed, 'failed'],
      [recent, 'succeeded'],
    ] as const) {
      await webhooks.finish({
        eventId,
        endpointId: id,
        // Never claimed: the rows' lease is 0.
        claimedUntil: 0,
        at: now,
        status: state === 'succeeded' ? 200 : 500,
        error: '',
        state,
        nextAttemptAt: 0,
        disableIfFailingSince: 0,
      });
    }
    expect(await webhooks.dropBefore(now - 5_000)).toBe(2);
    const left = (await webhooks.deliveries(id, 10)).map((row) => [row.event_id, row.state]);
    expect(left.sort()).toEqual(
      [
        [pending, 'pending'],
        [recent, 'succeeded'],
      ].sort(),
    );
    // A replay reads what is left: the dropped events are gone for it too.
    expect(await webhooks.replay(endpoint as never, now - 60_000, now, now)).toBe(0);
  });
});
