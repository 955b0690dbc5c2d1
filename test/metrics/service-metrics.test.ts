import { AggregatorRegistry, type Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createServiceMetrics, type ServiceMetrics } from '../../src/metrics/service-metrics.js';

// Latencies are sums of powers of two, so every `_sum` below is exact and can be written out.
const T_2_12 = 2 ** -12; // 0.000244140625: bucket le=0.0005
const T_2_10 = 2 ** -10; // 0.0009765625: le=0.001
const T_2_9 = 2 ** -9; // 0.001953125: le=0.0025
const T_2_5 = 2 ** -5; // 0.03125: le=0.05
const T_2_4 = 2 ** -4; // 0.0625: le=0.1

const SERVICE_FAMILIES = [
  'marketplace_http_requests_total',
  'marketplace_http_request_duration_seconds',
  'marketplace_validations_total',
  'marketplace_limiter_refusals_total',
  'marketplace_cache_lookups_total',
  'marketplace_store_errors_total',
  'marketplace_import_runs_total',
];

/** The named families of a Prometheus text, exactly as written (prom-client separates families with a blank line). */
function families(text: string, names: readonly string[]): string {
  return text
    .trimEnd()
    .split('\n\n')
    .filter((family) => names.some((name) => family.startsWith(`# HELP ${name} `)))
    .join('\n\n');
}

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** What a cluster worker sends the primary: the registry as JSON, through the IPC channel's serialisation. */
async function asWorkerSends(registry: Registry): Promise<object> {
  return JSON.parse(JSON.stringify(await registry.getMetricsAsJSON())) as object;
}

/**
 * A known sequence: recorders taken in one order and first used in another, a route taken and never
 * answered, two recorders for one endpoint and variant (as a GET route and its HEAD route get),
 * latencies in several buckets, on a bound, and above the last bound.
 */
function recordKnownSequence(metrics: ServiceMetrics) {
  const accountDetails = metrics.route('/api/account/details', 'en');
  const validationEn = metrics.route('/api/purchases/validation', 'en');
  const validationPt = metrics.route('/api/purchases/validation', 'pt');
  metrics.route('/api/items/all', 'en');
  metrics.limiter('client');
  const keyLimiter = metrics.limiter('key');
  const accounts = metrics.cache('accounts');
  const purchases = metrics.cache('purchases');

  validationPt.observe(200, T_2_12);
  accountDetails.observe(200, T_2_10);
  accountDetails.observe(200, 0.25);
  validationEn.observe(429, T_2_5);
  accountDetails.observe(404, 8);
  validationPt.observe(200, 5);
  accountDetails.observe(200, T_2_9);
  metrics.route('/api/account/details', 'en').observe(500, T_2_12);
  validationEn.observe(200, T_2_4);

  metrics.validation('valid');
  metrics.validation('refunded');
  metrics.validation('valid');
  metrics.validation('valid');
  keyLimiter.refused();
  keyLimiter.refused();
  accounts.hit();
  accounts.miss();
  accounts.hit();
  purchases.miss();
  accounts.hit();
  purchases.miss();
  metrics.storeError('other');
  metrics.importRun('failed');
  metrics.importRun('ok');
  return { accountDetails, keyLimiter, accounts };
}

