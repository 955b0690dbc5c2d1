import { createRequire } from 'node:module';
import { collectDefaultMetrics, type Registry } from 'prom-client';

/** One of prom-client's default metrics: registers its series in `registry`. */
type DefaultMetric = (registry: Registry, config: { readonly eventLoopMonitoringPrecision: number }) => void;

const require = createRequire(import.meta.url);

/**
 * prom-client's default process metrics, as its own list names them (that list already leaves out
 * what this Node lacks), but for `gc`, `nodejs_gc_duration_seconds`: its observer has Node make
 * an entry for every collection (a hundred a second on a busy server, each a scavenge), and those
 * entries went to the old generation, half of its garbage while validating, so twice the full
 * collections on the thread that answers requests.
 */
const METRICS = collectDefaultMetrics.metricsList.filter((name) => name !== 'gc');

/** `collectDefaultMetrics`'s own default: its event-loop lag metric has none of its own. */
const EVENT_LOOP_MONITORING_PRECISION_MS = 10;

/** Registers the default process metrics but the collections' durations (see METRICS) in `registry`. */
export function collectProcessMetrics(registry: Registry): void {
  for (const name of METRICS) {
    const metric = require(`prom-client/lib/metrics/${name}.js`) as DefaultMetric;
    metric(registry, { eventLoopMonitoringPrecision: EVENT_LOOP_MONITORING_PRECISION_MS });
  }
}
