import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'marketplace:metrics-request';
const ANSWER = 'marketplace:metrics-answer';
/** How long a worker waits for the primary's sum before giving up (the primary waits 5 s for each worker). */
const ANSWER_TIMEOUT_MS = 8_000;

type MetricsRequest = { type: typeof REQUEST; id: number };
type MetricsAnswer = { type: typeof ANSWER; id: number; text?: string; error?: string };

/**
 * In the primary of `WORKERS` > 1: sums every worker's registry (prom-client's AggregatorRegistry
 * asks each over the cluster channel), and answers workers that ask for the sum (for
 * `/admin/v1/metrics`, served by whichever worker took the request). Returns the sum's text,
 * followed by the primary's own series (`primary`: the MarketBob follower's gauges, which run
 * there only), whose names no worker uses.
 */
export function aggregateWorkerMetrics(primary?: Registry): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  const clusterMetrics = async () => {
    const sum = await aggregator.clusterMetrics();
    if (primary === undefined) return sum;
    const own = await primary.metrics();
    return own === '' ? sum : `${sum.endsWith('\n') || sum === '' ? sum : `${sum}\n`}${own}`;
  };
  cluster.on('message', (worker, message: MetricsRequest) => {
    if (message?.type !== REQUEST) return;
    // The callback: a worker gone meanwhile fails the send, which must not be an 'error' event with
    // no listener (it would end the primary).
    clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text } satisfies MetricsAnswer, () => undefined),
      (error: unknown) =>
        worker.send({ type: ANSWER, id: message.id, error: String(error) } satisfies MetricsAnswer, () => undefined),
    );
  });
  return clusterMetrics;
}

/**
 * In a worker: lets the primary read this worker's registry, and returns how to get the sum over
 * every worker (by asking the primary), for `/admin/v1/metrics`.
 */
export function shareWorkerMetrics(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries(registry);
  // Constructing one adds prom-client's worker-side listener, which answers the primary.
  new AggregatorRegistry();
  let nextId = 0;
  const pending = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
  process.on('message', (message: MetricsAnswer) => {
    if (message?.type !== ANSWER) return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.text !== undefined) waiting?.resolve(message.text);
    else waiting?.reject(new Error(message.error ?? 'no metrics'));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the primary did not answer with the metrics in time'));
      }, ANSWER_TIMEOUT_MS);
      pending.set(id, {
        resolve: (text) => {
          clearTimeout(timer);
          resolve(text);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      process.send?.({ type: REQUEST, id } satisfies MetricsRequest);
    });
}

/**
 * A plain HTTP server for Prometheus on a port of its own (METRICS_PORT): `GET /metrics` only.
 * No token: keep the port on a private network (it holds no key, code or username).
 */
export async function startMetricsServer(
  host: string,
  port: number,
  metricsText: () => Promise<string>,
): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    metricsText().then(
      (text) => {
        response.writeHead(200, {
          'content-type': AggregatorRegistry.PROMETHEUS_CONTENT_TYPE,
          'cache-control': 'no-store',
        });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => response.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}