const KNOWN_SEQUENCE_TEXT = `# HELP marketplace_http_requests_total HTTP requests answered, by endpoint, variant and status
# TYPE marketplace_http_requests_total counter
marketplace_http_requests_total{endpoint="/api/purchases/validation",variant="pt",status="200"} 2
marketplace_http_requests_total{endpoint="/api/account/details",variant="en",status="200"} 3
marketplace_http_requests_total{endpoint="/api/purchases/validation",variant="en",status="429"} 1
marketplace_http_requests_total{endpoint="/api/account/details",variant="en",status="404"} 1
marketplace_http_requests_total{endpoint="/api/account/details",variant="en",status="500"} 1
marketplace_http_requests_total{endpoint="/api/purchases/validation",variant="en",status="200"} 1

# HELP marketplace_http_request_duration_seconds Time to answer an HTTP request, by endpoint and variant
# TYPE marketplace_http_request_duration_seconds histogram
marketplace_http_request_duration_seconds_bucket{le="0.0005",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.001",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.0025",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.005",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.01",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.025",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.05",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.1",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.25",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="0.5",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="1",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="2.5",endpoint="/api/purchases/validation",variant="pt"} 1
marketplace_http_request_duration_seconds_bucket{le="5",endpoint="/api/purchases/validation",variant="pt"} 2
marketplace_http_request_duration_seconds_bucket{le="+Inf",endpoint="/api/purchases/validation",variant="pt"} 2
marketplace_http_request_duration_seconds_sum{endpoint="/api/purchases/validation",variant="pt"} 5.000244140625
marketplace_http_request_duration_seconds_count{endpoint="/api/purchases/validation",variant="pt"} 2
marketplace_http_request_duration_seconds_bucket{le="0.0005",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.001",endpoint="/api/account/details",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="0.0025",endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_bucket{le="0.005",endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_bucket{le="0.01",endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_bucket{le="0.025",endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_bucket{le="0.05",endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_bucket{le="0.1",endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_bucket{le="0.25",endpoint="/api/account/details",variant="en"} 4
marketplace_http_request_duration_seconds_bucket{le="0.5",endpoint="/api/account/details",variant="en"} 4
marketplace_http_request_duration_seconds_bucket{le="1",endpoint="/api/account/details",variant="en"} 4
marketplace_http_request_duration_seconds_bucket{le="2.5",endpoint="/api/account/details",variant="en"} 4
marketplace_http_request_duration_seconds_bucket{le="5",endpoint="/api/account/details",variant="en"} 4
marketplace_http_request_duration_seconds_bucket{le="+Inf",endpoint="/api/account/details",variant="en"} 5
marketplace_http_request_duration_seconds_sum{endpoint="/api/account/details",variant="en"} 8.253173828125
marketplace_http_request_duration_seconds_count{endpoint="/api/account/details",variant="en"} 5
marketplace_http_request_duration_seconds_bucket{le="0.0005",endpoint="/api/purchases/validation",variant="en"} 0
marketplace_http_request_duration_seconds_bucket{le="0.001",endpoint="/api/purchases/validation",variant="en"} 0
marketplace_http_request_duration_seconds_bucket{le="0.0025",endpoint="/api/purchases/validation",variant="en"} 0
marketplace_http_request_duration_seconds_bucket{le="0.005",endpoint="/api/purchases/validation",variant="en"} 0
marketplace_http_request_duration_seconds_bucket{le="0.01",endpoint="/api/purchases/validation",variant="en"} 0
marketplace_http_request_duration_seconds_bucket{le="0.025",endpoint="/api/purchases/validation",variant="en"} 0
marketplace_http_request_duration_seconds_bucket{le="0.05",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.1",endpoint="/api/purchases/validation",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="0.25",endpoint="/api/purchases/validation",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="0.5",endpoint="/api/purchases/validation",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="1",endpoint="/api/purchases/validation",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="2.5",endpoint="/api/purchases/validation",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="5",endpoint="/api/purchases/validation",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="+Inf",endpoint="/api/purchases/validation",variant="en"} 2
marketplace_http_request_duration_seconds_sum{endpoint="/api/purchases/validation",variant="en"} 0.09375
marketplace_http_request_duration_seconds_count{endpoint="/api/purchases/validation",variant="en"} 2

# HELP marketplace_validations_total Purchase-code validations, by outcome (valid, invalid, refunded, cancelled)
# TYPE marketplace_validations_total counter
marketplace_validations_total{outcome="valid"} 3
marketplace_validations_total{outcome="invalid"} 0
marketplace_validations_total{outcome="refunded"} 1
marketplace_validations_total{outcome="cancelled"} 0

# HELP marketplace_limiter_refusals_total Requests refused by a limiter (answered 429), by limiter
# TYPE marketplace_limiter_refusals_total counter
marketplace_limiter_refusals_total{limiter="client"} 0
marketplace_limiter_refusals_total{limiter="key"} 2

# HELP marketplace_cache_lookups_total Cache lookups, by cache and result (hit, miss)
# TYPE marketplace_cache_lookups_total counter
marketplace_cache_lookups_total{cache="accounts",result="hit"} 3
marketplace_cache_lookups_total{cache="accounts",result="miss"} 1
marketplace_cache_lookups_total{cache="purchases",result="hit"} 0
marketplace_cache_lookups_total{cache="purchases",result="miss"} 2

# HELP marketplace_store_errors_total Store failures seen while answering, by kind (unavailable: 503; other: 500)
# TYPE marketplace_store_errors_total counter
marketplace_store_errors_total{kind="unavailable"} 0
marketplace_store_errors_total{kind="other"} 1

# HELP marketplace_import_runs_total Import runs through the admin API, by outcome (ok, rejected, failed)
# TYPE marketplace_import_runs_total counter
marketplace_import_runs_total{outcome="failed"} 1
marketplace_import_runs_total{outcome="ok"} 1`;

