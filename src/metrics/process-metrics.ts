import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';

/** One of prom-client's default metrics: registers its series in `registry`. */
type DefaultMetric = (registry: Registry, config: { readonly eventLoopMonitoringPrecision: number }) => void;

const require = createRequire(import.meta.url);

/**
 * prom-client's default process metrics (`collectDefaultMetrics`), each its own module, but for
 * `nodejs_gc_duration_seconds`: its observer has Node make an entry for every collection (a
 * hundred a second on a busy server, each a scavenge), and those entries went to the old
 * generation, half of its garbage while validating, so twice the full collections on the thread
 * that answers requests. `processResources` is in the list only where Node has what it reads, as
 * `collectDefaultMetrics` decides.
 */
const METRICS = [
  'processCpuTotal',
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  ...(typeof process.getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
] as const;

/** Registers the default process metrics but the collections' durations (see METRICS) in `registry`. */
export function collectProcessMetrics(registry: Registry): void {
  for (const name of METRICS) {
    const metric = require(`prom-client/lib/metrics/${name}.js`) as DefaultMetric;
    metric(registry, { eventLoopMonitoringPrecision: 10 });
  }
}
