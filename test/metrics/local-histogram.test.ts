import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LocalHistogram } from '../../src/metrics/local-histogram.js';

const NAME = 'test_duration_seconds';
const HELP = 'A test histogram';
const BOUNDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** prom-client's own Histogram and ours, each in a registry of its own, given the same observations. */
function pair() {
  const reference = new Registry();
  const local = new Registry();
  const histogram = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['endpoint', 'variant'] as const,
    buckets: [...BOUNDS],
    registers: [reference],
  });
  const ours = new LocalHistogram(NAME, HELP, BOUNDS, local);
  const series = new Map<string, { observe(value: number): void }>();
  const observe = (endpoint: string, variant: string, value: number) => {
    const key = `${endpoint} ${variant}`;
    let mine = series.get(key);
    if (mine === undefined) {
      mine = ours.series({ endpoint, variant });
      series.set(key, mine);
    }
    mine.observe(value);
    histogram.labels(endpoint, variant).observe(value);
  };
  return { reference, local, histogram, ours, observe };
}

/** Values in every bucket, on bounds, above the last bound, negative, and sums that are not exact. */
function observeMany(observe: (endpoint: string, variant: string, value: number) => void) {
  const values = [0, -0.001, 0.0004, 0.0005, 0.00051, 0.003, 0.1, 0.1000001, 0.3, 0.7, 1, 2, 3.3, 5, 5.0001, 60];
  values.forEach((value, index) => {
    observe('/b', 'en', value);
    if (index % 3 === 0) observe('/a', 'pt', value * 1.1);
    if (index % 5 === 0) observe('/b', 'pt', value / 3);
  });
}

describe('LocalHistogram', () => {
  it('gives what prom-client’s Histogram gives for the same observations, as JSON and as text', async () => {
    const { reference, local, histogram, ours, observe } = pair();
    observeMany(observe);
    expect(await ours.get()).toStrictEqual(await histogram.get());
    expect(await local.getMetricsAsJSON()).toStrictEqual(await reference.getMetricsAsJSON());
    expect(await local.metrics()).toBe(await reference.metrics());
  });

  it('writes nothing before an observation, like prom-client', async () => {
    const { reference, local, ours } = pair();
    ours.series({ endpoint: '/a', variant: 'en' });
    expect(await local.metrics()).toBe(await reference.metrics());
    expect((await ours.get()).values).toEqual([]);
  });

  it('leaves out a value prom-client refuses, and counts from 0 again after a reset', async () => {
    const { reference, local, observe } = pair();
    // Ours takes it first and leaves it out; prom-client's then throws.
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => observe('/a', 'en', value)).toThrow(TypeError);
    expect(await local.metrics()).toBe(await reference.metrics());

    observeMany(observe);
    local.resetMetrics();
    reference.resetMetrics();
    expect(await local.metrics()).toBe(await reference.metrics());
    observe('/b', 'pt', 0.2);
    observe('/a', 'pt', 0.02);
    expect(await local.metrics()).toBe(await reference.metrics());
  });
});
