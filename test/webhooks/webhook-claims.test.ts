import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '../../src/store/webhooks/webhook-store.js';
import { TEST_STORES, type TestApp } from '../helpers/test-app.js';
import { addEndpoint, webhooksApp } from './fixtures.js';

/**
 * An attempt's outcome is recorded on the claim that made it, and only there: a retry or a replay
 * asked for while the attempt was in flight must still be sent, and a claim whose lease ran out
 * belongs to whoever took it next.
 */
describe.each(TEST_STORES)('webhook claims (%s)', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await webhooksApp(kind, { allowHttp: true });
  });
  afterAll(() => t.close());

  it('keeps a retry made during an attempt, and ignores the outcome of a claim taken over', async () => {
    const { id } = await addEndpoint(t, { url: 'https://hooks.example.com/claims', events: ['purchase.created'] });
    const webhooks = t.store.webhooks();
    const endpoint = await webhooks.endpoint(id);
    // A day ahead: the app's own worker, on the real clock, finds nothing due; this test's claims do.
    const later = Date.now() + 86_400_000;
    const eventId = await webhooks.addEventFor(endpoint as never, 'webhook.test', '{"message":"a"}', later);
    const claim = async (now: number) =>
      (await webhooks.claim({ now, limit: 10, leaseUntil: now + 60_000, perEndpoint: 4 })).map(
        ({ delivery }) => delivery,
      );
    const outcome = (claimedUntil: number, at: number): AttemptOutcome => ({
      eventId,
      endpointId: id,
      claimedUntil,
      at,
      status: 200,
      error: '',
      state: 'succeeded',
      nextAttemptAt: 0,
      disableIfFailingSince: 0,
    });
    const state = async () => (await webhooks.deliveries(id, 10)).map(({ state, attempts }) => ({ state, attempts }));

    const [first] = await claim(later);
    expect(first).toMatchObject({ event_id: eventId, attempts: 1, locked_until: later + 60_000 });
    // The seller retries while the first attempt is on its way; then the attempt succeeds.
    expect(await webhooks.retry(id, eventId, later)).toBe(true);
    await webhooks.finish(outcome(later + 60_000, later + 10));
    expect(await state()).toEqual([{ state: 'pending', attempts: 0 }]);

    // Claimed again; its lease runs out and another claim takes it over; the first one's answer comes late.
    const [second] = await claim(later + 20);
    const [third] = await claim(later + 60_021);
    expect([second?.locked_until, third?.locked_until]).toEqual([later + 60_020, later + 120_021]);
    await webhooks.finish({
      ...outcome(later + 60_020, later + 60_030),
      state: 'pending',
      nextAttemptAt: later + 90_000,
      status: 500,
    });
    expect(await state()).toEqual([{ state: 'pending', attempts: 2 }]);
    await webhooks.finish(outcome(later + 120_021, later + 60_040));
    expect(await state()).toEqual([{ state: 'succeeded', attempts: 2 }]);
  });
});
