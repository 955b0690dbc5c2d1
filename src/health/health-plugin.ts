import type { FastifyInstance, FastifyReply } from 'fastify';
import { type SourceHealth, UNKNOWN } from '../marketbob/source-health.js';
import type { Store } from '../store/store.js';
import { type SourceProbe, sourceProbe } from './source-probe.js';

export interface HealthPluginOptions {
  readonly store: Store;
  /** True once the process is stopping (main.ts sets it on SIGTERM, before the app starts closing). */
  readonly isShuttingDown?: () => boolean;
  /** How far the store is behind MarketBob; when left out, the probe main.ts set (source-probe.ts), if any. */
  readonly source?: SourceProbe;
}

/** How long `/readyz` waits for the store before saying it is not ready. */
const STORE_CHECK_TIMEOUT_MS = 2_000;

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * `/healthz`: the process answers (liveness). `/readyz`: the store answers and the server is not
 * shutting down (readiness: a load balancer stops sending traffic on 503). Outside every
 * variant's base, in JSON, never cached.
 *
 * With a MarketBob source, `/readyz` also says how far the store is behind it (`marketbob`), and
 * stays 200 while it is behind: the instance serves what the store holds, which is what it is for
 * while MarketBob is away (a 503 from every instance at once would take the whole API down).
 */
export async function healthPlugin(
  scope: FastifyInstance,
  { store, isShuttingDown, source }: HealthPluginOptions,
): Promise<void> {
  let closing = false;
  // Fastify runs preClose as soon as close() is called (main.ts does on SIGTERM), before the last requests finish.
  scope.addHook('preClose', (done) => {
    closing = true;
    done();
  });

  scope.get('/healthz', (_request, reply) => send(reply, 200, { status: 'ok' }));

  scope.get('/readyz', async (_request, reply) => {
    if (closing || isShuttingDown?.()) return send(reply, 503, { status: 'unavailable', reason: 'shutting_down' });
    if (!(await storeAnswers(store))) return send(reply, 503, { status: 'unavailable', reason: 'store_unavailable' });
    const probe = source ?? sourceProbe();
    if (probe === undefined) return send(reply, 200, { status: 'ready' });
    return send(reply, 200, { status: 'ready', marketbob: sourceBody(await probe().catch(() => UNKNOWN)) });
  });
}

/** `{state, lag_seconds[, reason]}`: whole seconds, as a person reads them (the metric has the fraction). */
function sourceBody(health: SourceHealth): object {
  return {
    state: health.state,
    lag_seconds: health.lagSeconds === null ? null : Math.floor(health.lagSeconds),
    ...(health.reason === undefined ? {} : { reason: health.reason }),
  };
}

function send(reply: FastifyReply, status: number, body: object): FastifyReply {
  if (status === 503) reply.header('x-error-code', 'service_unavailable');
  return reply
    .code(status)
    .header('content-type', JSON_TYPE)
    .header('cache-control', 'no-store')
    .send(JSON.stringify(body));
}

async function storeAnswers(store: Store): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), STORE_CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      store.isEmpty().then(
        () => true,
        () => false,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
