import { collectDefaultMetrics, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { collectProcessMetrics } from '../../src/metrics/process-metrics.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';

const names = async (registry: Registry) => (await registry.getMetricsAsJSON()).map((metric) => metric.name);

describe('the process metrics', () => {
  it('are prom-client’s defaults, in their order, but for the collections’ durations', async () => {
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
    const ours = new Registry();
    collectProcessMetrics(ours);
    const expected = (await names(defaults)).filter((name) => name !== 'nodejs_gc_duration_seconds');
    expect(await names(ours)).toEqual(expected);
    expect(expected).toContain('process_cpu_user_seconds_total');
    expect(expected).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(expected).toContain('nodejs_heap_space_size_used_bytes');
  });

  it('are written by the service’s registry, with values read at the scrape', async () => {
    const text = await createServiceMetrics().registry.metrics();
    expect(text).not.toContain('nodejs_gc_duration_seconds');
    const heapUsed = /^nodejs_heap_size_used_bytes (\d+)$/m.exec(text);
    expect(Number(heapUsed?.[1])).toBeGreaterThan(1_000_000);
    expect(text).toMatch(/^process_start_time_seconds \d+$/m);
  });
});
