import { Counter, Registry } from 'prom-client';
import { type HistogramSeries, LocalHistogram } from './local-histogram.js';
import { collectProcessMetrics } from './process-metrics.js';

/** How a validation ended: a valid code, or why not (SPEC 2.2.4). */
export type ValidationOutcome = 'valid' | 'invalid' | 'refunded' | 'cancelled';

/** How an import run ended: written, refused for bad lines, or failed (input or store). */
export type ImportOutcome = 'ok' | 'rejected' | 'failed';

/** How a webhook delivery attempt ended: delivered, to be tried again, or failed for good. */
export type WebhookAttemptOutcome = 'succeeded' | 'retrying' | 'failed';

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
  /**
   * A route's recorders by variant, each resolved on its first answer: what a surface keeps per
   * route (the API door, Fastify's routes), so that a request only looks its variant up.
   */
  routeRecorders(endpoint: string): (variant: string) => RouteMetrics;
  validation(outcome: ValidationOutcome): void;
  limiter(name: string): LimiterMetrics;
  cache(name: string): CacheMetrics;
  /** The store failed: `unavailable` (answered 503) or `other` (answered 500). */
  storeError(kind: 'unavailable' | 'other'): void;
  importRun(outcome: ImportOutcome): void;
  webhookAttempt(outcome: WebhookAttemptOutcome): void;
  /** An endpoint disabled after a long run of failed attempts. */
  webhookEndpointDisabled(): void;
}

/** Request latency buckets, in seconds: the hot path answers in well under a millisecond. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * One counter series as a plain number. The hot path only adds to `count`: prom-client checks and
 * hashes the labels on every call, even a child's, and a request counts several series (its
 * status, latency, validation and cache lookups), so that work would be paid on every request.
 * The counter's `collect`, run before every read (text, JSON, the cluster aggregator), hands the
 * child what was counted since the last read: prom-client's value is the whole count, and only
 * ever goes up.
 */
class Tally {
  count = 0;
  #reported = 0;
  #child: Counter.Internal | undefined;

  /** `makeChild` makes the prom-client child, on the first read that has something to add. */
  constructor(private readonly makeChild: () => Counter.Internal) {}

  /** Writes the series at 0 now: a rate over a series that appears late is wrong. */
  zero(): this {
    this.#child ??= this.makeChild();
    this.#child.inc(0);
    return this;
  }

  report(): void {
    const delta = this.count - this.#reported;
    if (delta === 0) return;
    this.#reported = this.count;
    this.#child ??= this.makeChild();
    this.#child.inc(delta);
  }
}

function reportAll(tallies: Iterable<Tally>): void {
  for (const tally of tallies) tally.report();
}

/** One endpoint and variant: its statuses (a few per route) side by side with their tallies, and its latency. */
interface RouteSeries {
  readonly endpoint: string;
  readonly variant: string;
  readonly statuses: number[];
  readonly tallies: Tally[];
  readonly latency: HistogramSeries;
}

