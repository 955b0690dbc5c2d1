import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** How a validation ended: a valid code, or why not (SPEC 2.2.4). */
export type ValidationOutcome = 'valid' | 'invalid' | 'refunded' | 'cancelled';

/** How an import run ended: written, refused for bad lines, or failed (input or store). */
export type ImportOutcome = 'ok' | 'rejected' | 'failed';

/** One route's request counters, resolved once when the route is registered. */
export interface RouteMetrics {
  /** One answered request: its HTTP status and how long it took, in seconds. */
  observe(status: number, seconds: number): void;
}

/** What a cache tells the metrics; one per cache, taken once at construction. */
export interface CacheMetrics {
  hit(): void;
  miss(): void;
}

/** What a limiter tells the metrics; one per limiter, taken once at construction. */
export interface LimiterMetrics {
  /** A request refused (answered 429). */
  refused(): void;
}

/**
 * The service's metrics. Every label value is one of a small fixed set (endpoint, variant,
 * status, outcome, cache and limiter names): never a key, a purchase code or a username.
 * Each method hands out label children resolved once, so the hot path only adds to a number.
 */
export interface ServiceMetrics {
  readonly registry: Registry;
  route(endpoint: string, variant: string): RouteMetrics;
  validation(outcome: ValidationOutcome): void;
  limiter(name: string): LimiterMetrics;
  cache(name: string): CacheMetrics;
  /** The store failed: `unavailable` (answered 503) or `other` (answered 500). */
  storeError(kind: 'unavailable' | 'other'): void;
  importRun(outcome: ImportOutcome): void;
}

/** Request latency buckets, in seconds: the hot path answers in well under a millisecond. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/** The metrics over a registry of their own (plus Node's default process metrics). */
export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'marketplace_http_requests_total',
    help: 'HTTP requests answered, by endpoint, variant and status',
    labelNames: ['endpoint', 'variant', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'marketplace_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by endpoint and variant',
    labelNames: ['endpoint', 'variant'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const validations = new Counter({
    name: 'marketplace_validations_total',
    help: 'Purchase-code validations, by outcome (valid, invalid, refunded, cancelled)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'marketplace_limiter_refusals_total',
    help: 'Requests refused by a limiter (answered 429), by limiter',
    labelNames: ['limiter'] as const,
    registers: [registry],
  });
  const cacheLookups = new Counter({
    name: 'marketplace_cache_lookups_total',
    help: 'Cache lookups, by cache and result (hit, miss)',
    labelNames: ['cache', 'result'] as const,
    registers: [registry],
  });
  const storeErrors = new Counter({
    name: 'marketplace_store_errors_total',
    help: 'Store failures seen while answering, by kind (unavailable: 503; other: 500)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  const importRuns = new Counter({
    name: 'marketplace_import_runs_total',
    help: 'Import runs through the admin API, by outcome (ok, rejected, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });

  const validationChildren = new Map<ValidationOutcome, Counter.Internal>();
  for (const outcome of ['valid', 'invalid', 'refunded', 'cancelled'] as const) {
    validationChildren.set(outcome, validations.labels(outcome));
    // Present at 0 from the start: a rate over a series that appears late is wrong.
    validations.labels(outcome).inc(0);
  }
  storeErrors.labels('unavailable').inc(0);
  storeErrors.labels('other').inc(0);

  return {
    registry,
    route(endpoint, variant) {
      const timer = latency.labels(endpoint, variant);
      // Few statuses per route; each child is made on its first use and kept.
      const byStatus = new Map<number, Counter.Internal>();
      return {
        observe(status, seconds) {
          let counter = byStatus.get(status);
          if (counter === undefined) {
            counter = requests.labels(endpoint, variant, String(status));
            byStatus.set(status, counter);
          }
          counter.inc();
          timer.observe(seconds);
        },
      };
    },
    validation(outcome) {
      validationChildren.get(outcome)?.inc();
    },
    limiter(name) {
      const child = refusals.labels(name);
      child.inc(0);
      return { refused: () => child.inc() };
    },
    cache(name) {
      const hits = cacheLookups.labels(name, 'hit');
      const misses = cacheLookups.labels(name, 'miss');
      hits.inc(0);
      misses.inc(0);
      return { hit: () => hits.inc(), miss: () => misses.inc() };
    },
    storeError(kind) {
      storeErrors.labels(kind).inc();
    },
    importRun(outcome) {
      importRuns.labels(outcome).inc();
    },
  };
}
