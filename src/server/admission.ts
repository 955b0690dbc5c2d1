import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { type ApiLimits, createApiLimits } from '../api/api-limits.js';
import type { ApiRequest } from '../api/api-request.js';
import { type JsonReply, sendError } from '../api/reply.js';
import type { Config } from '../config.js';
import { createLimits, type Limits } from '../limits/limits.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { VariantResolver, VariantRuntime } from '../variants/variant-runtime.js';
import { BODY_LIMIT } from './body-limit.js';
import { variantOf } from './routing-errors.js';

/** What the API routes ask of admission: a hook per route, and a word about each failure. */
export interface Admission {
  /**
   * The `onRequest` hook of an API route under `prefix`: its variant, its client's budget, its
   * body's declared size, before anything is read (SPEC 2.2.1). One per route, because
   * `request.routeOptions` builds an object on every read.
   */
  hookFor(prefix: string): (request: FastifyRequest, reply: FastifyReply, done: () => void) => void;
  /**
   * The client's failure budget, before the body is read: true when the client may go on (its
   * budget on the headers); else the 429 is answered and counted, and false. The hook asks it, and
   * so does the fast lane.
   */
  admitClient(request: ApiRequest, reply: JsonReply, variant: VariantRuntime): boolean;
  /** The API's budgets: the routes count failures and write the RateLimit-* headers with them. */
  readonly apiLimits: ApiLimits;
}

declare module 'fastify' {
  interface FastifyInstance {
    admission: Admission;
    /**
     * The limits machinery, shared through Redis when REDIS_URL is set, for any surface that
     * needs a budget of its own (the workspace login): `app.limits.failureBudget(name, {...})`.
     */
    limits: Limits;
  }
}

export interface AdmissionOptions {
  readonly config: Config;
  readonly resolver: VariantResolver;
  /** Where refusals are counted. */
  readonly metrics: ServiceMetrics;
}

/**
 * Who gets in, and for how long: the server's timeouts and connection limits (a client that
 * trickles its headers or body, or holds idle sockets, cannot hold the process), the clients'
 * failure budgets, and the declared body size. At the root (fastify-plugin): the timeouts are the
 * server's, and every surface's routes may ask for `app.admission`.
 */
async function admission(app: FastifyInstance, { config, resolver, metrics }: AdmissionOptions): Promise<void> {
  const { server } = config;
  const http = app.server;
  http.requestTimeout = server.requestTimeoutMs;
  http.headersTimeout = server.headersTimeoutMs;
  http.keepAliveTimeout = server.keepAliveTimeoutMs;
  http.maxRequestsPerSocket = server.maxRequestsPerSocket;
  http.maxConnections = server.maxConnections;
  // Node checks the two timeouts above only this often (30 s by default): a timeout of 10 s would
  // otherwise hold a socket for up to 40 s.
  (http as typeof http & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    1000,
    server.headersTimeoutMs,
  );

  const limits = createLimits({
    redisUrl: config.redis?.url,
    redisKeyPrefix: config.redis?.keyPrefix,
    logger: app.log,
  });
  app.decorate('limits', limits);
  app.decorateRequest('limitsClient', '');
  app.decorateRequest('limitsKeyClient', undefined);
  app.decorateRequest('limitsState', undefined);
  app.addHook('onClose', () => limits.close());
  const apiLimits = createApiLimits(limits, config.limits);
  const refusals = metrics.limiter('client');

  const admitClient = (request: ApiRequest, reply: JsonReply, variant: VariantRuntime) => {
    const retryAfter = apiLimits.admitClient(request, reply);
    if (retryAfter === 0) return true;
    refusals.refused();
    sendError(reply.header('retry-after', String(retryAfter)), variant, 'tooManyRequests');
    return false;
  };

  app.decorate<Admission>('admission', {
    hookFor(prefix) {
      return (request, reply, done) => {
        const variant = resolver.forPrefix(prefix, request.host);
        if (!variant) {
          sendError(reply, variantOf(resolver, request), 'notFound');
          return;
        }
        request.variant = variant;
        if (!admitClient(request, reply, variant)) return;
        if (request.method === 'POST' && Number(request.headers['content-length'] ?? 0) > BODY_LIMIT) {
          // Closed rather than drained: reading a declared gigabyte to keep the socket is the attack.
          sendError(reply.header('connection', 'close'), variant, 'bodyTooLarge');
          return;
        }
        done();
      };
    },
    admitClient,
    apiLimits,
  });
}

export default fastifyPlugin(admission, { name: 'admission', fastify: '5.x' });