/** The metrics over a registry of their own (plus Node's default process metrics, see collectProcessMetrics). */
export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectProcessMetrics(registry);
  // Request tallies in the order each series was first counted: prom-client writes series in that order.
  const requestTallies: Tally[] = [];
  const requests = new Counter({
    name: 'marketplace_http_requests_total',
    help: 'HTTP requests answered, by endpoint, variant and status',
    labelNames: ['endpoint', 'variant', 'status'] as const,
    registers: [registry],
    collect: () => reportAll(requestTallies),
  });
  const latency = new LocalHistogram(
    'marketplace_http_request_duration_seconds',
    'Time to answer an HTTP request, by endpoint and variant',
    LATENCY_BUCKETS,
    registry,
  );
  const validations = new Counter({
    name: 'marketplace_validations_total',
    help: 'Purchase-code validations, by outcome (valid, invalid, refunded, cancelled)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect: () => reportAll(Object.values(validationTallies)),
  });
  const refusalTallies = new Map<string, Tally>();
  const refusals = new Counter({
    name: 'marketplace_limiter_refusals_total',
    help: 'Requests refused by a limiter (answered 429), by limiter',
    labelNames: ['limiter'] as const,
    registers: [registry],
    collect: () => reportAll(refusalTallies.values()),
  });
  const cacheTallies = new Map<string, { readonly hits: Tally; readonly misses: Tally }>();
  const cacheLookups = new Counter({
    name: 'marketplace_cache_lookups_total',
    help: 'Cache lookups, by cache and result (hit, miss)',
    labelNames: ['cache', 'result'] as const,
    registers: [registry],
    collect: () => {
      for (const { hits, misses } of cacheTallies.values()) {
        hits.report();
        misses.report();
      }
    },
  });
  // Store errors and import runs are rare: they go to prom-client directly.
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

  const webhookAttempts = new Counter({
    name: 'marketplace_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (succeeded; retrying: failed, tried again later; failed: for good)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookDisabled = new Counter({
    name: 'marketplace_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled after failing for too long',
    registers: [registry],
  });
  for (const outcome of ['succeeded', 'retrying', 'failed'] as const) webhookAttempts.labels(outcome).inc(0);
  webhookDisabled.inc(0);

  const validationTally = (outcome: ValidationOutcome) => new Tally(() => validations.labels(outcome)).zero();
  const validationTallies: Record<ValidationOutcome, Tally> = {
    valid: validationTally('valid'),
    invalid: validationTally('invalid'),
    refunded: validationTally('refunded'),
    cancelled: validationTally('cancelled'),
  };
  storeErrors.labels('unavailable').inc(0);
  storeErrors.labels('other').inc(0);

  // One series per endpoint and variant, shared by every recorder for it (a GET route and its HEAD route).
  const routes = new Map<string, RouteSeries>();
  const routeSeries = (endpoint: string, variant: string): RouteSeries => {
    const key = JSON.stringify([endpoint, variant]);
    let series = routes.get(key);
    if (series === undefined) {
      const latencySeries = latency.series({ endpoint, variant });
      series = { endpoint, variant, statuses: [], tallies: [], latency: latencySeries };
      routes.set(key, series);
    }
    return series;
  };
  /** A status's first request on a route: a tally of its own, written after every series counted before it. */
  const firstOfStatus = (series: RouteSeries, status: number): Tally => {
    const tally = new Tally(() => requests.labels(series.endpoint, series.variant, String(status)));
    series.statuses.push(status);
    series.tallies.push(tally);
    requestTallies.push(tally);
    return tally;
  };

  return {
    registry,
    route(endpoint, variant) {
      const series = routeSeries(endpoint, variant);
      const { statuses, tallies, latency: latencySeries } = series;
      return {
        observe(status, seconds) {
          const index = statuses.indexOf(status);
          const tally = index === -1 ? firstOfStatus(series, status) : tallies[index];
          tally.count += 1;
          latencySeries.observe(seconds);
        },
      };
    },
    routeRecorders(endpoint) {
      const byVariant = new Map<string, RouteMetrics>();
      return (variant) => {
        let recorder = byVariant.get(variant);
        if (recorder === undefined) {
          recorder = this.route(endpoint, variant);
          byVariant.set(variant, recorder);
        }
        return recorder;
      };
    },
    validation(outcome) {
      validationTallies[outcome].count += 1;
    },
    limiter(name) {
      let tally = refusalTallies.get(name);
      if (tally === undefined) {
        tally = new Tally(() => refusals.labels(name)).zero();
        refusalTallies.set(name, tally);
      }
      const refused = tally;
      return {
        refused() {
          refused.count += 1;
        },
      };
    },
    cache(name) {
      let tallies = cacheTallies.get(name);
      if (tallies === undefined) {
        const hits = new Tally(() => cacheLookups.labels(name, 'hit')).zero();
        const misses = new Tally(() => cacheLookups.labels(name, 'miss')).zero();
        tallies = { hits, misses };
        cacheTallies.set(name, tallies);
      }
      const { hits, misses } = tallies;
      return {
        hit() {
          hits.count += 1;
        },
        miss() {
          misses.count += 1;
        },
      };
    },
    storeError(kind) {
      storeErrors.labels(kind).inc();
    },
    importRun(outcome) {
      importRuns.labels(outcome).inc();
    },
    webhookAttempt(outcome) {
      webhookAttempts.labels(outcome).inc();
    },
    webhookEndpointDisabled() {
      webhookDisabled.inc();
    },
  };
}
