import type { Metric, Registry } from 'prom-client';

/** One sample of the histogram as prom-client's `Histogram.get()` gives it (same keys, same order). */
export interface HistogramValue {
  value: number;
  metricName: string;
  exemplar: null | undefined;
  labels: Record<string, string | number>;
}

export interface HistogramData {
  name: string;
  help: string;
  type: 'histogram';
  values: HistogramValue[];
  aggregator: 'sum';
}

/** One label set's observations: plain numbers, added to on the hot path and read when the registry is. */
export class HistogramSeries {
  /** Observations per bucket, not cumulative: the first bound not below the value; the last slot is above every bound. */
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
    /** Told of the series' first observation (since a reset): series are written in that order, as prom-client does. */
    private readonly firstObserved: (series: HistogramSeries) => void,
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    // prom-client throws on these, before counting anything; the exposition is the same without them.
    if (!Number.isFinite(value)) return;
    if (this.count === 0) this.firstObserved(this);
    const bounds = this.bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > bounds[bucket]) bucket++;
    this.buckets[bucket] += 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * A histogram whose series are plain numbers, registered with a prom-client registry that reads it
 * through `get()` (text, JSON and the cluster aggregator alike). Its samples are exactly those of a
 * prom-client Histogram given the same observations: cumulative `_bucket` lines with `le` first,
 * `le="+Inf"`, then `_sum` and `_count`, series in order of first observation.
 */
export class LocalHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #observed: HistogramSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
    registry: Registry,
  ) {
    // prom-client's typings take only its own metric classes; its Registry reads name, help, type,
    // aggregator, get() and reset(), which this class has.
    registry.registerMetric(this as unknown as Metric);
  }

  /** A new series for one label set (in label-name order); the caller keeps it, one per label set. */
  series(labels: Readonly<Record<string, string>>): HistogramSeries {
    return new HistogramSeries(labels, this.bounds, (series) => this.#observed.push(series));
  }

  async get(): Promise<HistogramData> {
    const values = this.#observed.flatMap((series) => this.#samples(series));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Forgets every observation: series are written again once observed again, as after a prom-client reset. */
  reset(): void {
    for (const series of this.#observed) {
      series.buckets.fill(0);
      series.sum = 0;
      series.count = 0;
    }
    this.#observed.length = 0;
  }

  #samples(series: HistogramSeries): HistogramValue[] {
    const bucketName = `${this.name}_bucket`;
    const samples: HistogramValue[] = [];
    let cumulative = 0;
    this.bounds.forEach((bound, index) => {
      cumulative += series.buckets[index];
      samples.push({
        value: cumulative,
        metricName: bucketName,
        exemplar: null,
        labels: { le: bound, ...series.labels },
      });
    });
    samples.push(
      { value: series.count, metricName: bucketName, exemplar: null, labels: { le: '+Inf', ...series.labels } },
      { value: series.sum, metricName: `${this.name}_sum`, exemplar: undefined, labels: { ...series.labels } },
      { value: series.count, metricName: `${this.name}_count`, exemplar: undefined, labels: { ...series.labels } },
    );
    return samples;
  }
}
