import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeActivity, topCodes } from '../../src/activity/activity-report.js';
import { DEMO_ACTIVITY_DAYS, demoActivity } from '../../src/demo/demo-activity.js';
import { DEMO_PURCHASE_CODE, DEMO_SELLER } from '../../src/demo/demo-data.js';
import { loadDemoData } from '../../src/demo/load-demo.js';
import { purchaseCodeKey } from '../../src/domain/purchase-code.js';
import { codeDetails, codeRows, dayChart } from '../../src/web/purchase-codes-page.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** The demo's month of purchase-code activity: what the purchase-codes page and its chart show. */
describe('demo activity', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
    await loadDemoData(t.store, t.keys);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('spreads over the last 30 days, up to now, the same on every start', () => {
    const now = Date.parse('2026-11-27T10:30:00Z');
    const deltas = demoActivity(now);
    const days = new Set(deltas.map((delta) => delta.day));
    expect(days.size).toBeGreaterThan(DEMO_ACTIVITY_DAYS / 2);
    expect([...days].sort()[0] >= '2026-10-29').toBe(true);
    expect(([...days].sort().at(-1) ?? '') <= '2026-11-27').toBe(true);
    for (const delta of deltas) {
      expect(delta.account).toBe(DEMO_SELLER);
      expect(delta.validations).toBeGreaterThan(0);
      expect(delta.firstSeen).toBeLessThanOrEqual(delta.lastSeen);
      expect(delta.lastSeen).toBeLessThanOrEqual(now);
      expect(delta.day).toBe(new Date(delta.firstSeen).toISOString().slice(0, 10));
    }
    expect(demoActivity(now).map((delta) => [delta.day, delta.validations])).toEqual(
      deltas.map((delta) => [delta.day, delta.validations]),
    );
  });

  it('fills the demo seller’s purchase-codes page: a month of bars in the chart', async () => {
    const reports = {
      top: (account: string, days: number, limit: number) => topCodes(t.store, account, days, limit),
      ofCode: (account: string, codeKey: string) => codeActivity(t.store, account, codeKey, 90),
    };
    const rows = await codeRows(t.store, reports, DEMO_SELLER, 30);
    expect(rows.map((row) => row.code).sort()).toEqual([DEMO_PURCHASE_CODE, 'DEMO-VALID-0002']);
    const details = await codeDetails(t.store, reports, DEMO_SELLER, purchaseCodeKey(DEMO_PURCHASE_CODE) as string);
    const chart = dayChart((details as NonNullable<typeof details>).activity);
    const drawn = chart.bars.filter((bar) => bar.validations > 0);
    expect(drawn.length).toBeGreaterThan(DEMO_ACTIVITY_DAYS / 2);
    expect(chart.total).toBe(drawn.reduce((sum, bar) => sum + bar.validations, 0));
  });
});