describe('service metrics exposition', () => {
  it('writes a known sequence exactly: series order, labels, cumulative buckets, +Inf, sums', async () => {
    const metrics = createServiceMetrics();
    recordKnownSequence(metrics);
    expect(families(await metrics.registry.metrics(), SERVICE_FAMILIES)).toBe(KNOWN_SEQUENCE_TEXT);
  });

  it('shows only the series pre-created at 0 before any request', async () => {
    const metrics = createServiceMetrics();
    metrics.route('/api/account/details', 'en');
    metrics.limiter('client');
    metrics.cache('accounts');
    expect(
      families(await metrics.registry.metrics(), SERVICE_FAMILIES),
    ).toBe(`# HELP marketplace_http_requests_total HTTP requests answered, by endpoint, variant and status
# TYPE marketplace_http_requests_total counter

# HELP marketplace_http_request_duration_seconds Time to answer an HTTP request, by endpoint and variant
# TYPE marketplace_http_request_duration_seconds histogram

# HELP marketplace_validations_total Purchase-code validations, by outcome (valid, invalid, refunded, cancelled)
# TYPE marketplace_validations_total counter
marketplace_validations_total{outcome="valid"} 0
marketplace_validations_total{outcome="invalid"} 0
marketplace_validations_total{outcome="refunded"} 0
marketplace_validations_total{outcome="cancelled"} 0

# HELP marketplace_limiter_refusals_total Requests refused by a limiter (answered 429), by limiter
# TYPE marketplace_limiter_refusals_total counter
marketplace_limiter_refusals_total{limiter="client"} 0

# HELP marketplace_cache_lookups_total Cache lookups, by cache and result (hit, miss)
# TYPE marketplace_cache_lookups_total counter
marketplace_cache_lookups_total{cache="accounts",result="hit"} 0
marketplace_cache_lookups_total{cache="accounts",result="miss"} 0

# HELP marketplace_store_errors_total Store failures seen while answering, by kind (unavailable: 503; other: 500)
# TYPE marketplace_store_errors_total counter
marketplace_store_errors_total{kind="unavailable"} 0
marketplace_store_errors_total{kind="other"} 0

# HELP marketplace_import_runs_total Import runs through the admin API, by outcome (ok, rejected, failed)
# TYPE marketplace_import_runs_total counter`);
  });

  it('reads the same values however often and by whichever path it is read, and keeps counting after', async () => {
    const metrics = createServiceMetrics();
    const { accountDetails, keyLimiter, accounts } = recordKnownSequence(metrics);
    await metrics.registry.getMetricsAsJSON();
    await metrics.registry.metrics();
    expect(families(await metrics.registry.metrics(), SERVICE_FAMILIES)).toBe(KNOWN_SEQUENCE_TEXT);

    accountDetails.observe(200, 0.25);
    accounts.hit();
    keyLimiter.refused();
    metrics.validation('invalid');
    const text = await metrics.registry.metrics();
    const details = 'endpoint="/api/account/details",variant="en"';
    expect(sample(text, `marketplace_http_requests_total{${details},status="200"}`)).toBe(4);
    expect(sample(text, `marketplace_http_request_duration_seconds_bucket{le="0.1",${details}}`)).toBe(3);
    expect(sample(text, `marketplace_http_request_duration_seconds_bucket{le="0.25",${details}}`)).toBe(5);
    expect(sample(text, `marketplace_http_request_duration_seconds_bucket{le="+Inf",${details}}`)).toBe(6);
    expect(sample(text, `marketplace_http_request_duration_seconds_sum{${details}}`)).toBe(8.503173828125);
    expect(sample(text, `marketplace_http_request_duration_seconds_count{${details}}`)).toBe(6);
    expect(sample(text, 'marketplace_cache_lookups_total{cache="accounts",result="hit"}')).toBe(4);
    expect(sample(text, 'marketplace_limiter_refusals_total{limiter="key"}')).toBe(3);
    expect(sample(text, 'marketplace_validations_total{outcome="invalid"}')).toBe(1);
    expect(sample(text, 'marketplace_validations_total{outcome="valid"}')).toBe(3);
  });

  it('sums two workers through the cluster aggregator exactly', async () => {
    const first = createServiceMetrics();
    const second = createServiceMetrics();
    first.route('/api/account/details', 'en').observe(200, T_2_10);
    first.route('/api/account/details', 'en').observe(404, 8);
    first.cache('accounts').hit();
    second.cache('accounts').miss();
    second.route('/api/account/details', 'en').observe(200, 0.25);
    second.route('/api/purchases/validation', 'en').observe(200, T_2_12);

    const aggregated = AggregatorRegistry.aggregate([
      await asWorkerSends(first.registry),
      await asWorkerSends(second.registry),
    ]);
    const text = families(await aggregated.metrics(), [
      'marketplace_http_requests_total',
      'marketplace_http_request_duration_seconds',
      'marketplace_cache_lookups_total',
    ]);
    expect(text).toBe(`# HELP marketplace_http_requests_total HTTP requests answered, by endpoint, variant and status
# TYPE marketplace_http_requests_total counter
marketplace_http_requests_total{endpoint="/api/account/details",variant="en",status="200"} 2
marketplace_http_requests_total{endpoint="/api/account/details",variant="en",status="404"} 1
marketplace_http_requests_total{endpoint="/api/purchases/validation",variant="en",status="200"} 1

# HELP marketplace_http_request_duration_seconds Time to answer an HTTP request, by endpoint and variant
# TYPE marketplace_http_request_duration_seconds histogram
marketplace_http_request_duration_seconds_bucket{le="0.0005",endpoint="/api/account/details",variant="en"} 0
marketplace_http_request_duration_seconds_bucket{le="0.001",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.0025",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.005",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.01",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.025",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.05",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.1",endpoint="/api/account/details",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.25",endpoint="/api/account/details",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="0.5",endpoint="/api/account/details",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="1",endpoint="/api/account/details",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="2.5",endpoint="/api/account/details",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="5",endpoint="/api/account/details",variant="en"} 2
marketplace_http_request_duration_seconds_bucket{le="+Inf",endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_sum{endpoint="/api/account/details",variant="en"} 8.2509765625
marketplace_http_request_duration_seconds_count{endpoint="/api/account/details",variant="en"} 3
marketplace_http_request_duration_seconds_bucket{le="0.0005",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.001",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.0025",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.005",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.01",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.025",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.05",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.1",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.25",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="0.5",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="1",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="2.5",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="5",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_bucket{le="+Inf",endpoint="/api/purchases/validation",variant="en"} 1
marketplace_http_request_duration_seconds_sum{endpoint="/api/purchases/validation",variant="en"} 0.000244140625
marketplace_http_request_duration_seconds_count{endpoint="/api/purchases/validation",variant="en"} 1

# HELP marketplace_cache_lookups_total Cache lookups, by cache and result (hit, miss)
# TYPE marketplace_cache_lookups_total counter
marketplace_cache_lookups_total{cache="accounts",result="hit"} 1
marketplace_cache_lookups_total{cache="accounts",result="miss"} 1`);
  });
});
